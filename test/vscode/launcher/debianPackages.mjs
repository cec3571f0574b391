// Makes sure the Debian packages the VS Code toolchain needs are installed: as root it installs the
// missing ones with apt-get (non-interactive, output kept in a log file); otherwise it stops with
// the one `sudo apt-get install` line to run. Nothing runs, and no network is used, when all are present.
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';

/** Missing packages, or undefined when this is not a Debian-like system (no dpkg-query). */
export function missingDebianPackages(packages) {
  if (packages.length === 0) return [];
  const query = spawnSync('dpkg-query', ['-W', '-f=${Package} ${db:Status-Status}\n', ...packages], { encoding: 'utf8' });
  if (query.error) return undefined;
  // Unknown packages print nothing on stdout (only a complaint on stderr), so absence means missing.
  const installed = new Set(
    query.stdout
      .split('\n')
      .filter((line) => line.endsWith(' installed'))
      .map((line) => line.split(' ')[0]),
  );
  return packages.filter((name) => !installed.has(name));
}

/** The command a user without root runs to install `packages`. */
export function sudoInstallLine(packages) {
  return `sudo apt-get install -y --no-install-recommends ${packages.join(' ')}`;
}

/**
 * Ensures `packages` are installed. Resolves when they are; rejects with a one-line message when
 * they are missing and this process is not root, or when apt-get fails.
 * @param {string[]} packages
 * @param {{ logFile: string, log: (line: string) => void, why?: string }} o
 */
export async function ensureDebianPackages(packages, { logFile, log, why = 'the VS Code toolchain' }) {
  const missing = missingDebianPackages(packages);
  if (missing === undefined) {
    log(`no dpkg-query (not a Debian system): make sure ${packages.join(', ')} (or their equivalents) are installed`);
    return;
  }
  if (missing.length === 0) return;
  if (process.getuid?.() !== 0) {
    throw new Error(`${why} needs the Debian packages ${missing.join(', ')}; install them with: ${sudoInstallLine(missing)}`);
  }
  log(`installing the Debian packages ${missing.join(', ')} with apt-get (log: ${logFile}) ...`);
  // Waits for a dpkg lock another apt-get holds instead of failing at once.
  const lockWait = ['-o', 'DPkg::Lock::Timeout=600'];
  await apt(['update', '-q', ...lockWait], logFile);
  await apt(['install', '-y', '-q', '--no-install-recommends', ...lockWait, ...missing], logFile);
  const still = missingDebianPackages(missing) ?? [];
  if (still.length > 0) throw new Error(`apt-get finished but ${still.join(', ')} is still not installed; see ${logFile}`);
  log(`installed ${missing.join(', ')}`);
}

function apt(args, logFile) {
  return new Promise((resolve, reject) => {
    const fd = openSync(logFile, 'a');
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive', NEEDRESTART_MODE: 'a' };
    const child = spawn('apt-get', args, { env, stdio: ['ignore', fd, fd] });
    child.on('error', (error) => {
      closeSync(fd);
      reject(new Error(`apt-get could not start (${error.message})`));
    });
    child.on('exit', (code, signal) => {
      closeSync(fd);
      if (code === 0) return resolve();
      reject(new Error(`apt-get ${args[0]} failed (${signal ?? `exit ${code}`}): ${lastAptError(logFile)}; full output in ${logFile}`));
    });
  });
}

/** The last `E:` line apt-get wrote (its own summary of what went wrong), else its last line. */
function lastAptError(logFile) {
  const lines = readFileSync(logFile, 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  return lines.findLast((line) => line.startsWith('E:')) ?? lines.at(-1) ?? 'no output';
}
