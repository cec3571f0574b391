#!/usr/bin/env bash
# Installs the Debian packages the real-VS-Code tests need on a fresh machine.
# Run as root. Idempotent: does nothing (and makes no network call) when all
# packages are already installed. Fails loudly on any error.
#
#   chromium                      browser driven by playwright-core (no driver needed)
#   build-essential python3       native modules of code-server (node-gyp)
#   pkg-config libkrb5-dev        ditto (kerberos module)
#   git ripgrep                   used by the extension / VS Code search
set -euo pipefail

PACKAGES=(chromium build-essential python3 pkg-config libkrb5-dev git ripgrep)

missing=()
for pkg in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$pkg")
  fi
done

if [ "${#missing[@]}" -eq 0 ]; then
  echo "install-deps: all Debian packages present (${PACKAGES[*]})"
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  echo "install-deps: missing packages: ${missing[*]}; run this script as root" >&2
  exit 1
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! { apt-get update -q && apt-get install -y -q --no-install-recommends "${missing[@]}"; } >"$log" 2>&1; then
  tail -n 40 "$log" >&2
  echo "install-deps: apt-get failed (see output above)" >&2
  exit 1
fi

for pkg in "${missing[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' \
    || { echo "install-deps: $pkg still not installed" >&2; exit 1; }
done
test -x /usr/bin/chromium || { echo "install-deps: /usr/bin/chromium missing" >&2; exit 1; }
echo "install-deps: done"
