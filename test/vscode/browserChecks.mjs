// Browser checks: what a person sees in the real VS Code (code-server + Chromium), asserted through
// the DOM, with screenshots. Each scenario runs the small extension-host suite
// test/vscode/suite/ui.test.ts (PK_SUITE=ui, PK_UI_MODE=<mode>), which prepares state and hands over
// to the browser through signal files; the checks below run in runExtensionTests' afterStart hook.
//
//   trusted: the tree view (status row, src → cookies.ts → parseCookieHeader), the manifest webview
//            (rows, reasons, links, filters, sorting, keyboard access). Screenshots tree-view.png,
//            manifest-webview.png.
//   grant:   Restricted Mode (the view's welcome message, the status bar item; untrusted.png), then
//            trust granted in the trust editor and indexing seen starting without a reload
//            (trust-granted.png); the suite side asserts the worker started and the index is ready.
//
// Every wait is on a condition with a bound; a failing check prints what it saw (row labels, table
// rows) and saves a screenshot test-output/screenshots/failed-<check>.png. Standalone:
//   node test/vscode/browserChecks.mjs [trusted|grant]      (after npm run build && npm run build:test)
/* global document, window -- only inside page.evaluate callbacks, which run in the browser */
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { REPO_ROOT } from './launcher/toolchain.mjs';
import { runExtensionTests } from './launcher/runSuite.mjs';
import { createFixtureWorkspace } from './fixtureWorkspace.mjs';

const SUITE = path.join(REPO_ROOT, 'out', 'test', 'vscode', 'suite', 'index.js');
const OUTPUT_DIR = path.join(REPO_ROOT, 'test-output');
export const SCREENSHOT_DIR = path.join(OUTPUT_DIR, 'screenshots');

/** Bounds for waits (busy 2-core machines: activation alone can take 10+ s). */
const HANDOVER_MS = 180_000; // the suite's first index and search, before it writes ready-for-ui
const APPEAR_MS = 60_000; // a piece of UI appearing after an action
const RUN_TIMEOUT_MS = 420_000; // one whole code-server run

const CONTAINER_TITLE = 'Project Knowledge';
const UNTRUSTED_WELCOME = 'Project Knowledge indexes only trusted workspaces.';

// ---------------------------------------------------------------------------------------------
// Waiting and reading what is on screen

