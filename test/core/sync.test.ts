import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { ProjectEngine } from '../../src/core/engine';
import { nodePorts, readWhole, type EnginePorts } from '../../src/core/ports';
import { loadSqlite } from '../../src/core/sqlite';
import { fixtureFactory, numberedLines, openEngine, recordingPorts, structuralParsers, tempFile } from './fixtures';

const fixture = fixtureFactory();

function currentRows(engine: ProjectEngine) {
  return engine.store.chunks.allCurrentSnippets().map((row) => ({
    id: row.id,
    path: row.path,
    fileHash: row.fileHash,
    startLine: row.startLine,
    endLine: row.endLine,
    tokens: row.tokens,
    chunkKind: row.chunkKind,
    symbolId: row.symbolId,
  }));
}

/** Document count and per-column token totals from FTS4's stat record. */
function searchTotals(engine: ProjectEngine): number[] {
  const blob = engine.store.database.exec('SELECT value FROM search_index_stat WHERE id = 0')[0].values[0][0] as Uint8Array;
  const values: number[] = [];
  let value = 0;
  let shift = 0;
  for (const byte of blob) {
    value += (byte & 0x7f) * 2 ** shift;
    shift += 7;
    if (!(byte & 0x80)) {
      values.push(value);
      value = 0;
      shift = 0;
    }
  }
  return values.slice(0, 4);
}

function fileRows(engine: ProjectEngine) {
  return [...engine.store.catalog.files().values()]
    .map((file) => ({ path: file.path, sha256: file.sha256, bytes: file.bytes, language: file.language, parser: file.parser }))
    .sort((a, b) => a.path.localeCompare(b.path));
}

describe('text windows', () => {
  test('80-line windows with 12 lines of overlap and exact ranges', async () => {
    const project = fixture({ 'a.ts': numberedLines(200) });
    const engine = await openEngine(project.root);
    await engine.sync();
    const ranges = engine.store.chunks.currentSnippets('a.ts').map((row) => [row.startLine, row.endLine]);
    assert.deepEqual(ranges, [
      [1, 80],
      [69, 148],
      [137, 200],
    ]);
    await engine.close();
  });

  test('chunk ids are stable across engines and derived from path, hash and range', async () => {
    const project = fixture({ 'a.ts': numberedLines(10) });
    const first = await openEngine(project.root);
    await first.sync();
    const second = await openEngine(project.root);
    await second.sync();
    assert.deepEqual(currentRows(first), currentRows(second));
    await first.close();
    await second.close();
  });
});

/** FTS4's own entry counts of every word (`fts4aux`): what the index holds, whatever docids it gave the rows. */
function indexEntries(engine: ProjectEngine): string[] {
  const db = engine.store.database;
  db.exec('CREATE VIRTUAL TABLE IF NOT EXISTS temp.test_entries USING fts4aux(main, search_index)');
  return (db.exec('SELECT term, col, documents, occurrences FROM temp.test_entries ORDER BY term, col')[0]?.values ?? []).map((row) =>
    row.join(' '),
  );
}

/** A Python module of `count` functions and a class, its words drawn from `seed`. */
function pythonModule(seed: number, count: number, shift = 0): string {
  const header = Array.from({ length: shift }, (_, line) => `# note ${seed} ${line}: the ledger moved`).join('\n');
  const functions = Array.from(
    { length: count },
    (_, index) =>
      `def post_entry_${seed}_${index}(ledger, amount=${index}):\n    """Posts entry ${index} of batch ${seed} to the ledger."""\n` +
      `    total = ledger.balance + amount * ${seed % 7}\n    ledger.post(total, "entry ${seed} ${index}")\n    return total\n`,
  );
  const audit = `class Audit${seed}:\n    def check(self, ledger):\n        return ledger.balance > ${seed}\n`;
  return `${header}\n${functions.join('\n')}\n${audit}`;
}

