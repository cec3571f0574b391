#!/usr/bin/env node
// Runs the extension-host suites in a real VS Code (code-server from npm, driven by Chromium):
// trusted and untrusted, then the browser checks (test/vscode/browserChecks.mjs). Ends with one plain
// summary line `N passed, N failed`. `node test/vscode/run.mjs <trusted|untrusted|browser>` runs one part.
import { rmSync } from 'node:fs';
import path from 'node:path';
import { ensureToolchain, REPO_ROOT } from './launcher/toolchain.mjs';
import { runExtensionTests } from './launcher/runSuite.mjs';
import { createFixtureWorkspace } from './fixtureWorkspace.mjs';
import { chatAnswerScreenshot } from './fakeModel/chatScreenshot.mjs';
import { runBrowserChecks } from './browserChecks.mjs';

const suite = path.join(REPO_ROOT, 'out', 'test', 'vscode', 'suite', 'index.js');
const outputDir = path.join(REPO_ROOT, 'test-output');
const only = process.argv[2];

const runs = [
  { name: 'trusted', trusted: true },
  { name: 'untrusted', trusted: false },
  // @project and #projectKnowledge through the chat UI, answered by the fake model in test/vscode/fakeModel.
  {
    name: 'chat',
    trusted: true,
    timeoutMs: 480_000,
    afterStart: chatAnswerScreenshot(path.join(outputDir, 'screenshots', 'chat-answer.png')),
  },
].filter((run) => !only || run.name === only);

// Packages and toolchain once, up front: without them every run below would fail the same way.
try {
  await ensureToolchain();
} catch (error) {
  console.error(`[toolchain] ${error instanceof Error ? error.message : String(error)}`);
  console.log('0 passed, 1 failed');
  process.exit(1);
}

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
      timeoutMs: run.timeoutMs ?? 240_000,
      afterStart: run.afterStart,
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
// ---- Packaged .vsix smoke test (test/vscode/smoke.mjs) -------------------------------------
// `npm run package` on a clean copy of the tree, contents checked, installed with
// --install-extension and PK_SUITE=smoke run against the installed extension. `run.mjs smoke` runs only this.
if (!only || only === 'smoke') {
  const { runPackagedSmoke } = await import('./smoke.mjs');
  console.log('\n== packaged .vsix smoke test ==');
  try {
    const smoke = await runPackagedSmoke({ log: (line) => console.log(line) });
    passed += smoke.passed;
    failed += smoke.failed;
    if (smoke.failed > 0 || smoke.passed === 0) runsFailed++;
    console.log(
      `== smoke: ${smoke.failed === 0 && smoke.passed > 0 ? 'passed' : 'failed'} (${smoke.vsix ?? 'no .vsix'}: ${smoke.bytes} bytes, ${smoke.files} files, ${smoke.seconds.toFixed(1)} s) ==`,
    );
  } catch (error) {
    runsFailed++;
    console.error(`[vscode] smoke run failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}
// ---- end of the packaged .vsix smoke test ----------------------------------------------------
// ---- Browser checks (test/vscode/browserChecks.mjs) ------------------------------------------
// What a person sees: tree view, manifest webview, Restricted Mode, trust granted through the UI;
// screenshots in test-output/screenshots/. `run.mjs browser` runs only these.
if (!only || only === 'browser') {
  try {
    const browser = await runBrowserChecks({ log: (line) => console.log(line) });
    passed += browser.passed;
    failed += browser.failed;
    if (browser.failed > 0) runsFailed++;
  } catch (error) {
    runsFailed++;
    console.error(`[vscode] browser checks failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}
// ---- end of the browser checks ----------------------------------------------------------------
// A run that died before its summary still counts as a failure.
if (runsFailed > 0 && failed === 0) failed = runsFailed;
console.log(`${passed} passed, ${failed} failed`);
process.exitCode = failed > 0 || runsFailed > 0 ? 1 : 0;