/** Polls `check` until it returns a truthy value; on timeout the error says what was seen. */
async function until(what, check, { timeoutMs = APPEAR_MS, seen } = {}) {
  const deadline = Date.now() + timeoutMs;
  let lastError;
  for (;;) {
    try {
      const value = await check();
      if (value) return value;
    } catch (error) {
      if (error?.final) throw error; // a condition that can no longer come true
      lastError = error;
    }
    if (Date.now() > deadline) {
      const saw = seen ? await seen().catch((error) => `(could not read: ${error.message})`) : undefined;
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}` +
          (saw !== undefined ? `\n    seen: ${typeof saw === 'string' ? saw : JSON.stringify(saw)}` : '') +
          (lastError ? `\n    last error: ${lastError.message.split('\n')[0]}` : ''),
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 100)); // poll interval, not a sleep for the UI
  }
}

function assert(condition, message, seen) {
  if (!condition) throw new Error(`${message}${seen !== undefined ? `\n    seen: ${JSON.stringify(seen)}` : ''}`);
}

/** Visible rows of the tree in the side bar: label, description, level, expanded. */
function treeRows(page) {
  return page.locator('.part.sidebar .monaco-list-row').evaluateAll((rows) =>
    rows
      .filter((row) => row.offsetParent !== null)
      .map((row) => ({
        label: row.querySelector('.label-name')?.textContent?.trim() ?? '',
        description: row.querySelector('.label-description')?.textContent?.trim() ?? '',
        level: Number(row.getAttribute('aria-level') ?? 0),
        expanded: row.getAttribute('aria-expanded'),
      })),
  );
}

const describeRows = (rows) =>
  rows.length === 0
    ? '(no rows)'
    : rows
        .map((row) => `${'  '.repeat(Math.max(0, row.level - 1))}${row.label}${row.description ? ` [${row.description}]` : ''}`)
        .join(' | ');

function treeRow(page, label) {
  return page
    .locator('.part.sidebar .monaco-list-row')
    .filter({ has: page.locator('.label-name', { hasText: label instanceof RegExp ? label : new RegExp(`^${escapeRegExp(label)}$`) }) });
}

const escapeRegExp = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Text of the side bar (welcome content, messages), whitespace collapsed. */
async function sidebarText(page) {
  return (
    await page
      .locator('.part.sidebar')
      .innerText()
      .catch(() => '')
  )
    .replace(/\s+/g, ' ')
    .trim();
}

/** Opens the Project Knowledge activity-bar container, as a person would: one click on its icon. */
async function openContainer(page) {
  const item = page.locator(`.part.activitybar .action-item:has(> .action-label[aria-label^="${CONTAINER_TITLE}"])`).first();
  await item.waitFor({ state: 'visible', timeout: APPEAR_MS }).catch(async () => {
    const seen = await page
      .locator('.part.activitybar .action-item .action-label')
      .evaluateAll((labels) => labels.map((label) => label.getAttribute('aria-label')));
    throw new Error(`no "${CONTAINER_TITLE}" icon in the activity bar\n    seen: ${JSON.stringify(seen)}`);
  });
  // A second click on the active container would close the side bar.
  if (!/\bchecked\b/.test((await item.getAttribute('class')) ?? '')) await item.locator('> .action-label').click();
  await until(
    `the side bar to show the "${CONTAINER_TITLE}" container`,
    async () =>
      (
        await page
          .locator('.part.sidebar .composite.title')
          .innerText()
          .catch(() => '')
      )
        .toLowerCase()
        .includes(CONTAINER_TITLE.toLowerCase()),
    {
      seen: async () =>
        await page
          .locator('.part.sidebar .composite.title')
          .innerText()
          .catch(() => '(no side bar title)'),
    },
  );
}

/**
 * Drags the side bar's edge to make it `width` px wide, so the screenshots show whole descriptions.
 * Cosmetic: when the drag does not take, the checks go on with the default width.
 */
async function widenSidebar(page, width = 460) {
  const box = await page.locator('.part.sidebar').boundingBox();
  if (!box || box.width >= width) return;
  const y = box.y + box.height / 2;
  await page.mouse.move(box.x + box.width + 1, y);
  await page.mouse.down();
  await page.mouse.move(box.x + width + 1, y, { steps: 5 });
  await page.mouse.up();
  await page.mouse.move(0, 0);
  await until('the side bar to widen', async () => ((await page.locator('.part.sidebar').boundingBox())?.width ?? 0) > box.width + 50, {
    timeoutMs: 5_000,
  }).catch(() => {});
}

/** The manifest webview's inner document. */
const manifestFrame = (page) => page.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame');

/** Rows of the manifest table: class (included/excluded), data cells, the action buttons' labels, link text. */
function manifestRows(frame) {
  return frame.locator('#manifest-table tbody tr').evaluateAll((rows) =>
    rows.map((row) => ({
      included: row.classList.contains('included'),
      excluded: row.classList.contains('excluded'),
      // The first cell holds the Pin / Useful / Not useful buttons; the data cells follow it.
      cells: [...row.querySelectorAll('td:not(.actions)')].map((cell) => cell.textContent?.trim() ?? ''),
      actions: [...row.querySelectorAll('td.actions button')].map((button) => button.getAttribute('aria-label') ?? ''),
      link: row.querySelector('a')?.textContent?.trim() ?? '',
    })),
  );
}

const describeManifest = (rows) =>
  rows.length === 0 ? '(no rows)' : rows.map((row) => `${row.cells[0]} ${row.cells[1]} ${row.link} score ${row.cells[2]}`).join(' | ');

/** Status bar entry texts. */
function statusBarTexts(page) {
  return page
    .locator('.part.statusbar .statusbar-item')
    .evaluateAll((items) => items.map((item) => item.textContent?.trim() ?? '').filter(Boolean));
}

async function screenshot(target, file) {
  mkdirSync(path.dirname(file), { recursive: true });
  await target.screenshot({ path: file });
  return file;
}

// ---------------------------------------------------------------------------------------------
// Checks

/**
 * Records named checks. A failing check logs its error (with what it saw) and a screenshot and the
 * scenario goes on; checks that never ran (the run died or the suite did not hand over) count as failed.
 */
class Checks {
  constructor(names, log) {
    this.names = names;
    this.log = log;
    this.results = new Map();
  }

  async run(name, page, body) {
    if (!this.names.includes(name)) throw new Error(`undeclared check ${name}`);
    const started = Date.now();
    try {
      await body();
      this.results.set(name, { ok: true });
      this.log(`  ✔ [browser] ${name} (${Date.now() - started} ms)`);
      return true;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.results.set(name, { ok: false, message });
      this.log(`  ✘ [browser] ${name} (${Date.now() - started} ms)\n    ${message}`);
      const file = path.join(
        SCREENSHOT_DIR,
        `failed-${name
          .replace(/[^a-z0-9]+/gi, '-')
          .toLowerCase()
          .slice(0, 60)}.png`,
      );
      await screenshot(page, file)
        .then(() => this.log(`    screenshot: ${file}`))
        .catch(() => {});
      return false;
    }
  }

  skipRemaining(reason) {
    for (const name of this.names) {
      if (!this.results.has(name)) {
        this.results.set(name, { ok: false, message: reason });
        this.log(`  ✘ [browser] ${name}: not run (${reason})`);
      }
    }
  }

  get passed() {
    return [...this.results.values()].filter((result) => result.ok).length;
  }
  get failed() {
    return this.names.length - this.passed;
  }
}

/**
 * Waits for the suite's signal `name`; fails at once when the suite wrote `suite-failed` or ended.
 * Signal files live in the run's sync folder (runSuite.mjs: <runDir>/sync).
 */
function suiteSignals({ server, done }) {
  const syncDir = path.join(server.runDir, 'sync');
  let exitCode = null;
  done.then((code) => {
    exitCode = code;
  });
  const final = (message) => Object.assign(new Error(message), { final: true });
  return (name, timeoutMs = HANDOVER_MS) =>
    until(
      `the suite's '${name}' signal`,
      () => {
        if (existsSync(path.join(syncDir, name))) return true;
        if (existsSync(path.join(syncDir, 'suite-failed'))) throw final(`the suite failed before it wrote '${name}'`);
        if (exitCode !== null) throw final(`the suite ended (exit ${exitCode}) before it wrote '${name}'`);
        return false;
      },
      { timeoutMs },
    );
}