describe('incremental sync', () => {
  test('only the changed file is re-read; its old rows go stale, others keep their ids', async () => {
    const project = fixture({ 'a.ts': numberedLines(30, 'a'), 'b.ts': numberedLines(30, 'b') });
    const engine = await openEngine(project.root);
    const first = await engine.sync();
    assert.equal(first.reindexed, 2);
    const before = currentRows(engine);
    project.edit('a.ts', numberedLines(31, 'a'));
    const second = await engine.sync();
    assert.equal(second.reindexed, 1);
    assert.equal(second.read, 1);
    assert.equal(second.unchanged, 1);
    const after = currentRows(engine);
    assert.deepEqual(
      after.filter((row) => row.path === 'b.ts'),
      before.filter((row) => row.path === 'b.ts'),
    );
    assert.notDeepEqual(
      after.filter((row) => row.path === 'a.ts'),
      before.filter((row) => row.path === 'a.ts'),
    );
    const counts = engine.store.counts();
    assert.equal(counts.staleSnippets, before.filter((row) => row.path === 'a.ts').length);
    await engine.close();
  });

  test('a forced full rebuild of unchanged files re-reads them and keeps the same rows', async () => {
    const project = fixture({ 'a.ts': numberedLines(90, 'a'), 'b.py': 'def b():\n    return 1\n' });
    const engine = await openEngine(project.root);
    await engine.sync();
    const before = currentRows(engine);
    const report = await engine.sync({ full: true });
    assert.deepEqual(report.errors, []);
    assert.equal(report.reindexed, 2);
    assert.equal(report.removed, 0);
    assert.deepEqual(currentRows(engine), before);
    assert.equal(engine.store.counts().staleSnippets, 0);
    assert.equal((await engine.search('a45')).results.length, 1);
    await engine.close();
  });

  test('nothing changed means nothing is read', async () => {
    const project = fixture({ 'a.ts': numberedLines(5) });
    const engine = await openEngine(project.root);
    await engine.sync();
    const again = await engine.sync();
    assert.equal(again.read, 0);
    assert.equal(again.reindexed, 0);
    await engine.close();
  });

  test('deleted files disappear with all their rows', async () => {
    const project = fixture({ 'a.ts': 'export const alpha = 1;\n', 'b.ts': 'export const beta = 2;\n' });
    const engine = await openEngine(project.root);
    await engine.sync();
    project.remove('a.ts');
    const report = await engine.sync();
    assert.equal(report.removed, 1);
    assert.deepEqual(
      fileRows(engine).map((file) => file.path),
      ['b.ts'],
    );
    // Rows are keyed by file id: a row of a.ts would be one whose file is no longer indexed.
    const orphans = 'SELECT COUNT(*) FROM project_snippets WHERE file_id NOT IN (SELECT id FROM project_files)';
    assert.equal(engine.store.database.exec(orphans)[0].values[0][0], 0);
    const search = await engine.search('alpha');
    assert.equal(search.results.length, 0);
    await engine.close();
  });

  test('a clean rebuild and an incremental sync of the same tree give identical rows', async () => {
    const project = fixture({ 'a.ts': numberedLines(100, 'a'), 'b/c.py': 'def c():\n    return 1\n', 'd.md': '# Title\n' });
    project.initGit();
    const incremental = await openEngine(project.root);
    await incremental.sync();
    project.edit('a.ts', numberedLines(120, 'a'));
    project.remove('d.md');
    project.write('e.go', 'package e\n\nfunc E() {}\n');
    await incremental.sync();
    const clean = await openEngine(project.root);
    await clean.sync({ full: true });
    assert.deepEqual(currentRows(incremental), currentRows(clean));
    assert.deepEqual(fileRows(incremental), fileRows(clean));
    assert.deepEqual(incremental.store.chunks.symbols(), clean.store.chunks.symbols());
    // The full-text statistics bm25 uses (document count, total tokens per column) agree too.
    // (The blob's last varint, total bytes, only steers FTS4's doclist-loading heuristic and may differ.)
    assert.deepEqual(searchTotals(incremental), searchTotals(clean));
    await incremental.close();
    await clean.close();
  });

  test('after a checkout-sized change the full-text index holds exactly the entries of a clean rebuild', async () => {
    const files: Record<string, string> = {};
    for (let index = 0; index < 80; index++) files[`pkg/mod${index}.py`] = pythonModule(index, 6 + (index % 5));
    const project = fixture(files);
    const parsers = structuralParsers();
    const incremental = await openEngine(project.root, { parsers });
    await incremental.sync();
    // Edits that shift lines, change words or shrink files, deletions and new files: a checkout's mix.
    for (let index = 0; index < 80; index += 2) project.edit(`pkg/mod${index}.py`, pythonModule(index + 1000, 3 + (index % 7), index % 4));
    for (let index = 1; index < 20; index += 4) project.remove(`pkg/mod${index}.py`);
    for (let index = 80; index < 90; index++) project.write(`pkg/mod${index}.py`, pythonModule(index, 4));
    const report = await incremental.sync();
    assert.equal(report.reindexed, 50);
    assert.equal(report.removed, 5);
    const clean = await openEngine(project.root, { parsers });
    await clean.sync({ full: true });
    assert.deepEqual(currentRows(incremental), currentRows(clean));
    assert.deepEqual(incremental.store.chunks.symbols(), clean.store.chunks.symbols());
    assert.deepEqual(searchTotals(incremental), searchTotals(clean));
    const entries = indexEntries(incremental);
    assert.ok(entries.length > 500, `${entries.length} index entries`);
    assert.deepEqual(entries, indexEntries(clean));
    const query = 'posts entry ledger balance';
    assert.deepEqual(
      (await incremental.search(query)).results.map((result) => [result.path, result.startLine]),
      (await clean.search(query)).results.map((result) => [result.path, result.startLine]),
    );
    await incremental.close();
    await clean.close();
  });

  test('after the full-text index is merged, a run of one-file edits leaves the merged segment alone', async () => {
    const files: Record<string, string> = {};
    // The merged segment must be far larger than the edits' (FTS4 moves a smaller one down among them).
    for (let index = 0; index < 40; index++) files[`pkg/mod${index}.py`] = pythonModule(index, 8);
    const project = fixture(files);
    const parsers = structuralParsers();
    const incremental = await openEngine(project.root, { parsers });
    await incremental.sync();
    incremental.store.search.optimize();
    const segments = () =>
      (incremental.store.database.exec('SELECT level, start_block, end_block FROM search_index_segdir')[0]?.values ?? []).map((row) =>
        row.join(' '),
      );
    const [merged, ...others] = segments();
    assert.deepEqual(others, [], 'one segment after the merge');
    // Each sync flushes its rows into one new segment; FTS4 merges a level when it holds 16.
    for (let edit = 0; edit < 20; edit++) {
      project.edit(`pkg/mod${edit}.py`, pythonModule(2000 + edit, 1 + (edit % 2), edit % 3));
      await incremental.sync();
    }
    assert.ok(segments().includes(merged), `the merged segment ${merged} is still there: ${segments().join(', ')}`);
    assert.ok(segments().length < 20, 'the small segments were merged among themselves');
    const clean = await openEngine(project.root, { parsers });
    await clean.sync({ full: true });
    assert.deepEqual(indexEntries(incremental), indexEntries(clean));
    assert.deepEqual(searchTotals(incremental), searchTotals(clean));
    await incremental.close();
    await clean.close();
  });

  test('a large sync merges the full-text index in steps and answers a search queued meanwhile between them', async () => {
    const files: Record<string, string> = {};
    for (let index = 0; index < 210; index++) files[`pkg/mod${index}.py`] = pythonModule(index, 8);
    const project = fixture(files);
    const parsers = structuralParsers();
    const incremental = await openEngine(project.root, { parsers, parsePool: false });
    await incremental.sync();
    // One leaf page a step, so a small index takes many steps; the freed pages are given back a few at a time.
    incremental.store.search.mergeStepPages = 1;
    incremental.store.search.releaseStepPages = 8;
    for (let index = 0; index < 210; index++) project.edit(`pkg/mod${index}.py`, pythonModule(index + 1000, 8));
    const levels = () =>
      (incremental.store.database.exec('SELECT level FROM search_index_segdir ORDER BY level')[0]?.values ?? []).map((row) => row[0]);
    const events: string[] = [];
    let levelsWhenAnswered: unknown[] = [];
    let asked: Promise<unknown> | undefined;
    const syncing = incremental
      .sync({
        onProgress: (progress) => {
          if (asked || progress.phase !== 'indexing' || progress.done !== progress.total) return;
          // Edited after the sync read it: the search finds its indexed words, verifies it live and indexes it again, mid-merge.
          project.edit('pkg/mod7.py', pythonModule(5007, 8));
          asked = incremental.search('post_entry_1007_2').then((retrieval) => {
            levelsWhenAnswered = levels();
            events.push('search');
            return retrieval;
          });
        },
      })
      .then((report) => {
        events.push('sync');
        return report;
      });
    const report = await syncing;
    await asked;
    assert.equal(report.reindexed, 210);
    assert.deepEqual(events, ['search', 'sync'], 'the search was answered before the sync ended');
    assert.ok(
      levelsWhenAnswered.includes(3),
      `the merge was under way when the search was answered: levels ${levelsWhenAnswered.join(', ')}`,
    );
    assert.equal(
      incremental.store.catalog.file('pkg/mod7.py')?.sha256,
      createHash('sha256')
        .update(fs.readFileSync(project.path('pkg/mod7.py')))
        .digest('hex'),
      'the search indexed the file edited mid-merge',
    );
    assert.equal(levels().filter((level) => level === 2).length, 1, `one merged segment at level 2: ${levels().join(', ')}`);
    assert.ok(!levels().includes(3), `nothing left at the merging level: ${levels().join(', ')}`);
    // The merged segments' pages, freed by the last step, are given back rather than left in the file.
    const freePages = incremental.store.database.exec('PRAGMA freelist_count')[0].values[0][0];
    assert.equal(freePages, 0, `free pages after the merge: ${String(freePages)}`);
    const releaseSteps = report.fullTextMerge?.releaseSteps ?? 0;
    assert.ok(releaseSteps >= 2, `the freed pages were given back in steps of 8 pages: ${releaseSteps} steps beyond the last`);
    const clean = await openEngine(project.root, { parsers, parsePool: false });
    await clean.sync({ full: true });
    assert.deepEqual(currentRows(incremental), currentRows(clean));
    assert.deepEqual(indexEntries(incremental), indexEntries(clean));
    assert.deepEqual(searchTotals(incremental), searchTotals(clean));
    await incremental.close();
    await clean.close();
  });

  test('a file left out for its bytes is not read again while its size and mtime stay; changed, it is judged again', async () => {
    const project = fixture({ 'a.ts': 'export const a = 1;\n', 'data.txt': 'binary\0\0\0\0 content\n', 'blank.md': '   \n' });
    const reads: string[] = [];
    const base = nodePorts();
    const ports: EnginePorts = {
      ...base,
      fs: {
        ...base.fs,
        readFileBlocking(root, relativePath, maxBytes) {
          // Discovery reads the ignore files; the project's own files are what this counts.
          if (!relativePath.startsWith('.')) reads.push(relativePath);
          return base.fs.readFileBlocking(root, relativePath, maxBytes);
        },
      },
    };
    const engine = await openEngine(project.root, { ports });
    await engine.sync();
    const reasons = () =>
      Object.fromEntries(engine.store.catalog.storedExclusions().map((exclusion) => [exclusion.path, exclusion.reason]));
    assert.deepEqual(reasons(), { 'blank.md': 'empty', 'data.txt': 'binary-content' });
    assert.deepEqual(reads.sort(), ['a.ts', 'blank.md', 'data.txt']);
    reads.length = 0;
    const again = await engine.sync();
    assert.deepEqual(reads, [], 'nothing is read');
    assert.equal(again.excluded, 2);
    assert.deepEqual(reasons(), { 'blank.md': 'empty', 'data.txt': 'binary-content' });
    project.edit('data.txt', 'now it is text\n');
    await engine.sync();
    assert.deepEqual(reads, ['data.txt']);
    assert.deepEqual(reasons(), { 'blank.md': 'empty' });
    assert.equal((await engine.search('now it is text')).results[0]?.path, 'data.txt');
    // A full rebuild reads everything, the files left out included.
    reads.length = 0;
    await engine.sync({ full: true });
    assert.deepEqual(reads.sort(), ['a.ts', 'blank.md', 'data.txt']);
    await engine.close();
  });

  test('git state: branch, HEAD, dirty, changed paths and tracked/modified per file', async () => {
    const project = fixture({ 'a.ts': 'export const a = 1;\n', 'b.ts': 'export const b = 1;\n' });
    project.initGit();
    project.edit('a.ts', 'export const a = 2;\n');
    project.write('new.ts', 'export const n = 1;\n');
    const engine = await openEngine(project.root);
    await engine.sync();
    const state = engine.store.catalog.state();
    assert.equal(state.branch, 'main');
    assert.match(state.head ?? '', /^[0-9a-f]{40}$/);
    assert.equal(state.dirty, true);
    assert.deepEqual(state.changedPaths, ['a.ts', 'new.ts']);
    const files = engine.store.catalog.files();
    assert.deepEqual([files.get('a.ts')?.tracked, files.get('a.ts')?.modified], [true, true]);
    assert.deepEqual([files.get('b.ts')?.tracked, files.get('b.ts')?.modified], [true, false]);
    assert.deepEqual([files.get('new.ts')?.tracked, files.get('new.ts')?.modified], [false, true]);
    assert.equal(files.get('b.ts')?.gitHead, state.head);
    await engine.close();
  });
});

