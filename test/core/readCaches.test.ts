import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { test } from 'node:test';
import { chunkIdOf, projectIdOf, sha256Hex, symbolIdOf } from '../../src/core/hashing';
import { fixtureFactory, openEngine, structuralParsers } from './fixtures';

const fixture = fixtureFactory();

function pythonSource(method: string, extra = ''): string {
  return [
    'class Ledger:',
    '    """Keeps the balance."""',
    '',
    `    def ${method}(self, amount):`,
    '        return amount * 2',
    '',
    'def settle(ledger):',
    `    return ledger.${method}(1)${extra}`,
    '',
  ].join('\n');
}

/** Each current chunk's id and declaration id, by lines, as the store reports them. */
function chunkIds(engine: Awaited<ReturnType<typeof openEngine>>, path: string): string[] {
  return engine.store.chunks.currentSnippets(path).map((row) => `${row.startLine}-${row.endLine} ${row.id} ${row.symbolId ?? '-'}`);
}

test('ids read before an edit are computed again after it, equal to a fresh index and to the id formulas', async () => {
  const project = fixture({ 'ledger.py': pythonSource('credit') });
  const engine = await openEngine(project.root, { parsers: structuralParsers() });
  try {
    await engine.sync();
    const before = chunkIds(engine, 'ledger.py');
    const symbolsBefore = engine.store.chunks.symbols().map((symbol) => symbol.symbolId);
    assert.ok(before.length >= 2, 'the file has chunks');

    // The same lines and names in new bytes: every id changes with the file's hash.
    project.edit('ledger.py', pythonSource('credit', '  # settled'));
    await engine.sync();
    const after = chunkIds(engine, 'ledger.py');
    assert.equal(after.length, before.length);
    assert.ok(
      after.every((entry) => !before.includes(entry)),
      'no id of the old bytes is served for the new ones',
    );
    const symbolsAfter = engine.store.chunks.symbols().map((symbol) => symbol.symbolId);
    assert.ok(symbolsAfter.every((id) => !symbolsBefore.includes(id)));

    const fresh = await openEngine(project.root, { parsers: structuralParsers() });
    try {
      await fresh.sync();
      assert.deepEqual(after, chunkIds(fresh, 'ledger.py'));
      assert.deepEqual(
        symbolsAfter,
        fresh.store.chunks.symbols().map((symbol) => symbol.symbolId),
      );
    } finally {
      await fresh.close();
    }

    const projectId = projectIdOf(project.root);
    const hash = sha256Hex(fs.readFileSync(project.path('ledger.py')));
    for (const row of engine.store.chunks.currentSnippets('ledger.py')) {
      assert.equal(row.fileHash, hash);
      const symbolId =
        row.kind !== null && row.qualifiedName !== null && row.symbolStart !== null && row.symbolEnd !== null
          ? symbolIdOf(projectId, row.path, hash, {
              startLine: row.symbolStart,
              endLine: row.symbolEnd,
              kind: row.kind,
              qualifiedName: row.qualifiedName,
            })
          : null;
      assert.equal(row.symbolId, symbolId);
      assert.equal(row.id, chunkIdOf(projectId, row.path, hash, row.startLine, row.endLine, symbolId));
    }
  } finally {
    await engine.close();
  }
});

test('a file row read before a change is read again after it; a removed file has none', async () => {
  const project = fixture({ 'a.py': 'def alpha():\n    return 1\n', 'b.py': 'def beta():\n    return 2\n' });
  const engine = await openEngine(project.root);
  try {
    await engine.sync();
    const first = engine.store.catalog.file('a.py');
    assert.equal(first?.sha256, sha256Hex(fs.readFileSync(project.path('a.py'))));
    assert.ok(engine.store.catalog.file('b.py'));

    project.edit('a.py', 'def alpha():\n    return 10\n');
    project.remove('b.py');
    await engine.sync();
    const second = engine.store.catalog.file('a.py');
    assert.equal(second?.sha256, sha256Hex(fs.readFileSync(project.path('a.py'))));
    assert.notEqual(second?.sha256, first?.sha256);
    assert.equal(engine.store.catalog.file('b.py'), undefined);

    // The row handed out is a copy: editing it leaves the stored one as it was.
    if (second) second.sha256 = 'edited';
    assert.equal(engine.store.catalog.file('a.py')?.sha256, sha256Hex(fs.readFileSync(project.path('a.py'))));
  } finally {
    await engine.close();
  }
});