const TRUSTED_CHECKS = [
  'tree view shows the status row, src, cookies.ts and parseCookieHeader',
  'manifest webview shows rows with reasons and file links',
  'manifest filters and sort headers change the rows',
  'manifest webview is keyboard accessible',
];

async function trustedChecks(ctx, checks, screenshots) {
  const { page, signal } = ctx;
  const waitForSuite = suiteSignals(ctx);
  try {
    try {
      await waitForSuite('ready-for-ui');
    } catch (error) {
      checks.skipRemaining(error.message);
      return;
    }
    await checks.run(TRUSTED_CHECKS[0], page, async () => {
      await openContainer(page);
      const seen = async () => describeRows(await treeRows(page));
      const status = await until(
        'the status row "Ready" with file counts',
        async () => {
          const rows = await treeRows(page);
          return rows[0]?.label === 'Ready' && /^\d+ files · \d+ stale · last sync /.test(rows[0].description) ? rows[0] : undefined;
        },
        { seen },
      );
      assert(Number(status.description.match(/^(\d+) files/)[1]) >= 5, 'the status row counts the indexed files', status);
      await treeRow(page, 'src')
        .first()
        .waitFor({ state: 'visible', timeout: APPEAR_MS })
        .catch(async () => {
          throw new Error(`no "src" row in the tree\n    seen: ${await seen()}`);
        });
      const rows = await treeRows(page);
      assert(
        !rows.some((row) => ['.env', 'package-lock.json'].includes(row.label)),
        'excluded files (.env, the lockfile) are not in the tree',
        describeRows(rows),
      );
      assert(
        rows.some((row) => row.label === 'README.md'),
        'README.md is in the tree',
        describeRows(rows),
      );
      // Expand src, then cookies.ts, by clicking the rows.
      if ((await treeRow(page, 'src').first().getAttribute('aria-expanded')) !== 'true') await treeRow(page, 'src').first().click();
      await until('cookies.ts under src', async () => (await treeRows(page)).some((row) => row.label === 'cookies.ts' && row.level === 2), {
        seen,
      });
      const cookies = (await treeRows(page)).find((row) => row.label === 'cookies.ts');
      assert(
        cookies.description !== '' && !/stale/.test(cookies.description),
        'cookies.ts names the parser that indexed it and is not stale',
        cookies,
      );
      await treeRow(page, 'cookies.ts').first().click();
      const declaration = await until(
        'the declaration parseCookieHeader under cookies.ts',
        async () => (await treeRows(page)).find((row) => /parseCookieHeader/.test(row.label) && row.level === 3),
        { seen },
      );
      assert(/function · \d+-\d+/.test(declaration.description), 'the declaration row says its kind and lines', declaration);
      await widenSidebar(page);
      screenshots.push(await screenshot(page.locator('.part.sidebar'), path.join(SCREENSHOT_DIR, 'tree-view.png')));
    });

    const frame = manifestFrame(page);
    let all = [];
    const manifestOk = await checks.run(TRUSTED_CHECKS[1], page, async () => {
      await page.locator('.part.editor .tab', { hasText: 'Context Manifest' }).first().waitFor({ state: 'visible', timeout: APPEAR_MS });
      await frame.locator('#manifest-table tbody tr').first().waitFor({ state: 'visible', timeout: APPEAR_MS });
      await until('the heading "Context Manifest"', async () => (await frame.locator('h1').innerText()) === 'Context Manifest', {
        seen: () => frame.locator('h1').innerText(),
      });
      all = await manifestRows(frame);
      const seen = describeManifest(all);
      assert(all.length >= 2, 'the table has rows', seen);
      assert(
        all.some((row) => row.included && row.cells[1].startsWith('exact-symbol') && /^src\/cookies\.ts:\d+-\d+$/.test(row.link)),
        'an included exact-symbol row links to src/cookies.ts:<lines>',
        seen,
      );
      assert(
        all.some((row) => row.excluded),
        'the table lists excluded rows too',
        seen,
      );
      assert(
        all.every((row) => /^(src|scripts)\/[\w.]+:\d+-\d+$/.test(row.link)),
        'every row has a path:lines link',
        seen,
      );
      // Every row here is a ranked source candidate (no pin, no memory), so each can be pinned and labeled.
      assert(
        all.every((row) => row.actions.join() === 'Pin,Useful,Not useful'),
        'every source row has Pin, Useful and Not useful buttons',
        all.map((row) => row.actions.join('/')).join(' | '),
      );
      const query = await frame.locator('p.query').innerText();
      assert(query.includes('parseCookieHeader'), 'the query is shown', query);
      const summary = await frame.locator('#summary').innerText();
      const included = all.filter((row) => row.included).length;
      assert(summary.startsWith(`${included} included, ${all.length - included} excluded`), 'the summary counts the rows', summary);
      assert(
        /Health: \w+ — \d+ files/.test(await frame.locator('p.health').first().innerText()),
        'the health summary is shown',
        await frame.locator('p.health').first().innerText(),
      );
      await page.mouse.move(0, 0);
      screenshots.push(await screenshot(page.locator('.part.editor'), path.join(SCREENSHOT_DIR, 'manifest-webview.png')));
    });

    if (!manifestOk) {
      checks.skipRemaining('the manifest webview did not show its table');
      return;
    }

    await checks.run(TRUSTED_CHECKS[2], page, async () => {
      const included = all.filter((row) => row.included);
      const excluded = all.filter((row) => row.excluded);
      const seen = async () => describeManifest(await manifestRows(frame));
      const filterButton = (value) => frame.locator(`button[data-filter="${value}"]`);
      await filterButton('excluded').click();
      await until(
        `only the ${excluded.length} excluded rows`,
        async () => {
          const rows = await manifestRows(frame);
          return rows.length === excluded.length && rows.every((row) => row.excluded && row.cells[0] === 'excluded');
        },
        { seen },
      );
      assert((await filterButton('excluded').getAttribute('aria-pressed')) === 'true', 'the Excluded button is pressed');
      await filterButton('included').click();
      await until(
        `only the ${included.length} included rows`,
        async () => {
          const rows = await manifestRows(frame);
          return rows.length === included.length && rows.every((row) => row.included && row.cells[0] === 'included');
        },
        { seen },
      );
      await filterButton('all').click();
      await until(`all ${all.length} rows again`, async () => (await manifestRows(frame)).length === all.length, { seen });

      // Sort by location: ascending, then descending; then by score, highest first.
      const paths = async () => (await manifestRows(frame)).map((row) => row.link);
      const sortButton = (key) => frame.locator(`button.sort[data-sort="${key}"]`);
      const ariaSort = (key) =>
        frame
          .locator('th')
          .filter({ has: sortButton(key) })
          .getAttribute('aria-sort');
      const byLocation = (a, b) => {
        const [pa, la] = a.split(/:(?=\d)/);
        const [pb, lb] = b.split(/:(?=\d)/);
        return pa.localeCompare(pb) || parseInt(la, 10) - parseInt(lb, 10);
      };
      const before = await paths();
      await sortButton('path').click();
      const ascending = await until(
        'rows sorted by location, ascending',
        async () => {
          const now = await paths();
          return (await ariaSort('path')) === 'ascending' && now.join() === [...now].sort(byLocation).join() ? now : undefined;
        },
        { seen },
      );
      assert(ascending.join() !== before.join(), 'sorting by location changed the row order', { before, ascending });
      await sortButton('path').click();
      await until(
        'rows sorted by location, descending',
        async () => {
          const now = await paths();
          const files = now.map((link) => link.split(':')[0]);
          return (await ariaSort('path')) === 'descending' && files.join() === [...files].sort((a, b) => b.localeCompare(a)).join();
        },
        { seen },
      );
      await sortButton('score').click();
      await until(
        'rows sorted by score, highest first',
        async () => {
          const scores = (await manifestRows(frame)).map((row) => Number(row.cells[2]));
          return (await ariaSort('score')) === 'descending' && scores.every((score, i) => i === 0 || scores[i - 1] >= score);
        },
        { seen },
      );
    });

    await checks.run(TRUSTED_CHECKS[3], page, async () => {
      const active = () =>
        frame.locator('body').evaluate(() => {
          const element = document.activeElement;
          if (!element || element === document.body) return '(body)';
          return `${element.tagName.toLowerCase()}${element.getAttribute('data-filter') ? `[data-filter=${element.getAttribute('data-filter')}]` : ''}${element.id ? `#${element.id}` : ''} "${element.textContent?.trim() ?? ''}"`;
        });
      // Put the focus into the webview document, before its first control.
      await frame.locator('h1').click();
      for (const expected of ['all', 'included', 'excluded']) {
        await page.keyboard.press('Tab');
        await until(
          `Tab to reach the "${expected}" filter button`,
          async () => (await active()).startsWith(`button[data-filter=${expected}]`),
          { timeoutMs: 10_000, seen: active },
        );
      }
      // Enter on the focused Excluded button applies the filter and keeps the focus on it.
      await page.keyboard.press('Enter');
      const seen = async () => `${describeManifest(await manifestRows(frame))}; focus: ${await active()}`;
      await until(
        'Enter to apply the Excluded filter',
        async () => {
          const rows = await manifestRows(frame);
          return rows.length > 0 && rows.every((row) => row.excluded);
        },
        { timeoutMs: 10_000, seen },
      );
      const afterEnter = await active();
      assert(afterEnter.startsWith('button[data-filter=excluded]'), 'the focus stays on the Excluded button after Enter', afterEnter);
      // Shift+Tab twice back to All; Space applies it.
      await page.keyboard.press('Shift+Tab');
      await page.keyboard.press('Shift+Tab');
      await until('Shift+Tab to return to the All button', async () => (await active()).startsWith('button[data-filter=all]'), {
        timeoutMs: 10_000,
        seen: active,
      });
      await page.keyboard.press('Space');
      await until('Space to apply the All filter', async () => (await manifestRows(frame)).some((row) => row.included), {
        timeoutMs: 10_000,
        seen,
      });
      // The sort headers are buttons, so they are in the Tab order too (after the text filter).
      await page.keyboard.press('Tab');
      await page.keyboard.press('Tab');
      await page.keyboard.press('Tab');
      await until('Tab to reach the text filter', async () => (await active()).startsWith('input#filter-text'), {
        timeoutMs: 10_000,
        seen: active,
      });
      await page.keyboard.press('Tab');
      await until('Tab to reach the first sort header', async () => /^button "Status/.test(await active()), {
        timeoutMs: 10_000,
        seen: active,
      });
    });
  } finally {
    signal('ui-done');
  }
}