describe('files that change during indexing', () => {
  test('a file deleted between discovery and read is skipped, not a crash', async () => {
    const project = fixture({ 'a.ts': 'a\n', 'gone.ts': 'gone\n' });
    const base = nodePorts();
    const ports: EnginePorts = {
      ...base,
      fs: {
        ...base.fs,
        readFileBlocking(root, relativePath, maxBytes) {
          if (relativePath === 'gone.ts') fs.rmSync(path.join(root, relativePath));
          return base.fs.readFileBlocking(root, relativePath, maxBytes);
        },
      },
    };
    const engine = await openEngine(project.root, { ports });
    const report = await engine.sync();
    assert.deepEqual(report.errors, []);
    assert.deepEqual(
      fileRows(engine).map((file) => file.path),
      ['a.ts'],
    );
    await engine.close();
  });

  test('a file changed between discovery and read is indexed with the bytes actually read', async () => {
    const project = fixture({ 'a.ts': 'export const before = 1;\n' });
    const base = nodePorts();
    const ports: EnginePorts = {
      ...base,
      fs: {
        ...base.fs,
        readFileBlocking(root, relativePath, maxBytes) {
          if (relativePath === 'a.ts') fs.writeFileSync(path.join(root, relativePath), 'export const afterwards = 22;\n');
          return base.fs.readFileBlocking(root, relativePath, maxBytes);
        },
      },
    };
    const engine = await openEngine(project.root, { ports });
    await engine.sync();
    const file = engine.store.catalog.file('a.ts');
    assert.equal(file?.bytes, Buffer.byteLength('export const afterwards = 22;\n'));
    const plain = await openEngine(project.root);
    const result = await plain.search('afterwards');
    await plain.sync();
    assert.equal((await plain.search('afterwards')).results[0]?.sha256, file?.sha256);
    assert.equal(result.results.length, 0);
    await engine.close();
    await plain.close();
  });
});

