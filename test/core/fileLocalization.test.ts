import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { after, describe, test } from 'node:test';
import type { CandidateReason } from '../../src/core/retrieval/candidates';
import { rankFiles, reportEvidenceCeiling, weakNameCeiling } from '../../src/core/retrieval/fileRanking';
import { keepRankedFiles, maxSnippetsPerFile, namedFileWeight, rankedFilesKept } from '../../src/core/retrieval/retrieve';
import type { SnippetRow } from '../../src/core/tables/fileChange';
import { Fixture, fixtureFactory, openEngine, structuralParsers, tempFile } from './fixtures';

const repository = path.resolve(__dirname, '..', '..', '..');
const cli = path.join(repository, 'dist', 'cli.js');
const fixture = fixtureFactory();
const created: Fixture[] = [];
after(() => created.forEach((item) => item.cleanup()));

/** A chunk row for the pure file-ranking tests (their path, lines and id are set per candidate). */
const snippetRow: SnippetRow = {
  rowid: 1,
  id: '',
  path: '',
  fileHash: 'hash',
  startLine: 1,
  endLine: 1,
  tokens: 20,
  stale: false,
  chunkKind: 'declaration',
  parser: 'tree-sitter',
  parserVersion: '1',
  symbolId: null,
  name: null,
  kind: null,
  qualifiedName: null,
  signature: null,
  parent: null,
  symbolStart: null,
  symbolEnd: null,
  imports: null,
  refs: null,
};

/** One file with many functions about invoices, and several files with one each. */
function invoices(): Record<string, string> {
  const crowded = Array.from(
    { length: 12 },
    (_, index) => `export function invoiceTotal${index}(invoice: Invoice): number {\n  return invoice.total * ${index};\n}\n`,
  ).join('\n');
  const files: Record<string, string> = { 'src/crowded.ts': crowded };
  for (let index = 0; index < 4; index++)
    files[`src/single${index}.ts`] =
      `export function invoiceTotalOther${index}(invoice: Invoice): number {\n  return invoice.total + ${index};\n}\n`;
  files['test/crowded.test.ts'] =
    'import { invoiceTotal0 } from "../src/crowded";\ntest("invoice total", () => invoiceTotal0({ total: 1 }));\n';
  return files;
}

