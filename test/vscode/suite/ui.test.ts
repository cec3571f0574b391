import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { activeApi, waitFor } from './helpers';

/**
 * The extension-host half of the browser checks (test/vscode/browserChecks.mjs). PK_UI_MODE picks
 * the scenario; the suite prepares state, hands over to the browser with a signal file in
 * PK_UI_SYNC_DIR, and waits for the browser's answer:
 *
 * - `trusted`: wait for the first index, run a search so a manifest exists, open the manifest
 *   webview, write `ready-for-ui`, wait for `ui-done`.
 * - `grant`: check Restricted Mode touched nothing, write `ready-for-ui`; the browser checks the
 *   untrusted UI and grants trust through the trust editor, then writes `trust-clicked`; the suite
 *   sees indexing start in the same extension host (no reload), writes `indexed`, waits for `ui-done`.
 *
 * `suite-failed` tells the browser to stop waiting; `ui-done` without the awaited signal tells the
 * suite the browser gave up. Both sides wait on conditions only, and every wait is bounded.
 */
const mode = process.env.PK_UI_MODE ?? 'trusted';
const syncDir = process.env.PK_UI_SYNC_DIR;
/** Long enough for the browser's checks on a busy 2-core machine; they are bounded on their side. */
const handoverTimeoutMs = 240_000;

function signal(name: string): void {
  if (!syncDir) throw new Error('PK_UI_SYNC_DIR is not set: run this suite through test/vscode/browserChecks.mjs');
  fs.writeFileSync(path.join(syncDir, name), '');
}

/** Waits for the browser's signal; fails at once when the browser wrote `ui-done` without it (it gave up). */
async function waitForSignal(name: string, timeoutMs = handoverTimeoutMs): Promise<void> {
  if (!syncDir) throw new Error('PK_UI_SYNC_DIR is not set: run this suite through test/vscode/browserChecks.mjs');
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (fs.existsSync(path.join(syncDir, name))) return;
    if (fs.existsSync(path.join(syncDir, 'ui-done'))) throw new Error(`the browser finished without writing '${name}' (see its checks)`);
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for the browser's '${name}' signal`);
    await new Promise((resolve) => setTimeout(resolve, 100)); // poll interval
  }
}

if (mode === 'trusted') {
  describe('browser checks: trusted workspace (extension host side)', () => {
    let prepared = false;
    it('indexes, searches and opens the manifest webview for the browser', async function () {
      this.timeout(120_000);
      assert.equal(vscode.workspace.isTrusted, true);
      const api = await activeApi();
      await waitFor('the first index', () => api.index.status().folders.some((status) => status.state === 'ready'), 90_000);
      await api.index.whenIdle();
      // A symbol and two words: the exact declaration ranks first, and with at most two results
      // the other candidates are listed as excluded, so the browser can check both filters.
      const [retrieval] = await api.index.search('parseCookieHeader cookie header', { limit: 2 });
      const entries = retrieval?.manifest.entries ?? [];
      const seen = JSON.stringify(entries.map((entry) => [entry.included, entry.reason, `${entry.path}:${entry.startLine}`]));
      assert.ok(
        entries.some((entry) => entry.included && entry.reason === 'exact-symbol' && entry.path === 'src/cookies.ts'),
        seen,
      );
      assert.ok(
        entries.some((entry) => !entry.included),
        `the manifest should list excluded entries too: ${seen}`,
      );
      await vscode.commands.executeCommand('projectKnowledge.showManifest');
      assert.equal(api.manifest.isOpen, true);
      prepared = true;
    });

    it('hands over to the browser and waits for its checks', async function () {
      this.timeout(handoverTimeoutMs + 10_000);
      if (!prepared) {
        signal('suite-failed'); // the browser stops waiting at once
        assert.fail('the manifest was not prepared, so the browser checks cannot run');
      }
      signal('ready-for-ui');
      await waitForSignal('ui-done');
      // The browser's checks (counted on its side) worked in the manifest webview; it is still open.
      assert.equal((await activeApi()).manifest.isOpen, true, 'the manifest webview the browser checked is still open');
    });
  });
} else if (mode === 'grant') {
  describe('browser checks: trust granted through the UI (extension host side)', () => {
    it('starts in Restricted Mode with nothing read', async () => {
      assert.equal(vscode.workspace.isTrusted, false);
      const api = await activeApi();
      await api.index.whenIdle();
      assert.equal(api.index.status().state, 'untrusted');
      assert.deepEqual(await api.index.counters(), { fsCalls: 0, gitCalls: 0, engineOpens: 0, workerStarted: false });
    });

    it('starts indexing in the same extension host when trust is granted in the trust editor', async function () {
      this.timeout(handoverTimeoutMs + 120_000);
      const api = await activeApi();
      signal('ready-for-ui');
      await waitForSignal('trust-clicked');
      const clicked = Date.now();
      await waitFor('workspace trust', () => vscode.workspace.isTrusted, 30_000);
      await waitFor('the indexing worker to start', () => api.index.workerStarted, 30_000);
      await waitFor('the index to be ready', () => api.index.status().folders.some((status) => status.state === 'ready'), 90_000);
      console.log(`trust granted in the UI → index ready after ${Date.now() - clicked} ms (no reload)`);
      // The same API object: the extension was not re-activated, so no reload happened.
      assert.equal(await activeApi(), api);
      const counters = await api.index.counters();
      assert.equal(counters.workerStarted, true);
      assert.ok(counters.engineOpens >= 1, JSON.stringify(counters));
      assert.ok(counters.fsCalls > 0 || counters.gitCalls > 0, JSON.stringify(counters));
      const status = api.index.status().folders[0];
      assert.ok(status.lastReport && status.lastReport.reindexed >= 3, JSON.stringify(status.lastReport));
      signal('indexed');
      await waitForSignal('ui-done');
    });
  });
} else {
  throw new Error(`unknown PK_UI_MODE '${mode}' (expected trusted or grant)`);
}
