// The browser side of the chat suite (an afterStart hook for runExtensionTests): when the suite
// has a finished `@project` answer on screen it writes the signal `chat-answer-ready`; this hook
// then unfolds the answer's references, records what the chat view shows into `chat-ui.json`
// in the sync folder, screenshots the chat (the secondary side bar) and signals `chat-answer-shot`.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** @param {string} file where the PNG goes */
export function chatAnswerScreenshot(file) {
  return async ({ page, server, done, signal, waitForSignal }) => {
    // A suite that never gets there (an earlier failure) must not keep the run waiting.
    const ready = await Promise.race([waitForSignal('chat-answer-ready').then(() => true), done.then(() => false)]);
    if (!ready) return;
    const seen = { answer: '', referencesLabel: '', references: [], anchors: [], notes: [] };
    try {
      const response = page.locator('.interactive-item-container.interactive-response').last();
      await response.locator('.rendered-markdown').first().waitFor({ timeout: 20_000 });
      seen.anchors = await response.locator('.chat-inline-anchor-widget').allInnerTexts();
      // Code-server 4.139: the finished response folds its steps under "Completed N steps"
      // (details.completed-response-disclosure), and inside it "Used N references" folds the list.
      const disclosure = response.locator('details.completed-response-disclosure').first();
      if ((await disclosure.count()) > 0 && (await disclosure.getAttribute('open')) === null)
        await response.locator('.completed-response-summary').first().click();
      const used = response.locator('.chat-used-context > .chat-used-context-label .monaco-button').first();
      await used.waitFor({ timeout: 10_000 });
      seen.referencesLabel = await used.innerText();
      if ((await used.getAttribute('aria-expanded')) !== 'true') await used.click();
      const rows = response.locator('.chat-used-context-list .monaco-list-row');
      await rows.first().waitFor({ timeout: 10_000 });
      seen.references = await rows.allInnerTexts();
      seen.answer = (await response.locator('.rendered-markdown').allInnerTexts()).join('\n');
      mkdirSync(path.dirname(file), { recursive: true });
      await page.locator('.part.auxiliarybar').screenshot({ path: file });
      seen.screenshot = file;
    } catch (error) {
      seen.notes.push(`chat UI check failed: ${error instanceof Error ? error.message : String(error)}`);
    }
    writeFileSync(path.join(server.runDir, 'sync', 'chat-ui.json'), JSON.stringify(seen, null, 2));
    signal('chat-answer-shot');
  };
}