describe('file-level localization (issue 14)', () => {
  test('granularity files returns ranked, live-verified files with evidence and a score', async () => {
    const project = fixture(invoices());
    const engine = await openEngine(project.root, { parsers: structuralParsers() });
    await engine.sync();
    const result = await engine.search('invoice total', { granularity: 'files', limit: 4 });
    const files = result.files ?? [];
    assert.equal(files.length, 4);
    for (const file of files) {
      assert.deepEqual(Object.keys(file).sort(), ['evidence', 'modified', 'path', 'score', 'sha256']);
      assert.equal(file.sha256, engine.store.catalog.file(file.path)?.sha256);
      assert.ok(file.evidence.length >= 1 && file.evidence.length <= 3);
      for (const evidence of file.evidence)
        assert.ok(evidence.startLine >= 1 && evidence.endLine >= evidence.startLine && typeof evidence.reason === 'string');
    }
    for (let index = 1; index < files.length; index++) assert.ok(files[index - 1].score >= files[index].score, 'best first');
    assert.equal(files[0].path, 'src/crowded.ts', 'the file with the most support first');
    assert.ok(!files.slice(0, 3).some((file) => file.path.startsWith('test/')), 'tests below the code they test');
    assert.equal(new Set(files.map((file) => file.path)).size, files.length, 'each file once');
    await engine.close();
  });

  test('a file changed since indexing is re-indexed before it is ranked', async () => {
    const project = fixture(invoices());
    const engine = await openEngine(project.root, { parsers: structuralParsers() });
    await engine.sync();
    project.write('src/single0.ts', 'export function invoiceTotalOther0(invoice: Invoice): number {\n  return invoice.total - 1;\n}\n');
    const result = await engine.search('invoiceTotalOther0', { granularity: 'files' });
    assert.equal(result.files?.[0].path, 'src/single0.ts');
    assert.equal(result.files?.[0].sha256, engine.store.catalog.file('src/single0.ts')?.sha256);
    assert.ok(result.manifest.retries >= 1);
    await engine.close();
  });

  test('one file cannot crowd out the rest: past the cap, close rivals from other files go first', async () => {
    const project = fixture(invoices());
    const engine = await openEngine(project.root, { parsers: structuralParsers() });
    await engine.sync();
    const result = await engine.search('invoice total', { limit: 8 });
    const fromCrowded = result.results.filter((item) => item.path === 'src/crowded.ts').length;
    assert.ok(fromCrowded <= maxSnippetsPerFile + 1, `${fromCrowded} of ${result.results.length} from one file`);
    assert.ok(new Set(result.results.map((item) => item.path)).size >= 4, JSON.stringify(result.results.map((item) => item.path)));
    await engine.close();
  });

  test('tests rank below the code they test unless the request is about tests', async () => {
    const project = fixture({
      'src/parser.ts': 'export function parseWidget(text: string): string {\n  return text.trim();\n}\n',
      'test/parser.test.ts': 'export function parseWidgetCase(text: string): string {\n  return parseWidget(text);\n}\n',
    });
    const engine = await openEngine(project.root, { parsers: structuralParsers() });
    await engine.sync();
    const code = await engine.search('parse widget text');
    assert.equal(code.results[0].path, 'src/parser.ts');
    const tests = await engine.search('parse widget text tests');
    const testRank = tests.results.findIndex((item) => item.path === 'test/parser.test.ts');
    const codeRank = tests.results.findIndex((item) => item.path === 'src/parser.ts');
    assert.ok(testRank >= 0 && codeRank >= 0);
    const scoreOf = (rank: number) => tests.results[rank].score;
    assert.ok(
      scoreOf(testRank) - scoreOf(codeRank) >
        code.results.find((item) => item.path === 'test/parser.test.ts')!.score - code.results[0].score,
      'the test file is not demoted when the request is about tests',
    );
    await engine.close();
  });

  test('a report of a behaviour to change lists its snippets in the file ranking order; a question keeps its own', async () => {
    // The words spread over one file (its functions each mention one), while another declares two of them in one name.
    const spread = ['rotation', 'archive', 'threshold', 'rollover', 'handle']
      .map((word, index) => `def step_${index}(value):\n    # the ${word} of the log\n    return value\n`)
      .join('\n');
    const project = fixture({
      'app/spread.py': spread,
      'app/named.py': 'def rotation_archive(value):\n    return value\n\n\ndef unrelated(value):\n    return value + 1\n',
      'app/other.py': 'def threshold_value(value):\n    return value * 2\n',
    });
    created.push(project);
    const engine = await openEngine(project.root, { parsers: structuralParsers() });
    await engine.sync();
    const firstFiles = (results: Array<{ path: string }>) => [...new Set(results.map((result) => result.path))];
    const report = 'Fix: the rotation archive threshold rollover handle breaks when the log grows';
    const files = (await engine.search(report, { granularity: 'files' })).files?.map((file) => file.path) ?? [];
    const snippets = (await engine.search(report)).results;
    assert.ok(files.length >= 2, JSON.stringify(files));
    assert.deepEqual(
      firstFiles(snippets),
      files.filter((file) => firstFiles(snippets).includes(file)),
      'snippets follow the file ranking',
    );
    const leading = snippets.findIndex((result) => result.path !== snippets[0].path);
    assert.ok(leading < 0 || leading <= maxSnippetsPerFile, `${leading} snippets of one file before any other`);
    const question = (await engine.search('how does the rotation archive threshold rollover handle work?')).results;
    for (let index = 1; index < question.length; index++)
      assert.ok(question[index - 1].score >= question[index].score, 'a question keeps its snippets best first');
    await engine.close();
  });

  test('a fix report: the scope its subject names, code of unknown languages, one colliding declaration', async () => {
    // The words of the report spread over the fish script; a Go file declares `Close` (the report's
    // "Close #12") and mentions history once; the changelog repeats the words.
    const fish = Array.from(
      { length: 6 },
      (_, index) => `function __fzf_history_${index}\n  # delete the history entries during search\n  history delete $argv\nend\n`,
    ).join('\n');
    const project = fixture({
      'shell/key-bindings.fish': fish,
      'src/window.go': 'package tui\n\n// Close ends the window.\nfunc Close() {\n\t// the history of the window\n}\n',
      'CHANGELOG.md': '# Changes\n\n- delete history entries during search\n- delete history entries during search again\n',
    });
    created.push(project);
    const engine = await openEngine(project.root, { parsers: structuralParsers() });
    await engine.sync();
    const report = 'fish: delete history entries during search\n\nClose #12';
    const files = (await engine.search(report, { granularity: 'files' })).files?.map((file) => file.path) ?? [];
    assert.equal(files[0], 'shell/key-bindings.fish', JSON.stringify(files));
    // Without the scope the script is still code of a language the index has no parser for, not prose.
    const unscoped = (await engine.search('delete history entries during search', { granularity: 'files' })).files ?? [];
    const rank = (file: string) => unscoped.findIndex((ranked) => ranked.path === file);
    assert.ok(rank('shell/key-bindings.fish') >= 0 && rank('shell/key-bindings.fish') < rank('CHANGELOG.md'), JSON.stringify(unscoped));
    await engine.close();
  });

  test('a fix report ranks the file its subject line names first among files of the same text', async () => {
    const body = 'def handle(value):\n    # an empty cache handling value\n    return value\n';
    const project = fixture({ 'app/cache_entry.py': body, 'app/cache_store.py': body, 'app/cache_view.py': body });
    created.push(project);
    const engine = await openEngine(project.root, { parsers: structuralParsers() });
    await engine.sync();
    const ranked = async (report: string) => (await engine.search(report, { granularity: 'files' })).files ?? [];
    for (const name of ['cache_entry', 'cache_store', 'cache_view']) {
      const report = `Fix ${name} handling of an empty cache value`;
      const files = (await ranked(report)).map((file) => file.path);
      assert.equal(files[0], `app/${name}.py`, `${report}: ${JSON.stringify(files)}`);
    }
    // The best file scores 100 on the ranking's scale; the subject's name weighs it by namedFileWeight, a body's mention does not.
    const inSubject = await ranked('Fix cache_entry handling of an empty cache value');
    const inBody = await ranked('Fix handling of an empty cache value\n\nSeen in cache_entry');
    assert.equal(inSubject[0].path, 'app/cache_entry.py');
    assert.equal(inSubject[0].score, 100 * namedFileWeight, JSON.stringify(inSubject));
    assert.ok(inBody[0].score <= 100, JSON.stringify(inBody));
    await engine.close();
  });

  test("a report's answer keeps the best cut candidate of each of the file ranking's first files, and no other", () => {
    const candidate = (path: string, line: number) => ({ snippet: { path, startLine: line } });
    const kept = [candidate('a.py', 1)];
    const cut = [candidate('b.py', 1), candidate('c.py', 1), candidate('c.py', 9), candidate('d.py', 1)];
    const ranking = ['c.py', 'a.py', 'b.py'].map((path) => ({ path }));
    const result = keepRankedFiles({ kept, cut }, ranking);
    assert.deepEqual(result.kept, [kept[0], cut[0], cut[1]]);
    assert.deepEqual(result.cut, [cut[2], cut[3]]);
    // Files past the first `rankedFilesKept` of the ranking stay cut.
    const many = Array.from({ length: rankedFilesKept + 1 }, (_, index) => ({ path: `f${index}.py` }));
    const last = candidate(`f${rankedFilesKept}.py`, 1);
    const first = candidate('f0.py', 1);
    const beyond = keepRankedFiles({ kept: [], cut: [last, first] }, many);
    assert.deepEqual(beyond, { kept: [first], cut: [last] });
    // Nothing cut from a ranked file: the cut stands as it was.
    const untouched = { kept, cut: [candidate('z.py', 1)] };
    assert.equal(keepRankedFiles(untouched, ranking), untouched);
  });

  test('with an evidence ceiling one strong snippet counts no more than the ceiling toward its file; a named path keeps its score', () => {
    const candidate = (path: string, reason: CandidateReason, score: number, line: number) => ({
      snippet: { ...snippetRow, path, startLine: line, endLine: line + 2, id: `${path}:${line}` },
      reason,
      base: score,
      matched: 'x',
      score,
      modified: false,
    });
    const candidates = [
      candidate('src/named.go', 'exact-symbol', 172, 1),
      ...[1, 10, 20].map((line) => candidate('src/spread.go', 'full-text', 50, line)),
    ];
    const wholeFile = new Map([
      ['src/named.go', 2],
      ['src/spread.go', 4],
    ]);
    assert.equal(rankFiles(candidates, { wholeFile })[0].path, 'src/named.go', 'unbounded, the collision wins');
    assert.equal(rankFiles(candidates, { wholeFile, evidenceCeiling: reportEvidenceCeiling })[0].path, 'src/spread.go');
    const named = [candidate('src/asked.go', 'exact-path', 183, 1), ...candidates.slice(1)];
    assert.equal(
      rankFiles(named, { wholeFile: new Map([...wholeFile, ['src/asked.go', 2]]), evidenceCeiling: reportEvidenceCeiling })[0].path,
      'src/asked.go',
    );
  });

  test('a weak name (a word that only opens sentences of the report) counts below any full-text hit for its declarations', () => {
    const candidate = (path: string, reason: CandidateReason, score: number, matched: string) => ({
      snippet: { ...snippetRow, path, startLine: 1, endLine: 3, id: `${path}:1` },
      reason,
      base: score,
      matched,
      score,
      modified: false,
    });
    const candidates = [candidate('src/tui/tui.go', 'exact-symbol', 174, 'Close'), candidate('src/tui/light.go', 'full-text', 45, 'wheel')];
    const wholeFile = new Map([
      ['src/tui/tui.go', 5],
      ['src/tui/light.go', 5],
    ]);
    const options = { wholeFile, evidenceCeiling: reportEvidenceCeiling };
    assert.equal(rankFiles(candidates, options)[0].path, 'src/tui/tui.go', 'an ordinary name keeps the ceiling');
    const weak = rankFiles(candidates, { ...options, weakNames: new Set(['Close']) });
    assert.equal(weak[0].path, 'src/tui/light.go');
    assert.ok(weakNameCeiling < 45, 'the cap is below the full-text hit it yields to');
    // The evidence shown keeps the snippet's own score.
    assert.equal(weak[1].evidence[0].score, 174);
  });

  test('an identifier-shaped name keeps more of its exact declaration than the report ceiling allows', () => {
    const candidate = (path: string, reason: CandidateReason, score: number, line: number, matched: string) => ({
      snippet: { ...snippetRow, path, startLine: line, endLine: line + 2, id: `${path}:${line}` },
      reason,
      base: score,
      matched,
      score,
      modified: false,
    });
    const candidates = [
      candidate('src/terminal_unix.go', 'exact-symbol', 176, 1, 'notifyOnResize'),
      ...[1, 10, 20].map((line) => candidate('src/terminal.go', 'full-text', 50, line, 'resize')),
    ];
    const wholeFile = new Map([
      ['src/terminal_unix.go', 5],
      ['src/terminal.go', 5],
    ]);
    const options = { wholeFile, evidenceCeiling: reportEvidenceCeiling };
    assert.equal(rankFiles(candidates, options)[0].path, 'src/terminal.go');
    assert.equal(rankFiles(candidates, { ...options, identifierNames: new Set(['notifyOnResize']) })[0].path, 'src/terminal_unix.go');
  });

  test('the owner of a member the index does not declare counts as much as the ceiling allows', () => {
    const candidate = (path: string, score: number, qualifiedName: string) => ({
      snippet: { ...snippetRow, path, startLine: 1, endLine: 3, id: `${path}:1`, qualifiedName },
      reason: 'symbol-text' as CandidateReason,
      base: score,
      matched: qualifiedName,
      score,
      modified: false,
    });
    const candidates = [candidate('rich/ansi.py', 45, 'AnsiDecoder.decode_line'), candidate('rich/text.py', 30, 'Text')];
    const wholeFile = new Map([
      ['rich/ansi.py', 5],
      ['rich/text.py', 5],
    ]);
    const options = { wholeFile, evidenceCeiling: reportEvidenceCeiling };
    assert.equal(rankFiles(candidates, options)[0].path, 'rich/ansi.py');
    assert.equal(rankFiles(candidates, { ...options, ownerNames: new Set(['Text']) })[0].path, 'rich/text.py');
    // Without a ceiling (a lookup) the candidates count as scored.
    assert.equal(rankFiles(candidates, { wholeFile, ownerNames: new Set(['Text']) })[0].path, 'rich/ansi.py');
  });

  test('a report that mentions its new test still ranks the code it fixes above the test file', async () => {
    const test = Array.from(
      { length: 6 },
      (_, index) => `test("trims the header value ${index}", () => {\n  expect(parseHeaderValue(" a${index} ")).toBe("a${index}");\n});\n`,
    ).join('\n');
    const project = fixture({
      'src/header.ts': 'export function parseHeaderValue(raw: string): string {\n  return raw.trim();\n}\n',
      'src/header.test.ts': `import { parseHeaderValue } from "./header";\n${test}`,
    });
    const engine = await openEngine(project.root, { parsers: structuralParsers() });
    await engine.sync();
    const ranked = async (query: string) => (await engine.search(query, { granularity: 'files' })).files?.map((file) => file.path) ?? [];
    const report = 'Fix trimming of the header value\n\nThe value kept its spaces. Added a test.';
    assert.deepEqual((await ranked(report)).slice(0, 2), ['src/header.ts', 'src/header.test.ts']);
    // A subject about tests keeps the test file where its words put it.
    assert.equal((await ranked('Fix the header value test\n\nIt trimmed nothing.'))[0], 'src/header.test.ts');
    await engine.close();
  });

  test('a report that names a format ranks the code handling it above the changelog that mentions it', async () => {
    const changelog = Array.from({ length: 8 }, (_, index) => `- ${index}: markdown tables render with the right table width`).join('\n');
    const project = fixture({
      'src/render.ts':
        'export function renderTable(rows: string[][], width: number): string {\n  // markdown tables pad to the width\n  return rows.join(String(width));\n}\n',
      'CHANGELOG.md': `# Changes\n\n${changelog}\n`,
    });
    const engine = await openEngine(project.root, { parsers: structuralParsers() });
    await engine.sync();
    const ranked = async (query: string) => (await engine.search(query, { granularity: 'files' })).files?.map((file) => file.path) ?? [];
    assert.equal((await ranked('Fix the width of markdown tables\n\nThe table was too wide.'))[0], 'src/render.ts');
    // A subject about the changelog keeps it where its words put it.
    assert.equal((await ranked('Fix the changelog entry about markdown tables\n\nThe table width line was wrong.'))[0], 'CHANGELOG.md');
    await engine.close();
  });

  test('pk search --files prints ranked files with evidence, as text and as JSON', () => {
    const project = new Fixture(invoices());
    created.push(project);
    const db = tempFile('files.sqlite');
    const indexed = spawnSync(process.execPath, [cli, 'index', project.root, '--db', db], { encoding: 'utf8' });
    assert.equal(indexed.status, 0, indexed.stderr);
    const json = spawnSync(
      process.execPath,
      [cli, 'search', 'invoice total', '--files', '--limit', '3', '--root', project.root, '--db', db, '--json'],
      { encoding: 'utf8' },
    );
    assert.equal(json.status, 0, json.stderr);
    const parsed = JSON.parse(json.stdout) as {
      files: Array<{
        path: string;
        score: number;
        sha256: string;
        evidence: Array<{ startLine: number; endLine: number; reason: string }>;
      }>;
      manifest: { entries: unknown[] };
    };
    assert.equal(parsed.files.length, 3);
    assert.equal(parsed.files[0].path, 'src/crowded.ts');
    assert.match(parsed.files[0].sha256, /^[0-9a-f]{64}$/);
    assert.ok(Array.isArray(parsed.manifest.entries));
    const text = spawnSync(
      process.execPath,
      [cli, 'search', 'invoice total', '--files', '--limit', '3', '--root', project.root, '--db', db],
      { encoding: 'utf8' },
    );
    assert.equal(text.status, 0, text.stderr);
    const lines = text.stdout.trimEnd().split('\n');
    assert.match(lines[0], /^\s*\d+\.\d {2}src\/crowded\.ts$/);
    assert.match(lines[1], /^\s+L\d+-\d+ {2}\S+/);
    const refused = spawnSync(process.execPath, [cli, 'context', 'invoice', '--files', '--root', project.root, '--db', db], {
      encoding: 'utf8',
    });
    assert.equal(refused.status, 2);
    assert.equal(refused.stderr.split('\n')[0], 'pk: --files applies to search only');
  });

  test('a stopword of the subject that names a file whole is looked for, and the file ranks first', async () => {
    const project = fixture({
      'app/console.py':
        'def console_print(console, text):\n    # write text to the console\n    console.write(text)\n    console.flush()\n',
      'app/live.py':
        'class Live:\n    """A live display: redraws while live, stops when not live."""\n    def start(self, console):\n        self.live = True\n',
      'app/markup.py': 'def render_markup(text):\n    # markup to console text\n    return text\n',
    });
    created.push(project);
    const engine = await openEngine(project.root, { parsers: structuralParsers() });
    await engine.sync();
    const files = (await engine.search('Fix markup in console live', { granularity: 'files' })).files ?? [];
    assert.equal(files[0]?.path, 'app/live.py', JSON.stringify(files.map((file) => [file.path, file.score])));
    assert.ok(
      files[0].evidence.some((evidence) => /live/i.test(`${evidence.symbol ?? ''} ${evidence.matched}`)),
      JSON.stringify(files[0].evidence),
    );
    await engine.close();
  });

  test('a report ranks the code above an example and a script that hold more of its words', async () => {
    const words = 'def redact(finding):\n    # redact the secret of a finding in the report\n    return finding\n';
    const project = fixture({
      'report/redact.py': words,
      'examples/redact_report.py': `${words}\n# redact report finding secret example\n`,
      'testdata/redact_report.py': `${words}\n# redact report finding secret sample\n`,
    });
    created.push(project);
    const engine = await openEngine(project.root, { parsers: structuralParsers() });
    await engine.sync();
    const files = (await engine.search('Fix redact of a secret finding in the report', { granularity: 'files' })).files ?? [];
    assert.equal(files[0]?.path, 'report/redact.py', JSON.stringify(files.map((file) => [file.path, file.score])));
    await engine.close();
  });
});
