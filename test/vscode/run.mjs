#!/usr/bin/env node
// Runs the extension-host suites in a real VS Code (code-server from npm, driven by Chromium):
// trusted and untrusted. Ends with one plain summary line `N passed, N failed`.
import { rmSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './launcher/toolchain.mjs';
import { runExtensionTests } from './launcher/runSuite.mjs';
import { createFixtureWorkspace } from './fixtureWorkspace.mjs';

const suite = path.join(REPO_ROOT, 'out', 'test', 'vscode', 'suite', 'index.js');
const outputDir = path.join(REPO_ROOT, 'test-output');
const only = process.argv[2];

const runs = [
  { name: 'trusted', trusted: true },
  { name: 'untrusted', trusted: false },
].filter((run) => !only || run.name === only);

let passed = 0;
let failed = 0;
let runsFailed = 0;
for (const run of runs) {
  const folder = createFixtureWorkspace(`pkw-${run.name}-`);
  console.log(`\n== extension-host suite: ${run.name} (${folder}) ==`);
  let code = 1;
  try {
    code = await runExtensionTests({
      extensionDevelopmentPath: REPO_ROOT,
      extensionTestsPath: suite,
      folder,
      trusted: run.trusted,
      extensionEnvironment: { PK_SUITE: run.name },
      timeoutMs: 240_000,
      screenshotOnFailure: path.join(outputDir, `failed-${run.name}.png`),
      log: (line) => {
        // The suite's own summary line; the totals below add them up.
        const summary = line.match(/^(\d+) passed, (\d+) failed$/);
        if (summary) {
          passed += Number(summary[1]);
          failed += Number(summary[2]);
        }
        console.log(line);
      },
    });
  } catch (error) {
    console.error(`[vscode] ${run.name} run failed: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
  if (code !== 0) runsFailed++;
  console.log(`== ${run.name}: ${code === 0 ? 'passed' : `failed (exit ${code})`} ==`);
}
// A run that died before its summary still counts as a failure.
if (runsFailed > 0 && failed === 0) failed = runsFailed;
console.log(`${passed} passed, ${failed} failed`);
process.exitCode = failed > 0 || runsFailed > 0 ? 1 : 0;
