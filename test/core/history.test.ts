import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { similarCommitFiles } from '../../src/core/history/similarCommits';
import { syncHistory } from '../../src/core/history/historySync';
import { nodePorts, type EnginePorts } from '../../src/core/ports';
import { fixtureFactory, gitIn, openEngine, randomFrom, structuralParsers } from './fixtures';

const fixture = fixtureFactory();
const alnum = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** Every text or blob cell of the history tables, as text, for scans of what was stored. */
function historyCells(engine: Awaited<ReturnType<typeof openEngine>>): string[] {
  const db = engine.store.database;
  const cells: string[] = [];
  for (const table of engine.store.history.tables) {
    for (const row of db.exec(`SELECT * FROM ${table}`)[0]?.values ?? []) {
      for (const value of row) {
        if (typeof value === 'string') cells.push(value);
        else if (value instanceof Uint8Array) cells.push(Buffer.from(value).toString('latin1'));
      }
    }
  }
  return cells;
}

function commit(root: string, message: string, extra: string[] = []): string {
  gitIn(root, 'add', '-A');
  gitIn(root, 'commit', '-q', '-m', message, ...extra);
  return gitIn(root, 'rev-parse', 'HEAD').trim();
}

/** A repository of three commits, each changing one file, with messages of distinct words. */
function threeCommits() {
  const project = fixture({ 'src/parser.ts': 'export function parse(text: string) { return text; }\n' });
  project.git('init', '-q', '-b', 'main');
  const first = commit(project.root, 'Add the parser');
  project.write('src/render.ts', 'export function render(node: string) { return node; }\n');
  const second = commit(project.root, 'Render nodes as strings\n\nThe renderer prints each node.', [
    '--author=Zebulon Quuxworth <zebulon.quux@example.invalid>',
  ]);
  project.write('src/cache.ts', 'export const cache = new Map<string, string>();\n');
  const third = commit(project.root, 'Cache rendered output\n\nSigned-off-by: Yolanda Trailerperson <yolanda@example.invalid>');
  return { project, first, second, third };
}

test('a sync stores the ancestors of HEAD but the root: ids as bytes, subjects, changed paths; no author, e-mail or trailer', async () => {
  const { project, first, second, third } = threeCommits();
  const engine = await openEngine(project.root, { parsers: structuralParsers(), options: { useGit: true } });
  try {
    const report = await engine.sync();
    assert.equal(report.history?.outcome, 'rebuilt');
    assert.equal(report.history?.commits, 2);
    // The root commit imported every file: it is left out.
    assert.deepEqual(engine.store.history.hashes(), [second, third]);
    assert.ok(!engine.store.history.hashes().includes(first));
    assert.equal(engine.store.history.head(), third);
    const db = engine.store.database;
    const hashes = db.exec('SELECT typeof(hash), length(hash) FROM history_commits')[0].values;
    assert.deepEqual(hashes, [
      ['blob', 20],
      ['blob', 20],
    ]);
    const subjects = db.exec('SELECT subject FROM history_commits ORDER BY id')[0].values.map((row) => row[0]);
    assert.deepEqual(subjects, ['Render nodes as strings', 'Cache rendered output']);
    const paths = db.exec('SELECT path FROM history_paths ORDER BY id')[0].values.map((row) => row[0]);
    assert.deepEqual(paths, ['src/render.ts', 'src/cache.ts']);
    const cells = historyCells(engine);
    assert.ok(cells.length > 10, `the tables were read (${cells.length} cells)`);
    for (const forbidden of ['Zebulon', 'Quuxworth', 'Yolanda', 'Trailerperson', 'example.invalid', 'Test']) {
      assert.ok(!cells.some((cell) => cell.includes(forbidden)), `${forbidden} is not stored`);
    }
    assert.ok(!cells.some((cell) => /[0-9a-f]{32}/.test(cell)), 'no hex hash text');
    // A second sync with the same HEAD reads nothing.
    assert.equal((await engine.sync()).history?.outcome, 'unchanged');
  } finally {
    await engine.close();
  }
});

