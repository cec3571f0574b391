// Starts and stops an isolated code-server (VS Code 1.139.1 server + web workbench).
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, openSync, closeSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';

/** A fresh run folder with a short path: Chromium and VS Code put sockets in it. */
export function makeRunDir(prefix = 'pkv-') {
  return mkdtempSync(path.join(process.env.PK_RUN_ROOT || '/tmp', prefix));
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

// Variables that code-server or VS Code read and that must not leak in from the
// caller's shell (e.g. when started from a VS Code terminal).
const SCRUBBED_ENV = /^(VSCODE_|ELECTRON_RUN_AS_NODE$|PASSWORD$|HASHED_PASSWORD$|PORT$|GITHUB_TOKEN$|CODE_SERVER_|CS_DISABLE_)/;

/** The environment for every code-server process of a run (server and CLI). */
export function codeServerEnv(runDir, node24, extra = {}) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !SCRUBBED_ENV.test(k)));
  const dirs = {
    XDG_CONFIG_HOME: path.join(runDir, 'xdg', 'config'),
    XDG_DATA_HOME: path.join(runDir, 'xdg', 'data'),
    XDG_CACHE_HOME: path.join(runDir, 'xdg', 'cache'),
    TMPDIR: path.join(runDir, 'tmp'),
  };
  for (const dir of Object.values(dirs)) mkdirSync(dir, { recursive: true });
  return {
    ...env,
    ...dirs,
    EXTENSIONS_GALLERY: '{}', // no marketplace calls
    PATH: `${path.dirname(node24)}${path.delimiter}${env.PATH ?? ''}`,
    ...extra,
  };
}

/** Where a run keeps VS Code's user data and extensions. */
export function runDirLayout(runDir) {
  return { userDataDir: path.join(runDir, 'ud'), extensionsDir: path.join(runDir, 'ext') };
}

/** The last `n` lines of a file, or '' when it cannot be read. */
export function tailFile(file, n = 30) {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-n).join('\n');
  } catch {
    return '';
  }
}

/**
 * Starts code-server on 127.0.0.1 and waits until GET /healthz answers.
 * @param {object} o
 * @param {{ node24: string, codeServerBin: string }} o.toolchain  from ensureToolchain()
 * @param {boolean} [o.trusted=true]       false keeps Workspace Trust on (folders open in Restricted Mode)
 * @param {boolean} [o.smokeTestDriver]    needed for extension-test payloads
 * @param {string}  [o.folder]             folder opened when the URL names none
 * @param {object}  [o.userSettings]       written to <user-data-dir>/User/settings.json
 * @param {string}  [o.runDir]             default: a new /tmp/pkv-XXXXXX
 * @param {number}  [o.port]               default: a free port
 * @param {string[]} [o.extraArgs]
 * @param {object}  [o.env]                extra environment variables
 * @param {number}  [o.timeoutMs=60000]
 */
export async function startCodeServer({
  toolchain,
  trusted = true,
  smokeTestDriver = false,
  folder,
  userSettings,
  runDir = makeRunDir(),
  port,
  extraArgs = [],
  env = {},
  timeoutMs = 60_000,
}) {
  port ??= await freePort();
  const { userDataDir, extensionsDir } = runDirLayout(runDir);
  const logFile = path.join(runDir, 'code-server.log');
  const configFile = path.join(runDir, 'config.yaml');
  mkdirSync(path.join(userDataDir, 'User'), { recursive: true });
  mkdirSync(extensionsDir, { recursive: true });
  writeFileSync(configFile, ''); // empty: no generated password file
  if (userSettings) {
    writeFileSync(path.join(userDataDir, 'User', 'settings.json'), JSON.stringify(userSettings, null, 2));
  }

  const args = [
    toolchain.codeServerBin,
    '--config',
    configFile,
    '--bind-addr',
    `127.0.0.1:${port}`,
    '--auth',
    'none',
    '--disable-telemetry',
    '--disable-update-check',
    '--user-data-dir',
    userDataDir,
    '--extensions-dir',
    extensionsDir,
    ...(trusted ? ['--disable-workspace-trust'] : []),
    ...(smokeTestDriver ? ['--vscode-option', 'enable-smoke-test-driver'] : []),
    ...extraArgs,
    ...(folder ? [folder] : []),
  ];
  const fd = openSync(logFile, 'a');
  const child = spawn(toolchain.node24, args, {
    cwd: runDir,
    env: codeServerEnv(runDir, toolchain.node24, env),
    stdio: ['ignore', fd, fd],
    detached: true, // own process group, so stop() reaches the extension host and other children
  });
  closeSync(fd);

  let exited = null;
  const exitPromise = new Promise((resolve) =>
    child.on('exit', (code, signal) => {
      exited = { code, signal };
      resolve(exited);
    }),
  );
  child.on('error', (err) => {
    exited ??= { code: null, signal: null, error: err };
  });
  // Never leave a code-server behind if this process exits without calling stop().
  const killGroup = (sig) => {
    try {
      process.kill(-child.pid, sig);
    } catch {
      /* already gone */
    }
  };
  const onExit = () => killGroup('SIGKILL');
  process.on('exit', onExit);

  const server = {
    url: `http://127.0.0.1:${port}`,
    port,
    runDir,
    userDataDir,
    extensionsDir,
    logFile,
    process: child,
    /** SIGTERM, wait up to `graceMs` for exit, then SIGKILL the whole process group. */
    async stop({ graceMs = 5000, removeRunDir = false } = {}) {
      if (!exited) {
        killGroup('SIGTERM');
        let timer;
        await Promise.race([
          exitPromise,
          new Promise((r) => {
            timer = setTimeout(r, graceMs);
          }),
        ]);
        clearTimeout(timer);
      }
      killGroup('SIGKILL');
      process.off('exit', onExit);
      if (removeRunDir) rmSync(runDir, { recursive: true, force: true });
    },
  };

  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (exited) {
      await server.stop();
      throw new Error(
        `code-server exited before it was ready (${exited.error?.message ?? exited.signal ?? 'exit ' + exited.code}).\n` +
          `Last lines of ${logFile}:\n${tailFile(logFile)}`,
      );
    }
    if (await healthy(server.url)) return server;
    if (Date.now() > deadline) {
      await server.stop();
      throw new Error(
        `code-server did not answer ${server.url}/healthz within ${timeoutMs} ms.\n` + `Last lines of ${logFile}:\n${tailFile(logFile)}`,
      );
    }
    await new Promise((r) => setTimeout(r, 100)); // poll interval
  }
}

async function healthy(url) {
  try {
    const res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2000) });
    return res.ok;
  } catch {
    return false;
  }
}