describe('bounds', () => {
  test('file and total-byte bounds are reported, not fatal', async () => {
    const files: Record<string, string> = {};
    for (let index = 0; index < 12; index++) files[`f${String(index).padStart(2, '0')}.ts`] = 'x'.repeat(1000) + '\n';
    const project = fixture(files);
    const byCount = await openEngine(project.root, { options: { bounds: { maxFiles: 5 } } });
    const countReport = await byCount.sync();
    assert.equal(byCount.store.counts().files, 5);
    assert.equal(countReport.exclusionsByReason['bound-files'], 7);
    assert.ok(countReport.boundNotes.some((note) => note.includes('maxFiles')));
    const byBytes = await openEngine(project.root, { options: { bounds: { maxTotalBytes: 3_500 } } });
    const bytesReport = await byBytes.sync();
    assert.equal(byBytes.store.counts().files, 3);
    assert.ok(bytesReport.exclusionsByReason['bound-total-bytes'] > 0);
    await byCount.close();
    await byBytes.close();
  });
});

describe('persistence', () => {
  test('the stored index is reused: reopening re-reads nothing', async () => {
    const project = fixture({ 'a.ts': numberedLines(10) });
    const dbPath = tempFile('index.sqlite');
    const first = await openEngine(project.root, { dbPath });
    await first.sync();
    await first.close();
    const second = await openEngine(project.root, { dbPath });
    assert.equal(second.loadedFromDisk, true);
    const report = await second.sync();
    assert.equal(report.read, 0);
    await second.close();
  });

  test('the stored index is read in pieces, so one over 2 GiB (which fs.readFile refuses) still opens', async () => {
    const project = fixture({ 'a.ts': numberedLines(400) });
    const dbPath = tempFile('index.sqlite');
    const first = await openEngine(project.root, { dbPath });
    await first.sync();
    await first.close();
    const whole = fs.readFileSync(dbPath);
    const pieces = await readWhole(dbPath, 4096);
    assert.ok(whole.length > 4096 * 3, 'the file spans several pieces');
    assert.ok(Buffer.from(pieces).equals(whole));
  });

  test('a truncated or older-schema index of ours is discarded with a logged reason; garbage is refused, untouched', async () => {
    const project = fixture({ 'a.ts': 'export const alpha = 1;\n' });
    const dbPath = tempFile('index.sqlite');
    const first = await openEngine(project.root, { dbPath });
    await first.sync();
    await first.close();
    const good = fs.readFileSync(dbPath);

    const garbage = Buffer.from('this is not a database at all, just some bytes');
    fs.writeFileSync(dbPath, garbage);
    await assert.rejects(openEngine(project.root, { dbPath }), /Refusing to use .* it is not a SQLite database; it was left untouched/);
    assert.ok(fs.readFileSync(dbPath).equals(garbage), 'the refused file is byte-identical');

    // Cut in half, even the schema cannot be read: nothing proves the file is ours, so it stays.
    const truncated = good.subarray(0, Math.floor(good.length / 2));
    fs.writeFileSync(dbPath, truncated);
    await assert.rejects(openEngine(project.root, { dbPath }), /has a SQLite header but cannot be read .* it was left untouched/);
    assert.ok(fs.readFileSync(dbPath).equals(truncated), 'the unreadable file is byte-identical');

    // A damaged table page: the meta table still says it is ours, the integrity check fails.
    const SQL = await loadSqlite();
    const reader = new SQL.Database(good);
    const pageSize = reader.exec('PRAGMA page_size')[0].values[0][0] as number;
    const rootPage = reader.exec("SELECT rootpage FROM sqlite_master WHERE name = 'project_snippets'")[0].values[0][0] as number;
    reader.close();
    const damaged = Buffer.from(good);
    damaged.fill(0xa5, (rootPage - 1) * pageSize, rootPage * pageSize);
    const variants: Array<[string, Buffer]> = [['damaged', damaged]];
    for (const [name, bytes] of variants) {
      fs.writeFileSync(dbPath, bytes);
      const { ports, warnings } = recordingPorts();
      const engine = await openEngine(project.root, { dbPath, ports });
      assert.equal(engine.loadedFromDisk, false, name);
      assert.ok(
        warnings.some((warning) => warning.includes('discarded')),
        name,
      );
      await engine.sync();
      assert.equal((await engine.search('alpha')).results.length, 1, name);
      await engine.close();
    }

    const { ports: plain } = recordingPorts();
    const engine = await openEngine(project.root, { dbPath, ports: plain });
    engine.store.database.exec("UPDATE meta SET value = '0' WHERE key = 'schema_version'");
    engine.store.markChanged();
    await engine.close();
    const { ports, warnings } = recordingPorts();
    const reopened = await openEngine(project.root, { dbPath, ports });
    assert.equal(reopened.loadedFromDisk, false);
    assert.ok(warnings.some((warning) => warning.includes('schema version 0')));
    await reopened.close();
  });

  test('writes are atomic: no temporary file is left behind', async () => {
    const project = fixture({ 'a.ts': 'a\n' });
    const dbPath = tempFile('index.sqlite');
    const engine = await openEngine(project.root, { dbPath });
    await engine.sync();
    await engine.close();
    const directory = fs.readdirSync(path.dirname(dbPath));
    assert.deepEqual(directory, ['index.sqlite']);
  });
});