const GRANT_CHECKS = [
  'untrusted: the view explains Restricted Mode and the status bar says PK: untrusted',
  'trust granted in the trust editor starts indexing without a reload',
];

async function grantChecks(ctx, checks, screenshots) {
  const { page, signal } = ctx;
  const waitForSuite = suiteSignals(ctx);
  try {
    try {
      await waitForSuite('ready-for-ui');
    } catch (error) {
      checks.skipRemaining(error.message);
      return;
    }
    await checks.run(GRANT_CHECKS[0], page, async () => {
      await openContainer(page);
      const welcome = page.locator('.part.sidebar .welcome-view-content');
      await until(
        `the welcome message "${UNTRUSTED_WELCOME}"`,
        async () => (await welcome.first().isVisible()) && (await welcome.first().innerText()).includes(UNTRUSTED_WELCOME),
        { seen: async () => `side bar text: ${await sidebarText(page)}; rows: ${describeRows(await treeRows(page))}` },
      );
      const text = (await welcome.first().innerText()).replace(/\s+/g, ' ');
      assert(/Restricted Mode/.test(text) && /nothing was read/.test(text), 'the welcome message says why nothing is indexed', text);
      await welcome
        .first()
        .locator('.monaco-button', { hasText: 'Manage Workspace Trust' })
        .waitFor({ state: 'visible', timeout: APPEAR_MS });
      const rows = await treeRows(page);
      assert(rows.length === 0, 'the tree shows no rows in Restricted Mode', describeRows(rows));
      await until(
        'the status bar item "PK: untrusted"',
        async () => (await statusBarTexts(page)).some((entry) => entry.includes('PK: untrusted')),
        { seen: () => statusBarTexts(page) },
      );
      await page.locator('.part.banner').waitFor({ state: 'visible', timeout: APPEAR_MS });
      await page.mouse.move(0, 0);
      screenshots.push(await screenshot(page, path.join(SCREENSHOT_DIR, 'untrusted.png')));
    });

    await checks.run(GRANT_CHECKS[1], page, async () => {
      // A marker on the page: if the workbench reloaded, it would be gone.
      await page.evaluate(() => {
        window.__pkBeforeTrust = true;
      });
      await openContainer(page);
      await page.locator('.part.banner a', { hasText: 'Manage' }).first().click({ timeout: APPEAR_MS });
      const trust = page.locator('.workspace-trust-editor .workspace-trust-buttons-row .monaco-button').filter({ hasText: /^Trust$/ });
      await trust.first().waitFor({ state: 'visible', timeout: APPEAR_MS });
      const clicked = Date.now();
      await trust.first().click();
      signal('trust-clicked');
      await page.locator('.monaco-modal-editor-block .action-label[aria-label^="Close"]').first().click({ timeout: APPEAR_MS });
      await page.locator('.monaco-modal-editor-block').waitFor({ state: 'hidden', timeout: APPEAR_MS });
      // The tree fills: Indexing (if caught), then Ready, with the files.
      const statusLabels = [];
      const seen = async () => `${describeRows(await treeRows(page))}; status row went: ${statusLabels.join(' → ') || '(nothing)'}`;
      await until(
        'the status row "Ready" and the src folder in the tree',
        async () => {
          const rows = await treeRows(page);
          const label = rows[0]?.label;
          if (label && statusLabels.at(-1) !== label) statusLabels.push(label);
          return label === 'Ready' && rows.some((row) => row.label === 'src');
        },
        { seen, timeoutMs: 120_000 },
      );
      ctx.log(`    [browser] trust → tree Ready in ${Date.now() - clicked} ms; status row went: ${statusLabels.join(' → ')}`);
      const rows = await treeRows(page);
      assert(
        /^\d+ files · /.test(rows[0].description) && Number(rows[0].description.match(/^(\d+)/)[1]) >= 5,
        'the status row counts the indexed files',
        describeRows(rows),
      );
      assert(
        !(await page
          .locator('.part.sidebar .welcome-view-content')
          .first()
          .isVisible()
          .catch(() => false)),
        'the untrusted welcome message is gone',
        await sidebarText(page),
      );
      await until(
        'the status bar item "PK: ready"',
        async () => (await statusBarTexts(page)).some((entry) => entry.includes('PK: ready')),
        { seen: () => statusBarTexts(page) },
      );
      assert(await page.evaluate(() => window.__pkBeforeTrust === true), 'the workbench did not reload');
      // The suite side checks the worker started and the index is ready in the same extension host.
      await waitForSuite('indexed', 150_000);
      await widenSidebar(page);
      screenshots.push(await screenshot(page.locator('.part.sidebar'), path.join(SCREENSHOT_DIR, 'trust-granted.png')));
    });
  } finally {
    signal('ui-done');
  }
}

