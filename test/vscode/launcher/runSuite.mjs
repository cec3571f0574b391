// Runs an extension-host mocha suite in code-server's real VS Code, driven by Chromium.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import util from 'node:util';
import { ensureToolchain } from './toolchain.mjs';
import { makeRunDir, runDirLayout, startCodeServer, tailFile } from './codeServer.mjs';
import { launchBrowser } from './browser.mjs';
import { installVsix } from './installVsix.mjs';

export class SuiteTimeoutError extends Error {}

/** The workbench URL that opens `folder` and, with a payload, runs extension tests. */
export function workbenchUrl(serverUrl, { folder, payload } = {}) {
  const q = new URLSearchParams();
  if (folder) q.set('folder', folder);
  if (payload) q.set('payload', JSON.stringify(payload));
  const qs = q.toString();
  return `${serverUrl}/${qs ? '?' + qs : ''}`;
}

/** The test payload: paths are on the server's file system, addressed as vscode-remote URIs. */
export function testPayload(server, { extensionDevelopmentPath, extensionTestsPath, extensionEnvironment }) {
  const remote = (p) => `vscode-remote://127.0.0.1:${server.port}${path.resolve(p)}`;
  const payload = [
    ...(extensionDevelopmentPath ? [['extensionDevelopmentPath', remote(extensionDevelopmentPath)]] : []),
    ['extensionTestsPath', remote(extensionTestsPath)],
    ['skipWelcome', 'true'],
  ];
  if (extensionEnvironment) payload.push(['extensionEnvironment', JSON.stringify(extensionEnvironment)]);
  return payload;
}

