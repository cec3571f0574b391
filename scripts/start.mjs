#!/usr/bin/env node
// `npm start [-- <folder>] [--trusted] [--port N] [--no-build] [--vsix file.vsix] [--dev-path dir]`
//
// Builds the extension, then serves a real VS Code (code-server 1.139.1) on 127.0.0.1 with
// <folder> (default: this repository) opened and the extension loaded, and prints the URL.
// Runs until Ctrl-C.
//
// The extension is loaded from this repository as a development extension (like F5 in VS Code):
// the URL carries an extensionDevelopmentPath payload, which code-server honours only with its
// smoke-test driver switched on. Reloading the page picks up a fresh build. With --vsix, a
// packaged extension is installed instead and the plain URL is enough.
//
// Workspace Trust stays on, as in a normal VS Code: the folder opens in Restricted Mode until you
// trust it (banner or status bar). --trusted switches trust off for this session.
// User data (trust decisions, the extension's global storage) persists in /tmp/pkv-start-<hash>.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ensureToolchain, REPO_ROOT } from '../test/vscode/launcher/toolchain.mjs';
import { runDirLayout, startCodeServer, tailFile } from '../test/vscode/launcher/codeServer.mjs';
import { installVsix } from '../test/vscode/launcher/installVsix.mjs';
import { workbenchUrl } from '../test/vscode/launcher/runSuite.mjs';

const fail = (msg) => {
  console.error(`[start] ${msg}`);
  process.exit(1);
};

const { values: o, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    trusted: { type: 'boolean', default: false },
    port: { type: 'string' },
    'no-build': { type: 'boolean', default: false },
    vsix: { type: 'string' },
    'dev-path': { type: 'string' },
  },
});
// npm runs scripts in the package folder; resolve the user's paths against where npm was invoked.
const userCwd = process.env.INIT_CWD || process.cwd();
const folder = path.resolve(userCwd, positionals[0] ?? REPO_ROOT);
const devPath = path.resolve(userCwd, o['dev-path'] ?? REPO_ROOT);
if (!existsSync(folder)) fail(`folder does not exist: ${folder}`);

if (!o['no-build'] && !o.vsix) {
  console.log('[start] building: npm run build');
  const build = spawnSync('npm', ['run', 'build'], { cwd: devPath, stdio: 'inherit' });
  if (build.status !== 0) fail(`the build failed (npm run build exited ${build.status ?? build.signal}); nothing started`);
}
if (!o.vsix) {
  const manifest = JSON.parse(readFileSync(path.join(devPath, 'package.json'), 'utf8'));
  const main = manifest.main && path.resolve(devPath, manifest.main);
  if (main && !existsSync(main) && !existsSync(main + '.js')) fail(`the extension entry point ${manifest.main} is missing after the build`);
}

// The browser is the user's own, so Chromium is not needed here.
const toolchain = await ensureToolchain({ browser: false }).catch((err) => fail(err.message));
// A stable, short run folder per repository: keeps trust decisions and global storage between starts.
const runKey = `${folder}\0${o.vsix ? 'vsix' : devPath}`;
const runDir = path.join('/tmp', 'pkv-start-' + createHash('sha256').update(runKey).digest('hex').slice(0, 8));
mkdirSync(runDir, { recursive: true });
if (o.vsix) {
  const installed = await installVsix({ vsix: path.resolve(userCwd, o.vsix), ...runDirLayout(runDir), toolchain });
  console.log(`[start] installed ${installed.join(', ')}`);
}

let server;
try {
  server = await startCodeServer({
    toolchain,
    runDir,
    folder,
    trusted: o.trusted,
    smokeTestDriver: !o.vsix, // needed for the extensionDevelopmentPath payload
    port: o.port ? Number(o.port) : undefined,
  });
} catch (err) {
  fail(err.message);
}

const url = o.vsix
  ? workbenchUrl(server.url, { folder })
  : workbenchUrl(server.url, {
      folder,
      payload: [
        ['extensionDevelopmentPath', `vscode-remote://127.0.0.1:${server.port}${devPath}`],
        ['skipWelcome', 'true'],
      ],
    });

console.log(`
[start] VS Code 1.139.1 (code-server) is serving ${folder}
[start] extension: ${o.vsix ? `installed from ${o.vsix}` : `development build from ${devPath}`}
[start] trust: ${o.trusted ? 'off (--trusted): the folder is trusted' : 'on: the folder opens in Restricted Mode until you trust it (banner or status bar)'}
[start] logs: ${server.logFile} and ${server.userDataDir}/logs

    Open ${url}
${o.vsix ? '' : '    (the extension loads only through this full URL)\n'}
[start] Ctrl-C to stop.`);

let stopping = false;
async function shutdown(code) {
  if (stopping) return;
  stopping = true;
  console.log('\n[start] stopping code-server ...');
  await server.stop();
  process.exit(code);
}
process.on('SIGINT', () => shutdown(0));
process.on('SIGTERM', () => shutdown(0));
server.process.on('exit', (code, signal) => {
  if (stopping) return;
  console.error(`[start] code-server exited (${signal ?? 'exit ' + code}); last lines of ${server.logFile}:\n${tailFile(server.logFile)}`);
  shutdown(1);
});