// ---------------------------------------------------------------------------------------------
// Scenarios

const SCENARIOS = [
  { name: 'trusted', trusted: true, checkNames: TRUSTED_CHECKS, checks: trustedChecks },
  { name: 'grant', trusted: false, checkNames: GRANT_CHECKS, checks: grantChecks },
];

async function runScenario(scenario, log) {
  const started = Date.now();
  const folder = createFixtureWorkspace(`pkw-ui-${scenario.name}-`);
  log(`\n== browser checks: ${scenario.name} (${folder}) ==`);
  const checks = new Checks(scenario.checkNames, log);
  const screenshots = [];
  let suite = null;
  let code = 1;
  let error;
  try {
    code = await runExtensionTests({
      extensionDevelopmentPath: REPO_ROOT,
      extensionTestsPath: SUITE,
      folder,
      trusted: scenario.trusted,
      extensionEnvironment: { PK_SUITE: 'ui', PK_UI_MODE: scenario.name },
      timeoutMs: RUN_TIMEOUT_MS,
      // No Chat panel in the secondary side bar: the screenshots show the extension's UI.
      userSettings: { 'workbench.secondarySideBar.defaultVisibility': 'hidden' },
      screenshotOnFailure: path.join(OUTPUT_DIR, `failed-ui-${scenario.name}.png`),
      afterStart: (ctx) => scenario.checks({ ...ctx, log }, checks, screenshots),
      log: (line) => {
        const summary = line.match(/^(\d+) passed, (\d+) failed$/);
        if (summary) suite = { passed: Number(summary[1]), failed: Number(summary[2]) };
        log(line);
      },
    });
  } catch (caught) {
    error = caught;
    log(`[vscode] browser checks ${scenario.name} failed: ${caught instanceof Error ? caught.message : String(caught)}`);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
  checks.skipRemaining(error ? 'the run ended early' : 'not reached');
  // The suite's own tests count too; a suite that died before its summary counts as one failure.
  const suitePassed = suite?.passed ?? 0;
  const suiteFailed = suite ? suite.failed + (code !== 0 && suite.failed === 0 ? 1 : 0) : 1;
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  log(
    `== browser checks ${scenario.name}: ${checks.passed} of ${checks.names.length} browser checks passed, ` +
      `suite ${suitePassed} passed, ${suiteFailed} failed (${seconds} s) ==`,
  );
  return { passed: checks.passed + suitePassed, failed: checks.failed + suiteFailed, screenshots, seconds: Number(seconds) };
}

/**
 * Runs every scenario and returns the totals (browser checks plus the ui suite's own tests) and
 * the screenshots written.
 * @param {{ log?: (line: string) => void, only?: string }} [o]
 */
export async function runBrowserChecks({ log = (line) => console.log(line), only } = {}) {
  if (!existsSync(SUITE)) throw new Error(`${SUITE} is missing: run npm run build:test first`);
  const totals = { passed: 0, failed: 0, screenshots: [] };
  for (const scenario of SCENARIOS.filter((candidate) => !only || candidate.name === only)) {
    const result = await runScenario(scenario, log);
    totals.passed += result.passed;
    totals.failed += result.failed;
    totals.screenshots.push(...result.screenshots);
  }
  if (totals.screenshots.length > 0) log(`[browser] screenshots:\n${totals.screenshots.map((file) => `  ${file}`).join('\n')}`);
  return totals;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const result = await runBrowserChecks({ only: process.argv[2] });
  console.log(`browser checks: ${result.passed} passed, ${result.failed} failed`);
  process.exitCode = result.failed > 0 ? 1 : 0;
}