// Workbench chatter that reaches codeAutomationLog next to mocha's output and says
// nothing about the suite (code-server 4.139.1). PK_VSCODE_VERBOSE=1 shows everything.
const NOISE = [
  /^\[(AgentHost|AgentHost:remote|ChatModelSelection|AccountPolicyGate|Service Worker|reconnection-grace-time)\]/,
  /^Ignoring fetching additional builtin extensions from gallery/,
  /^Updating additional builtin extensions cache/,
  /^Resolv(ing|ed) connection token/,
  /^Creating a socket \(renderer-/,
  /^Creation of workbench contribution '.*' took/,
  /^No search provider registered for scheme/,
  /Timed out waiting for authentication provider 'github' to register/,
  /^Canceled: Canceled: Canceled\s+at [^\n]*\/workbench\.js/, // the extension host stopping at the end
];
export const isNoise = (line) => NOISE.some((re) => re.test(line));

function emptyDevExtension(runDir) {
  const dir = path.join(runDir, 'test-host');
  mkdirSync(dir);
  writeFileSync(
    path.join(dir, 'package.json'),
    JSON.stringify({
      name: 'vsix-test-host',
      publisher: 'pk-test',
      version: '0.0.0',
      engines: { vscode: '*' },
    }),
  );
  return dir;
}

/** Waits until `check()` is truthy, polling every `intervalMs`. */
export async function waitUntil(check, { timeoutMs = 30_000, intervalMs = 100, what = 'condition' } = {}) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/**
 * Runs the suite and returns its exit code (0 = passed). Throws on timeout, page crash or a failing hook.
 *
 * Browser checks and the suite can hand over to each other through signal files: the suite sees
 * the folder as process.env.PK_UI_SYNC_DIR, and the hooks get `signal(name)` / `waitForSignal(name)`.
 * E.g. the suite writes `ready-for-ui` and waits for `ui-done`, which afterStart writes after its
 * clicks and screenshots. After the suite has finished, the extension host is shut down: checks of
 * views that the extension feeds belong in afterStart, not beforeStop.
 *
 * @param {object} o
 * @param {string} [o.extensionDevelopmentPath] folder of the extension under test (its package.json)
 * @param {string} [o.vsix]                    instead of a development path: a packaged extension,
 *                                             installed with --install-extension into the run's extensions dir
 * @param {string} o.extensionTestsPath        compiled suite module exporting run(); `mocha` must resolve from it
 * @param {string} o.folder                    workspace folder to open
 * @param {boolean} [o.trusted=true]           false: Workspace Trust on, the folder opens in Restricted Mode
 * @param {object} [o.extensionEnvironment]    env vars for the extension host (process.env in the suite)
 * @param {object} [o.userSettings]            user settings.json content
 * @param {number} [o.timeoutMs=300000]        whole run, from start to codeAutomationExit
 * @param {(ctx) => Promise<void>} [o.afterStart]  runs while the suite runs, right after the page loaded;
 *        ctx = { page, server, url, done, signal, waitForSignal }; `done` resolves with the exit code
 * @param {(ctx) => Promise<void>} [o.beforeStop]  runs after the suite finished, on the same page;
 *        ctx = { page, server, code }
 * @param {string} [o.screenshotOnFailure]     file for a screenshot of the page when the run fails
 * @param {(line: string) => void} [o.log]
 */
export async function runExtensionTests({
  extensionDevelopmentPath,
  vsix,
  extensionTestsPath,
  folder,
  trusted = true,
  extensionEnvironment = {},
  userSettings,
  timeoutMs = 300_000,
  afterStart,
  beforeStop,
  screenshotOnFailure,
  log = (line) => console.log(line),
}) {
  if (!extensionTestsPath || !folder) throw new Error('runExtensionTests: extensionTestsPath and folder are required');
  if (!extensionDevelopmentPath === !vsix) throw new Error('runExtensionTests: give exactly one of extensionDevelopmentPath and vsix');
  for (const [name, p] of Object.entries({ extensionDevelopmentPath, vsix, extensionTestsPath, folder })) {
    if (p !== undefined && !existsSync(p)) throw new Error(`runExtensionTests: ${name} does not exist: ${p}`);
  }
  const verbose = process.env.PK_VSCODE_VERBOSE === '1';
  const toolchain = await ensureToolchain();
  const started = Date.now();
  const elapsed = () => `${((Date.now() - started) / 1000).toFixed(1)} s`;
  const runDir = makeRunDir();
  if (vsix) {
    const installed = await installVsix({ vsix, ...runDirLayout(runDir), toolchain });
    log(`[vscode] installed ${path.basename(vsix)}: ${installed.join(', ')} (${elapsed()})`);
    // The web workbench runs extensionTestsPath only in extension-development mode, so give it
    // an empty development extension; the extension under test is the installed one.
    extensionDevelopmentPath = emptyDevExtension(runDir);
  }
  const server = await startCodeServer({ toolchain, runDir, trusted, smokeTestDriver: true, userSettings });
  log(`[vscode] code-server ${server.url} ready after ${elapsed()} (${trusted ? 'trusted' : 'untrusted'}, run folder ${server.runDir})`);

  const syncDir = path.join(server.runDir, 'sync');
  mkdirSync(syncDir);
  const signal = (name) => writeFileSync(path.join(syncDir, name), '');
  const waitForSignal = (name, timeout = timeoutMs) =>
    waitUntil(() => existsSync(path.join(syncDir, name)), { timeoutMs: timeout, what: `signal '${name}'` });

  let browser;
  let timer;
  let failed = true;
  try {
    browser = await launchBrowser({ dir: server.runDir });
    const { page } = browser;
    let resolveExit;
    let exited = false;
    const done = new Promise((r) => {
      resolveExit = r;
    });
    await page.exposeFunction('codeAutomationExit', (c) => {
      exited = true;
      resolveExit(Number(c));
    });
    await page.exposeFunction('codeAutomationLog', (type, args) => {
      // After the exit call the workbench tears down and logs "Canceled" errors: not the suite's.
      if (exited && !verbose) return;
      const line = util.format(...(Array.isArray(args) ? args : [args]));
      if (verbose || !isNoise(line)) log(type === 'error' ? `[vscode:error] ${line}` : line);
    });
    const aborted = new Promise((_, reject) => {
      page.on('crash', () => reject(new Error('the workbench page crashed')));
      timer = setTimeout(
        () =>
          reject(
            new SuiteTimeoutError(
              `The extension test suite did not finish within ${timeoutMs} ms (VS Code never called codeAutomationExit). ` +
                `VS Code logs: ${server.userDataDir}/logs; last lines of ${server.logFile}:\n${tailFile(server.logFile, 15)}`,
            ),
          ),
        timeoutMs,
      );
    });
    aborted.catch(() => {});

    const url = workbenchUrl(server.url, {
      folder: path.resolve(folder),
      payload: testPayload(server, {
        extensionDevelopmentPath,
        extensionTestsPath,
        extensionEnvironment: { ...extensionEnvironment, PK_UI_SYNC_DIR: syncDir },
      }),
    });
    await Promise.race([page.goto(url, { timeout: timeoutMs }), aborted]);
    log(`[vscode] workbench loaded after ${elapsed()}, running ${extensionTestsPath}`);

    const hook = afterStart ? afterStart({ page, server, url, done, signal, waitForSignal }) : Promise.resolve();
    // A failing hook ends the run at once; otherwise wait for both the suite and the hook.
    const code = await Promise.race([done, aborted, hook.then(() => done)]);
    await Promise.race([hook, aborted]);
    clearTimeout(timer);
    log(`[vscode] suite finished with exit code ${code} after ${elapsed()}`);
    if (beforeStop) await beforeStop({ page, server, code });
    failed = code !== 0;
    return code;
  } finally {
    clearTimeout(timer);
    if (failed && browser && screenshotOnFailure) {
      mkdirSync(path.dirname(screenshotOnFailure), { recursive: true });
      await browser.page.screenshot({ path: screenshotOnFailure }).catch(() => {});
      log(`[vscode] screenshot of the failed run: ${screenshotOnFailure}`);
    }
    await browser?.close();
    const keep = failed || process.env.PK_KEEP_RUN === '1';
    await server.stop({ removeRunDir: !keep });
    if (keep) log(`[vscode] kept run folder ${server.runDir} (VS Code logs in ud/logs, code-server.log)`);
  }
}
