#!/usr/bin/env node
// For machines with normal network access: the same suites through @vscode/test-electron, which
// downloads a desktop VS Code. On the offline CI machines use test/vscode/run.mjs instead.
import path from 'node:path';
import { runTests } from '@vscode/test-electron';
import { REPO_ROOT } from './launcher/toolchain.mjs';
import { createFixtureWorkspace } from './fixtureWorkspace.mjs';

let failed = 0;
for (const suite of ['trusted', 'untrusted']) {
  const folder = createFixtureWorkspace(`pke-${suite}-`);
  try {
    await runTests({
      extensionDevelopmentPath: REPO_ROOT,
      extensionTestsPath: path.join(REPO_ROOT, 'out', 'test', 'vscode', 'suite', 'index.js'),
      launchArgs: [folder, ...(suite === 'trusted' ? ['--disable-workspace-trust'] : []), '--disable-extensions'],
      extensionTestsEnv: { PK_SUITE: suite },
    });
  } catch (error) {
    failed++;
    console.error(`${suite}: ${error instanceof Error ? error.message : String(error)}`);
  }
}
console.log(`${2 - failed} passed, ${failed} failed`);
process.exitCode = failed > 0 ? 1 : 0;