test('a commit on top is added alone; a checkout of an older commit rebuilds, and the later message is never found', async () => {
  const { project, second, third } = threeCommits();
  const engine = await openEngine(project.root, { parsers: structuralParsers(), options: { useGit: true } });
  try {
    await engine.sync();
    const idsBefore = engine.store.database.exec('SELECT id FROM history_commits ORDER BY id')[0].values.map((row) => row[0]);
    project.write('src/cache.ts', 'export const cache = new Map<string, number>();\n');
    const fourth = commit(project.root, 'Memoize zanzibar lookups in the cache');
    const added = await engine.sync();
    assert.equal(added.history?.outcome, 'added');
    assert.equal(added.history?.added, 1);
    const idsAfter = engine.store.database.exec('SELECT id FROM history_commits ORDER BY id')[0].values.map((row) => row[0]);
    assert.deepEqual(idsAfter.slice(0, 2), idsBefore, 'the stored commits stay as they were');
    const present = () => true;
    assert.equal(similarCommitFiles(engine.store.history, 'zanzibar', present, 10)?.similar[0]?.commit, fourth.slice(0, 10));

    // Back to the second commit: the third and fourth are no ancestors of HEAD any more.
    project.git('-c', 'advice.detachedHead=false', 'checkout', '-q', '--detach', second);
    const rebuilt = await engine.sync();
    assert.equal(rebuilt.history?.outcome, 'rebuilt');
    assert.deepEqual(engine.store.history.hashes().slice(-1), [second]);
    assert.ok(!engine.store.history.hashes().includes(third));
    assert.equal(similarCommitFiles(engine.store.history, 'zanzibar memoize', present, 10), undefined);
    const answer = await engine.search('Memoize zanzibar lookups in the render cache', { granularity: 'files' });
    assert.ok(!JSON.stringify(answer).includes(fourth.slice(0, 10)), 'the later commit is in no answer');
    assert.ok(!JSON.stringify(answer).includes('zanzibar lookups in the cache'));

    // Forward again: the part follows HEAD without a full read.
    project.git('checkout', '-q', 'main');
    const forward = await engine.sync();
    assert.equal(forward.history?.outcome, 'added');
    assert.equal(forward.history?.added, 2);
    assert.equal(similarCommitFiles(engine.store.history, 'zanzibar', present, 10)?.similar[0]?.commit, fourth.slice(0, 10));
  } finally {
    await engine.close();
  }
});

test('without git, in a shallow clone or with git failing, the part is empty with a one-line note and search still answers', async () => {
  const plain = fixture({ 'src/app.ts': 'export function start() { return 1; }\n' });
  const engine = await openEngine(plain.root, { parsers: structuralParsers(), options: { useGit: true } });
  try {
    const report = await engine.sync();
    assert.equal(report.history?.outcome, 'empty');
    assert.match(report.history?.note ?? '', /not a git repository/);
    assert.equal(engine.store.history.commitCount(), 0);
    const tables = engine.store.database.exec("SELECT name FROM sqlite_master WHERE name LIKE 'history%'")[0]?.values ?? [];
    assert.deepEqual(tables, [], 'an index without history carries no history tables');
    const answer = await engine.search('how does the app start working', { granularity: 'files' });
    assert.match(answer.manifest.history?.note ?? '', /not a git repository/);
    assert.equal(answer.files?.[0]?.path, 'src/app.ts');
  } finally {
    await engine.close();
  }

  const { project } = threeCommits();
  const shallowRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'pk-shallow-'));
  try {
    gitIn(os.tmpdir(), 'clone', '-q', '--depth', '1', `file://${project.root}`, shallowRoot);
    const shallow = await openEngine(fs.realpathSync(shallowRoot), { parsers: structuralParsers(), options: { useGit: true } });
    try {
      const report = await shallow.sync();
      assert.equal(report.history?.outcome, 'empty');
      assert.match(report.history?.note ?? '', /shallow clone/);
      assert.equal(shallow.store.history.commitCount(), 0);
    } finally {
      await shallow.close();
    }
  } finally {
    fs.rmSync(shallowRoot, { recursive: true, force: true });
  }

  // A git whose log fails: the part that was filled is emptied (nothing stale stays), with the reason.
  const engineWithGit = await openEngine(project.root, { parsers: structuralParsers(), options: { useGit: true } });
  try {
    await engineWithGit.sync();
    assert.equal(engineWithGit.store.history.commitCount(), 2);
    const base = nodePorts();
    const failing: EnginePorts = {
      ...base,
      git: { run: (args, cwd) => (args.includes('log') ? Promise.reject(new Error('fatal: bad object\nmore')) : base.git.run(args, cwd)) },
    };
    const report = await syncHistory(
      engineWithGit.store.history,
      { root: project.root, gitRoot: project.root, head: 'f'.repeat(40) },
      failing,
    );
    assert.equal(report.outcome, 'empty');
    assert.equal(report.note, 'reading the git history failed (fatal: bad object).');
    assert.equal(engineWithGit.store.history.commitCount(), 0);
    assert.equal(engineWithGit.store.history.note(), report.note);
  } finally {
    await engineWithGit.close();
  }
});