test('file rows prefetched in a few queries equal the stored rows, and are read again after a change', async () => {
  const files: Record<string, string> = {};
  for (let index = 0; index < 70; index++) files[`pkg/m${index}.py`] = `def f${index}():\n    return ${index}\n`;
  const project = fixture(files);
  const engine = await openEngine(project.root);
  try {
    await engine.sync();
    const paths = Object.keys(files);
    // The whole table, read by a scan that bypasses the row cache.
    const table = engine.store.catalog.files();
    const expected = paths.map((path) => table.get(path));
    assert.ok(expected.every((row) => row !== undefined));
    // 70 rows: a batch of 64 and one of 8, with a path the index does not hold skipped.
    engine.store.catalog.prefetch([...paths, 'missing.py']);
    assert.deepEqual(
      paths.map((path) => engine.store.catalog.file(path)),
      expected,
    );
    assert.equal(engine.store.catalog.file('missing.py'), undefined);

    project.edit('pkg/m3.py', 'def f3():\n    return 30\n');
    await engine.sync();
    engine.store.catalog.prefetch(paths);
    assert.equal(engine.store.catalog.file('pkg/m3.py')?.sha256, sha256Hex(fs.readFileSync(project.path('pkg/m3.py'))));
  } finally {
    await engine.close();
  }
});

test('common-term counts read before a change are read again after it', async () => {
  const project = fixture({ 'a.py': 'def alpha():\n    return "ledger"\n' });
  const engine = await openEngine(project.root);
  try {
    await engine.sync();
    // Every word counts as common here, so the stored counts answer.
    engine.store.search.refreshCommonTerms(1);
    const count = () => Math.max(...(engine.store.search.commonTermCounts(['ledger']).get('ledger') ?? [0]));
    assert.equal(count(), 1);
    project.write('b.py', 'def beta():\n    return "ledger"\n');
    await engine.sync();
    assert.equal(count(), 2);
  } finally {
    await engine.close();
  }
});

test('chunk rows read by id are served again only while the index stands, and copy with their lazy fields', async () => {
  const project = fixture({ 'ledger.py': pythonSource('credit') });
  const engine = await openEngine(project.root, { parsers: structuralParsers() });
  try {
    await engine.sync();
    const rowids = engine.store.chunks.currentSnippets('ledger.py').map((row) => row.rowid);
    assert.ok(rowids.length >= 2, 'the file has chunks');
    const first = engine.store.chunks.snippetsByRowid(rowids);
    assert.deepEqual(
      first.map((row) => row.rowid),
      rowids,
    );
    const again = engine.store.chunks.snippetsByRowid([...rowids].reverse());
    assert.deepEqual(
      again.map((row) => row.rowid),
      [...rowids].reverse(),
      'the order asked, from kept rows too',
    );
    assert.ok(
      again.every((row) => first.includes(row)),
      'the rows read a moment ago are served again',
    );

    // A spread copies the lazily computed id and references as values, in the rows' field order.
    const copy = { ...first[0] };
    assert.equal(copy.id, first[0].id);
    assert.equal(copy.refs, first[0].refs);
    assert.deepEqual(Object.keys(copy), [
      'rowid',
      'id',
      'path',
      'fileHash',
      'startLine',
      'endLine',
      'tokens',
      'stale',
      'chunkKind',
      'parser',
      'parserVersion',
      'symbolId',
      'name',
      'kind',
      'qualifiedName',
      'signature',
      'parent',
      'symbolStart',
      'symbolEnd',
      'imports',
      'refs',
    ]);

    // New bytes: the old rows turn stale, so asking for them again finds none, and the new rows carry the new hash.
    project.edit('ledger.py', pythonSource('credit', '  # settled'));
    await engine.sync();
    assert.deepEqual(engine.store.chunks.snippetsByRowid(rowids), []);
    const hash = sha256Hex(fs.readFileSync(project.path('ledger.py')));
    const current = engine.store.chunks.currentSnippets('ledger.py').map((row) => row.rowid);
    const fresh = engine.store.chunks.snippetsByRowid(current);
    assert.equal(fresh.length, current.length);
    assert.ok(fresh.every((row) => row.fileHash === hash && !first.includes(row)));
  } finally {
    await engine.close();
  }
});
