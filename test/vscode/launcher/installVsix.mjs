// Installs a packaged .vsix into a run's extensions dir with code-server's CLI.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { ensureToolchain } from './toolchain.mjs';
import { codeServerEnv } from './codeServer.mjs';

function codeServerCli(toolchain, args, runDir) {
  return new Promise((resolve, reject) => {
    const child = spawn(toolchain.node24, [toolchain.codeServerBin, ...args], {
      cwd: runDir,
      env: codeServerEnv(runDir, toolchain.node24),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      out += d;
    });
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`code-server ${args.join(' ')} failed (exit ${code}):\n${out}`)),
    );
  });
}

/**
 * Installs `vsix` like a user would (`--install-extension`), then checks it is listed.
 * Use the run folder's layout (runDirLayout) so startCodeServer({ runDir }) picks it up.
 * @returns {Promise<string[]>} the installed extensions as `publisher.name@version`
 */
export async function installVsix({ vsix, extensionsDir, userDataDir, runDir = path.dirname(userDataDir), toolchain }) {
  if (!existsSync(vsix)) throw new Error(`installVsix: no such file: ${vsix}`);
  toolchain ??= await ensureToolchain();
  const dirs = ['--extensions-dir', extensionsDir, '--user-data-dir', userDataDir];
  await codeServerCli(toolchain, ['--install-extension', path.resolve(vsix), '--force', ...dirs], runDir);
  const listed = (await codeServerCli(toolchain, ['--list-extensions', '--show-versions', ...dirs], runDir))
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => /^[\w-]+\.[\w-]+@/.test(l));
  if (listed.length === 0) throw new Error(`installVsix: ${vsix} installed but --list-extensions shows nothing`);
  return listed;
}