test('a commit whose message holds a secret is not stored at all', async () => {
  const project = fixture({ 'src/client.ts': 'export function connect() { return 1; }\n' });
  project.git('init', '-q', '-b', 'main');
  commit(project.root, 'Add the client');
  const token = `ghp_${randomFrom(alnum, 36)}`;
  project.write('src/client.ts', 'export function connect() { return 2; }\n');
  const leaky = commit(project.root, `Connect with the deploy token\n\nUse ${token} for the upload.`);
  project.write('src/client.ts', 'export function connect() { return 3; }\n');
  commit(project.root, 'Retry the connection');
  const engine = await openEngine(project.root, { parsers: structuralParsers(), options: { useGit: true } });
  try {
    const report = await engine.sync();
    assert.equal(report.history?.secretMessages, 1);
    assert.equal(report.history?.commits, 1);
    assert.ok(!engine.store.history.hashes().includes(leaky));
    const cells = historyCells(engine);
    assert.ok(!cells.some((cell) => cell.includes(token) || cell.toLowerCase().includes(token.slice(4, 20).toLowerCase())));
    assert.ok(!cells.some((cell) => cell.includes('deploy token')));
    assert.ok(
      cells.some((cell) => cell.includes('Retry the connection')),
      'the other commits are stored',
    );
  } finally {
    await engine.close();
  }
});

/**
 * Two files: `src/theme.ts` holds most of the request's words, `src/wrap.ts` one, but earlier
 * fixes of "caption wrapping" changed `src/wrap.ts`. The history moves it first, naming the fixes.
 */
const rankingFiles: Record<string, string> = {
  'src/theme.ts': [
    '// Caption styles of a table: the caption color and the caption font.',
    'export const captionColor = "gray";',
    'export const captionFont = "serif";',
    'export function tableCaptionStyle(table: string) { return `${table} caption ${captionColor}`; }',
    '',
  ].join('\n'),
  'src/wrap.ts': [
    '// Breaks a long table caption into lines at a width.',
    'export function wrapLines(text: string, width: number): string[] {',
    '  const lines: string[] = [];',
    '  for (let start = 0; start < text.length; start += width) lines.push(text.slice(start, start + width));',
    '  return lines;',
    '}',
    '',
  ].join('\n'),
  'src/other.ts': 'export function unrelated() { return 0; }\n',
};

test('earlier commits with similar messages move the file they fixed up the file ranking, and are named as its evidence', async () => {
  const request = 'Fix table caption wrapping when the caption is long';
  const withoutHistory = fixture(rankingFiles);
  const plain = await openEngine(withoutHistory.root, { parsers: structuralParsers(), options: { useGit: true } });
  try {
    await plain.sync();
    const answer = await plain.search(request, { granularity: 'files' });
    assert.equal(answer.files?.[0]?.path, 'src/theme.ts', 'without history the words decide');
  } finally {
    await plain.close();
  }

  const project = fixture(rankingFiles);
  project.git('init', '-q', '-b', 'main');
  commit(project.root, 'Initial layout and theme');
  project.write('src/wrap.ts', `${rankingFiles['src/wrap.ts']}// Keeps words whole.\n`);
  const firstFix = commit(project.root, 'Fix caption wrapping for long captions');
  project.write('src/wrap.ts', `${rankingFiles['src/wrap.ts']}// Keeps words whole at any width.\n`);
  commit(project.root, 'Wrap table captions at the table width');
  project.write('src/other.ts', 'export function unrelated() { return 1; }\n');
  commit(project.root, 'Bump the version');
  const engine = await openEngine(project.root, { parsers: structuralParsers(), options: { useGit: true } });
  try {
    await engine.sync();
    const answer = await engine.search(request, { granularity: 'files' });
    const files = answer.files ?? [];
    assert.equal(files[0]?.path, 'src/wrap.ts', JSON.stringify(files.map((file) => [file.path, file.score])));
    assert.ok(files[0].history?.some((evidence) => evidence.commit === firstFix.slice(0, 10)));
    assert.ok(files[0].history?.some((evidence) => evidence.subject === 'Fix caption wrapping for long captions'));
    assert.ok(answer.manifest.history?.similar.some((similar) => similar.subject === 'Wrap table captions at the table width'));
    assert.ok(!answer.manifest.history?.similar.some((similar) => similar.subject === 'Bump the version'));
    // A lookup keeps its exact answer: history does not rank symbols or paths.
    const lookup = await engine.search('tableCaptionStyle', { granularity: 'files' });
    assert.equal(lookup.files?.[0]?.path, 'src/theme.ts');
    assert.equal(lookup.files?.[0]?.history, undefined);
  } finally {
    await engine.close();
  }
});
