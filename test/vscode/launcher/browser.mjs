// Launches Debian's Chromium (/usr/bin/chromium) with playwright-core, kept off the network.
import { mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';

export const CHROMIUM = process.env.PK_CHROMIUM || '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
  '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
];

/**
 * Starts a headless Chromium with a fresh, short user-data dir.
 * @param {object} [o]
 * @param {string} [o.dir]      parent folder of the profile (keep it short: Chromium puts its socket there)
 * @param {object} [o.viewport]
 * @returns {Promise<{ context: import('playwright-core').BrowserContext, page: import('playwright-core').Page, close(): Promise<void> }>}
 */
export async function launchBrowser({ dir = '/tmp', viewport = { width: 1400, height: 900 }, env } = {}) {
  const profileDir = mkdtempSync(path.join(dir, 'chr-'));
  const context = await chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport,
    // Keep Chromium's crash-report and cache folders out of $HOME.
    env: { ...process.env, TMPDIR: dir, XDG_CONFIG_HOME: profileDir, XDG_CACHE_HOME: profileDir, ...env },
  });
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    context,
    page,
    async close() {
      await context.close().catch(() => {});
      rmSync(profileDir, { recursive: true, force: true });
    },
  };
}
