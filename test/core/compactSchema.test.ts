import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Database as SqlDatabase, SqlValue } from 'sql.js';
import type { ProjectEngine } from '../../src/core/engine';
import { fixtureFactory, openEngine, structuralParsers } from './fixtures';

const fixture = fixtureFactory();

/** A small project with declarations, imports, prose and a class, in two languages and nested folders. */
const files: Record<string, string> = {
  'src/http/cookies.ts': [
    "import { splitHeader } from '../util/headers';",
    '',
    '/** Parses the Cookie request header into name/value pairs. */',
    'export function parseCookieHeader(header: string): Map<string, string> {',
    '  const cookies = new Map<string, string>();',
    '  for (const part of splitHeader(header)) {',
    "    const [name, value] = part.split('=');",
    '    cookies.set(name.trim(), value ?? "");',
    '  }',
    '  return cookies;',
    '}',
    '',
    'export class CookieJar {',
    '  private readonly cookies = new Map<string, string>();',
    '  store(name: string, value: string): void {',
    '    this.cookies.set(name, value);',
    '  }',
    '  read(name: string): string | undefined {',
    '    return this.cookies.get(name);',
    '  }',
    '}',
    '',
  ].join('\n'),
  'src/util/headers.ts': [
    '/** Splits a header value at semicolons. */',
    'export function splitHeader(header: string): string[] {',
    "  return header.split(';').filter((part) => part.length > 0);",
    '}',
    '',
  ].join('\n'),
  'lib/session_queue.py': [
    'class SessionQueue:',
    '    """Queues messages until the session is flushed."""',
    '',
    '    def __init__(self):',
    '        self.pending = []',
    '',
    '    def push(self, message):',
    '        self.pending.append(message)',
    '',
    '    def flush(self):',
    '        sent, self.pending = self.pending, []',
    '        return sent',
    '',
  ].join('\n'),
  'docs/guide/overview.md': '# Overview\n\nCookies are parsed from the request header; the session queue flushes messages.\n',
};

/** Every SQL text the connection prepares or runs while `work` runs. */
async function recordStatements(db: SqlDatabase, work: () => Promise<void>): Promise<Set<string>> {
  const seen = new Set<string>();
  const original = { prepare: db.prepare.bind(db), exec: db.exec.bind(db), run: db.run.bind(db) };
  const patched = db as unknown as Record<'prepare' | 'exec' | 'run', (sql: string, params?: unknown) => unknown>;
  patched.prepare = (sql, params) => (seen.add(sql), original.prepare(sql, params as SqlValue[]));
  patched.exec = (sql, params) => (seen.add(sql), original.exec(sql, params as SqlValue[]));
  patched.run = (sql, params) => (seen.add(sql), original.run(sql, params as SqlValue[]));
  try {
    await work();
  } finally {
    Object.assign(db, original);
  }
  return seen;
}

/** Statements of the store's own tables (the temporary helper tables are gone once their statement ran). */
function isStoreStatement(sql: string): boolean {
  return /^\s*(SELECT|INSERT|UPDATE|DELETE)\b/.test(sql) && !sql.includes(';') && !/\btemp\.|\bpk_common\b/.test(sql);
}

function plan(db: SqlDatabase, sql: string): string[] {
  return (db.exec(`EXPLAIN QUERY PLAN ${sql}`)[0]?.values ?? []).map((row) => String(row[3]));
}

/** Tables of a handful of rows, or of one row per file, which a query may read whole. */
const smallTables = new Set([
  'meta',
  'project_states',
  'project_files',
  'project_exclusions',
  'project_chunk_formats',
  'derived_embedding_models',
]);

/**
 * The statements meant to read a whole big table, and why: anything else that scans one is a
 * missing or unused index.
 */
const wholeTableReads: Array<{ pattern: RegExp; why: string }> = [
  { pattern: /FROM search_index_docsize$/, why: 'ColumnLengths reads every row once, then keeps them current' },
  { pattern: /^SELECT DISTINCT term FROM search_common_terms$/, why: 'the common words, read once into a set' },
  { pattern: /FROM derived_embedding_models m JOIN derived_embeddings e/, why: "a model's vectors, all of them, for the matrix" },
  { pattern: /FROM derived_embeddings e JOIN derived_embedding_models m/, why: 'storedRows, every vector, for inspection' },
  { pattern: /WHERE c\.stale = 0 ORDER BY c\.file_id/, why: 'allCurrentSnippets, every current chunk' },
  { pattern: /^SELECT symbol_key.* FROM project_symbols ORDER BY file_id/, why: 'symbols(), every declaration' },
  { pattern: /^SELECT \(SELECT COUNT\(\*\) FROM project_snippets WHERE stale = 0\)/, why: 'counts() for health' },
  { pattern: /^SELECT COUNT\(\*\) FROM derived_embeddings$/, why: 'the vector count for health and tests' },
];

