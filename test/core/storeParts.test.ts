import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { nodePorts } from '../../src/core/ports';
import { IndexStore } from '../../src/core/store';

const repository = path.resolve(__dirname, '..', '..', '..');
const core = path.join(repository, 'src', 'core');

function sourceFiles(directory: string): string[] {
  return fs.readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** The tables a module's SQL names: what follows FROM, INTO, UPDATE, JOIN or TABLE, kept when it is one of `known`. */
function tablesNamed(file: string, known: Set<string>): string[] {
  const text = fs.readFileSync(file, 'utf8');
  const named = new Set<string>();
  for (const match of text.matchAll(/\b(?:FROM|INTO|UPDATE|JOIN|TABLE(?: IF NOT EXISTS)?)\s+(?:main\.)?(\w+)/g))
    if (known.has(match[1])) named.add(match[1]);
  return [...named].sort();
}

/** A new store with every part's tables, the curation and history parts' too (created, as the engine does, on first use). */
async function freshStore(): Promise<IndexStore> {
  const { store } = await IndexStore.open(undefined, '/project', nodePorts());
  assert.equal(store.curation.builtDigest(), undefined, 'a new store has no curation log projected yet');
  // The history part's tables come with its first stored commit.
  assert.equal(store.history.head(), undefined, 'a new store has no history yet');
  const commit = { hash: 'ab'.repeat(20), subject: 'Add a file', terms: 'add file', paths: ['src/a.ts'], fileCount: 1 };
  store.history.replaceAll([commit], 'cd'.repeat(20));
  return store;
}

/** The index's tables, without SQLite's own (`sqlite_sequence`). */
function storedTables(store: IndexStore): string[] {
  const sql = "SELECT name FROM sqlite_master WHERE type = 'table' AND substr(name, 1, 7) <> 'sqlite_' ORDER BY name";
  return (store.database.exec(sql)[0]?.values ?? []).map((row) => String(row[0]));
}

test('every table has exactly one owner: the database (meta) or one part', async () => {
  const store = await freshStore();
  const parts = [store.catalog, store.chunks, store.search, store.embeddings, store.curation, store.history];
  const owned = ['meta', ...parts.flatMap((part) => [...part.tables])];
  assert.equal(new Set(owned).size, owned.length, 'no table is claimed twice');
  assert.deepEqual([...owned].sort(), storedTables(store));
  store.close();
});

test("each part's SQL names only its own tables, and no module outside the store names any", async () => {
  const store = await freshStore();
  const known = new Set(storedTables(store));
  const owners = new Map<string, readonly string[]>([
    ['tables/fileCatalog.ts', store.catalog.tables],
    ['tables/chunkTable.ts', store.chunks.tables],
    ['tables/fullTextIndex.ts', store.search.tables],
    // The full-text part's helpers: common-term counts and column lengths.
    ['commonTerms.ts', store.search.tables],
    ['columnLengths.ts', store.search.tables],
    ['tables/embeddingTable.ts', store.embeddings.tables],
    ['curation/tables.ts', store.curation.tables],
    ['history/historyTable.ts', store.history.tables],
    ['tables/database.ts', ['meta']],
    ['store.ts', ['meta']],
  ]);
  store.close();
  const trespasses: string[] = [];
  let partsChecked = 0;
  for (const file of sourceFiles(core)) {
    const relative = path.relative(core, file).split(path.sep).join('/');
    const allowed = new Set(owners.get(relative) ?? []);
    const named = tablesNamed(file, known);
    if (owners.has(relative) && named.length > 0) partsChecked++;
    for (const table of named) if (!allowed.has(table)) trespasses.push(`${relative} names ${table}`);
  }
  assert.deepEqual(trespasses, []);
  assert.ok(partsChecked >= 7, `the parts' own SQL was found (${partsChecked} modules)`);
});

test('the table scan sees SQL that names a table', () => {
  const scratch = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'pk-parts-')), 'part.ts');
  fs.writeFileSync(scratch, "db.run('DELETE FROM project_symbols WHERE path = ?');\nconst note = 'from project_files';\n");
  assert.deepEqual(tablesNamed(scratch, new Set(['project_symbols', 'project_files'])), ['project_symbols']);
  fs.rmSync(path.dirname(scratch), { recursive: true });
});
