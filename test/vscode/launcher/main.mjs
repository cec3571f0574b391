#!/usr/bin/env node
// Runs a compiled extension-host test suite in code-server's real VS Code.
//
//   node test/vscode/launcher/main.mjs --suite out/test/vscode/suite/index.js --folder test/fixtures/x \
//        [--trusted|--untrusted] [--dev-path <ext dir> | --vsix <file.vsix>] [--timeout <ms>]
//        [--env KEY=VALUE]... [--settings <settings.json>] [--screenshots <dir>]
//
// Exits with the suite's exit code (1 on timeout or launcher error).
// PK_VSCODE_VERBOSE=1 prints all workbench logs; PK_KEEP_RUN=1 keeps the run folder.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { REPO_ROOT } from './toolchain.mjs';
import { runExtensionTests } from './runSuite.mjs';

export { installVsix } from './installVsix.mjs';

async function main() {
  const { values: o } = parseArgs({
    options: {
      suite: { type: 'string' },
      folder: { type: 'string' },
      trusted: { type: 'boolean' },
      untrusted: { type: 'boolean' },
      'dev-path': { type: 'string' },
      vsix: { type: 'string' },
      timeout: { type: 'string', default: '300000' },
      env: { type: 'string', multiple: true, default: [] },
      settings: { type: 'string' },
      screenshots: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (o.help || !o.suite || !o.folder || (o.trusted && o.untrusted)) {
    console.error(
      'usage: main.mjs --suite <suite index.js> --folder <dir> [--trusted|--untrusted] ' +
        '[--dev-path <ext dir> | --vsix <file>] [--timeout ms] [--env K=V]... [--settings file] [--screenshots dir]',
    );
    return o.help ? 0 : 2;
  }
  const trusted = !o.untrusted;
  const extensionEnvironment = {};
  for (const kv of o.env) {
    const i = kv.indexOf('=');
    if (i <= 0) throw new Error(`--env expects KEY=VALUE, got ${kv}`);
    extensionEnvironment[kv.slice(0, i)] = kv.slice(i + 1);
  }
  const screenshotOnFailure = o.screenshots && path.resolve(o.screenshots, `failure-${trusted ? 'trusted' : 'untrusted'}.png`);
  return runExtensionTests({
    extensionTestsPath: path.resolve(o.suite),
    folder: path.resolve(o.folder),
    trusted,
    ...(o.vsix ? { vsix: path.resolve(o.vsix) } : { extensionDevelopmentPath: path.resolve(o['dev-path'] ?? REPO_ROOT) }),
    extensionEnvironment,
    userSettings: o.settings ? JSON.parse(readFileSync(o.settings, 'utf8')) : undefined,
    timeoutMs: Number(o.timeout),
    screenshotOnFailure,
  });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().then(
    (code) => {
      process.exitCode = code;
    },
    (err) => {
      console.error(`[vscode] ${err.message}`);
      process.exitCode = 1;
    },
  );
}