/** Query plans' table scans that are not meant to be there. */
function unintendedScans(db: SqlDatabase, statements: Iterable<string>): string[] {
  const found: string[] = [];
  for (const sql of statements) {
    const text = sql.replace(/\s+/g, ' ').trim();
    if (!isStoreStatement(text)) continue;
    if (wholeTableReads.some((entry) => entry.pattern.test(text))) continue;
    for (const step of plan(db, sql)) {
      const scanned = /^SCAN (?:TABLE )?(\S+)/.exec(step)?.[1];
      if (!scanned || step.includes('VIRTUAL TABLE') || scanned === 'CONSTANT' || smallTables.has(scanned)) continue;
      found.push(`${text.slice(0, 120)} -> ${step}`);
    }
  }
  return found;
}

/** The plan of the recorded statement that starts with `prefix` (exactly one must). */
function planOf(db: SqlDatabase, statements: Set<string>, prefix: string): string {
  const matching = [...statements].filter((sql) => sql.replace(/\s+/g, ' ').trim().startsWith(prefix));
  assert.ok(matching.length > 0, `a statement starting ${prefix} ran`);
  return matching.map((sql) => plan(db, sql).join(' | ')).join(' || ');
}

/** Every cell of every table of ours (FTS4's shadow tables included), as text or bytes. */
function everyCell(db: SqlDatabase): Array<{ table: string; value: SqlValue }> {
  const tables = (db.exec("SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%'")[0]?.values ?? []).map(
    (row) => String(row[0]),
  );
  return tables.flatMap((table) =>
    (db.exec(`SELECT * FROM "${table}"`)[0]?.values ?? []).flatMap((row) => row.map((value) => ({ table, value }))),
  );
}

function cellContains(value: SqlValue, needle: string): boolean {
  if (typeof value === 'string') return value.includes(needle);
  if (value instanceof Uint8Array) return Buffer.from(value).includes(Buffer.from(needle, 'utf8'));
  return false;
}

describe('compact schema', () => {
  let engine: ProjectEngine;
  let statements: Set<string>;
  const project = fixture(files);

  before(async () => {
    engine = await openEngine(project.root, { options: { semantic: true }, parsers: structuralParsers() });
    statements = await recordStatements(engine.store.database, async () => {
      await engine.sync();
      project.edit('src/util/headers.ts', files['src/util/headers.ts'].replace('semicolons', 'each semicolon'));
      project.write('src/extra.ts', 'export const extraValue = 1;\n');
      await engine.sync();
      project.remove('src/extra.ts');
      await engine.sync();
      await engine.search('where are cookies parsed from the request header');
      await engine.search('parseCookieHeader');
      await engine.search('SessionQueue.flush', { semantic: true });
      await engine.search('"session queue flushes"');
      await engine.findSymbol({ name: 'CookieJar' });
      await engine.findSymbol({ name: 'CookieJar.store' });
      await engine.references({ symbol: 'splitHeader' });
      await engine.outline({ path: 'src/http/cookies.ts' });
      await engine.syncKnownFiles(['lib/session_queue.py']);
    });
  });

  after(async () => {
    await engine.close();
  });

  test('no statement of a sync, a search or a navigation query scans a big table it did not mean to read whole', () => {
    const db = engine.store.database;
    assert.ok(statements.size > 40, `the session ran the store's statements (${statements.size})`);
    assert.deepEqual(unintendedScans(db, statements), []);
  });

  test('the hot lookups use the intended index', () => {
    const db = engine.store.database;
    const expect = (prefix: string, ...fragments: string[]) => {
      const found = planOf(db, statements, prefix);
      for (const fragment of fragments) assert.ok(found.includes(fragment), `${prefix}: ${found} uses ${fragment}`);
    };
    expect('SELECT id FROM project_snippets WHERE file_id = ? AND stale = 0', 'INDEX project_snippets_file (file_id=? AND stale=?)');
    expect('DELETE FROM project_snippets WHERE file_id = ? AND stale = 1', 'project_snippets_file');
    expect('UPDATE project_snippets SET stale = 1', 'project_snippets_file');
    expect('DELETE FROM project_symbols WHERE file_id = ?', 'project_symbols_file');
    expect('DELETE FROM derived_embeddings WHERE file_id = ?', 'PRIMARY KEY (file_id=?)');
    expect('SELECT terms FROM search_vocabulary WHERE file_id = ?', 'INTEGER PRIMARY KEY');
    expect('SELECT docid, size FROM search_index_docsize WHERE docid BETWEEN ? AND ?', 'INTEGER PRIMARY KEY (rowid>? AND rowid<?)');
    const byName = [...statements].filter((sql) =>
      /FROM project_symbols s JOIN project_chunk_hashes h ON h\.file_id = s\.file_id WHERE s\.(?:name|qualified_name) = \?/.test(sql),
    );
    assert.ok(byName.length > 0, 'symbols were looked up by name');
    for (const sql of byName) {
      const index = sql.includes('WHERE s.name = ?') ? 'project_symbols_name' : 'project_symbols_qualified';
      assert.ok(plan(db, sql).join(' | ').includes(`INDEX ${index}`), `${sql} uses ${index}`);
    }
    const declarations = [...statements].filter((sql) => sql.includes('FROM project_symbols s JOIN project_snippets c'));
    assert.ok(declarations.length > 0, 'declarations were looked up by name');
    for (const sql of declarations) {
      const steps = plan(db, sql).join(' | ');
      assert.match(steps, /SEARCH s USING INDEX project_symbols_(?:name|qualified)/);
      assert.match(steps, /SEARCH c USING INDEX project_snippets_symbol/);
    }
  });

  test('every index is used by some statement the session ran', () => {
    const db = engine.store.database;
    const indexes = (
      db.exec("SELECT name FROM sqlite_master WHERE type = 'index' AND name NOT LIKE 'sqlite_autoindex%'")[0]?.values ?? []
    ).map((row) => String(row[0]));
    assert.ok(indexes.length >= 4, `the schema's indexes were found (${indexes.join(', ')})`);
    const plans = [...statements]
      .filter(isStoreStatement)
      .map((sql) => plan(db, sql).join(' | '))
      .join('\n');
    assert.deepEqual(
      indexes.filter((index) => !plans.includes(` ${index} `) && !plans.includes(` ${index}\n`)),
      [],
    );
  });

  test('no cell holds hash or id text, and each indexed path is stored in one cell only', () => {
    const cells = everyCell(engine.store.database);
    assert.ok(cells.length > 200, `the tables were read (${cells.length} cells)`);
    const hexText = cells.filter((cell) => typeof cell.value === 'string' && /[0-9a-f]{32}/.test(cell.value));
    assert.deepEqual(hexText, []);
    const indexed = [...engine.store.catalog.files().values()];
    assert.equal(indexed.length, Object.keys(files).length);
    for (const file of indexed) {
      const holding = cells.filter((cell) => cellContains(cell.value, file.path)).map((cell) => cell.table);
      assert.deepEqual(holding, ['project_files'], file.path);
      // The hash is stored, as bytes: in the file's row and on its chunks, never as its hex text.
      const hashBytes = Buffer.from(file.sha256, 'hex');
      assert.ok(cells.some((cell) => cell.value instanceof Uint8Array && Buffer.from(cell.value).equals(hashBytes)));
      assert.ok(!cells.some((cell) => cellContains(cell.value, file.sha256)));
    }
    const chunks = engine.store.chunks.allCurrentSnippets();
    assert.ok(chunks.length > Object.keys(files).length, 'files have several chunks');
    assert.ok(engine.store.embeddings.count() > 0, 'the vectors are in the scan too');
  });

  test('a declaration is stored once: its fields are in project_symbols only', () => {
    const db = engine.store.database;
    const columns = (table: string) => (db.exec(`PRAGMA table_info(${table})`)[0]?.values ?? []).map((row) => String(row[1]));
    for (const field of ['name', 'qualified_name', 'kind', 'signature', 'parent']) {
      assert.ok(columns('project_symbols').includes(field), field);
      assert.ok(!columns('project_snippets').includes(field), field);
    }
    const declared = engine.store.chunks.declarationSnippets('parseCookieHeader', 'simple');
    assert.equal(declared.length, 1);
    assert.equal(declared[0].kind, 'function');
    assert.equal(declared[0].path, 'src/http/cookies.ts');
  });
});
