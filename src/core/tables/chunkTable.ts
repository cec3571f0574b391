import type { SqlValue } from 'sql.js';
import type { Database } from './database';
import type { FileChange, FileNames, IndexPart, SnippetRow, SymbolRow } from './fileChange';
import { chunkIdOf, symbolIdOf } from '../hashing';
import { blobHex, hexBlob } from './hexBlob';
import { paddedBatches, placeholders } from './idBatches';
import { compareText } from './textOrder';

/**
 * Chunks and symbols refer to their file by id (the path is stored once, by the file part), keep
 * ids as bytes, a file's hash once per file (`project_chunk_hashes`: its current chunks' and its
 * stale chunks'), and a declaration's fields once, in `project_symbols`: a chunk points
 * at its symbol. A chunk's kind, parser and parser version take one of a handful of values, so
 * they are stored once each in `project_chunk_formats` and a chunk names its format. Indexes:
 * chunks by file (each file's change, its current chunks) and by symbol (declarations by name),
 * symbols by name, by qualified name and by file; nothing else is looked up by value.
 */
export const chunkTableSchema = `
CREATE TABLE project_chunk_hashes(file_id INTEGER PRIMARY KEY, current BLOB NOT NULL, previous BLOB);
CREATE TABLE project_chunk_formats(
  id INTEGER PRIMARY KEY, chunk_kind TEXT NOT NULL, parser TEXT NOT NULL, parser_version TEXT NOT NULL);
CREATE TABLE project_snippets(
  id INTEGER PRIMARY KEY, file_id INTEGER NOT NULL, stale INTEGER NOT NULL DEFAULT 0,
  start_line INTEGER NOT NULL, end_line INTEGER NOT NULL, tokens INTEGER NOT NULL,
  format INTEGER NOT NULL, symbol INTEGER, imports TEXT, refs TEXT);
CREATE INDEX project_snippets_file ON project_snippets(file_id, stale);
CREATE INDEX project_snippets_symbol ON project_snippets(symbol) WHERE symbol IS NOT NULL;
CREATE TABLE project_symbols(
  id INTEGER PRIMARY KEY, file_id INTEGER NOT NULL, name TEXT NOT NULL,
  qualified_name TEXT NOT NULL, kind TEXT NOT NULL, start_line INTEGER NOT NULL, end_line INTEGER NOT NULL,
  signature TEXT, parent TEXT);
CREATE INDEX project_symbols_name ON project_symbols(name);
CREATE INDEX project_symbols_qualified ON project_symbols(qualified_name);
CREATE INDEX project_symbols_file ON project_symbols(file_id);
`;

const snippetColumns = `c.id, NULL, c.file_id, CASE c.stale WHEN 0 THEN h.current ELSE h.previous END, c.start_line, c.end_line, c.tokens, c.stale, c.format,
  s.id, s.name, s.kind, s.qualified_name, s.signature, s.parent, s.start_line, s.end_line, c.imports, c.refs`;
const snippetSource =
  'project_snippets c JOIN project_chunk_hashes h ON h.file_id = c.file_id LEFT JOIN project_symbols s ON s.id = c.symbol';

const symbolColumns = 's.id, s.file_id, s.name, s.qualified_name, s.kind, s.start_line, s.end_line, s.signature, s.parent, h.current';
const symbolSource = 'project_symbols s JOIN project_chunk_hashes h ON h.file_id = s.file_id';

interface ChunkFormat {
  chunkKind: string;
  parser: string;
  parserVersion: string;
}

/** Rows by path (in SQLite's text order), then in the order the query returned them within a file. */
function byPath<T extends { path: string }>(rows: T[]): T[] {
  return rows
    .map((row, index) => ({ row, index }))
    .sort((a, b) => compareText(a.row.path, b.row.path) || a.index - b.index)
    .map((entry) => entry.row);
}

/** Chunks by path, first line, (with `byEnd`) last line, then id: the id is computed, so this order is kept in JavaScript. */
function chunkOrder(rows: SnippetRow[], byEnd: boolean): SnippetRow[] {
  return rows.sort(
    (a, b) => compareText(a.path, b.path) || a.startLine - b.startLine || (byEnd ? a.endLine - b.endLine : 0) || compareText(a.id, b.id),
  );
}

/**
 * A chunk's references are stored one per line rather than as JSON (a fifth of the chunk rows'
 * bytes on the bench corpus), when every name allows it; `referencesFromStored` gives the JSON back.
 */
function referencesToStored(refs: string | null): string | null {
  if (refs === null) return null;
  try {
    const names: unknown = JSON.parse(refs);
    if (
      Array.isArray(names) &&
      names.length > 0 &&
      names.every((name) => typeof name === 'string' && name.length > 0 && !name.includes('\n')) &&
      !(names[0] as string).startsWith('[')
    )
      return names.join('\n');
  } catch {
    // Not JSON: kept as it came.
  }
  return refs;
}

function referencesFromStored(stored: SqlValue): string | null {
  if (typeof stored !== 'string') return null;
  return stored.startsWith('[') ? stored : JSON.stringify(stored.split('\n'));
}

/** Rows `snippetsByRowid` keeps between requests: about 400 bytes each. */
const maxReadRows = 8192;

/** Where a row read by `toSnippet` keeps what its `id` and `refs` compute on first read: a symbol key, so spreads and JSON skip it. */
const lazyState = Symbol('lazy row state');

interface LazyRowState {
  projectId: string;
  /** The file's computed chunk ids (`FileIds.chunks`), which a computed id joins. */
  chunks: Map<number, string>;
  id: string | undefined;
  refs: string | null | undefined;
  /** The references as stored (`referencesToStored`), until `refs` first decodes them. */
  storedRefs: SqlValue;
}

type LazyRow = SnippetRow & { [lazyState]: LazyRowState };

/**
 * The accessors of a read row's lazy fields, one pair for all rows. An object literal with its
 * own getters gets new functions per object, and V8 keeps such objects as dictionaries: every
 * field read of every row (a search sorts, scores and copies hundreds) was a hash lookup. Shared
 * functions keep one hidden class for all rows. Enumerable like a literal's accessors, so a
 * spread (`{ ...snippet, ...span }`) still copies the values.
 */
const lazyRowFields = {
  id: {
    get(this: LazyRow): string {
      const lazy = this[lazyState];
      if (lazy.id === undefined) {
        lazy.id = chunkIdOf(lazy.projectId, this.path, this.fileHash, this.startLine, this.endLine, this.symbolId);
        lazy.chunks.set(this.rowid, lazy.id);
      }
      return lazy.id;
    },
    set(this: LazyRow, value: string) {
      this[lazyState].id = value;
    },
    enumerable: true,
    configurable: true,
  },
  refs: {
    get(this: LazyRow): string | null {
      const lazy = this[lazyState];
      lazy.refs ??= referencesFromStored(lazy.storedRefs);
      return lazy.refs;
    },
    set(this: LazyRow, value: string | null) {
      const lazy = this[lazyState];
      lazy.refs = value;
      lazy.storedRefs = null;
    },
    enumerable: true,
    configurable: true,
  },
} satisfies Record<'id' | 'refs', PropertyDescriptor>;

/**
 * The ids computed for one file's rows already read (`chunkIdOf` and `symbolIdOf` are a SHA-256
 * each): by chunk row id, the chunk's; by symbol row id, the declaration's.
 */
interface FileIds {
  chunks: Map<number, string>;
  symbols: Map<number, string>;
  /** The file's hash as hex, as its current rows (`stale` 0) and its stale rows (1) carry it. */
  hashes: Array<string | undefined>;
}

/** The chunks and symbols part: each file's chunks (ranges, hashes, token estimates, declarations) and its symbols. */
export class ChunkTable implements IndexPart {
  readonly tables = ['project_chunk_hashes', 'project_chunk_formats', 'project_snippets', 'project_symbols'] as const;
  private formats: Map<number, ChunkFormat> | undefined;
  private formatIds: Map<string, number> | undefined;
  /**
   * Computed ids by file id, kept like the catalog's path map: a row's id depends only on its
   * file's path and hash and the row itself, which change only through `replaceFile` and
   * `removeFile` (they drop the file's entry) or a rollback (it drops them all).
   */
  private readonly computedIds = new Map<number, FileIds>();
  /** Rows `snippetsByRowid` read since the tables last changed (see `rowsRead`). */
  private readRows: { revision: number; rows: Map<number, SnippetRow> } = { revision: -1, rows: new Map() };

  constructor(
    private readonly db: Database,
    private readonly names: FileNames,
    /** Part of every chunk and symbol id, which are computed from the row, not stored (`chunkIdOf`, `symbolIdOf`). */
    private readonly projectId: string,
  ) {
    db.onRollback(() => {
      this.formats = undefined;
      this.formatIds = undefined;
      this.computedIds.clear();
      this.readRows = { revision: -1, rows: new Map() };
    });
  }

  private idsOf(fileId: number): FileIds {
    let ids = this.computedIds.get(fileId);
    if (!ids) {
      ids = { chunks: new Map(), symbols: new Map(), hashes: [] };
      this.computedIds.set(fileId, ids);
    }
    return ids;
  }

  private loadFormats(): { formats: Map<number, ChunkFormat>; ids: Map<string, number> } {
    if (!this.formats || !this.formatIds) {
      this.formats = new Map();
      this.formatIds = new Map();
      for (const row of this.db.all('SELECT id, chunk_kind, parser, parser_version FROM project_chunk_formats')) {
        const format = { chunkKind: row[1] as string, parser: row[2] as string, parserVersion: row[3] as string };
        this.formats.set(row[0] as number, format);
        this.formatIds.set(`${format.chunkKind}\0${format.parser}\0${format.parserVersion}`, row[0] as number);
      }
    }
    return { formats: this.formats, ids: this.formatIds };
  }

  private formatId(format: ChunkFormat): number {
    const { formats, ids } = this.loadFormats();
    const key = `${format.chunkKind}\0${format.parser}\0${format.parserVersion}`;
    let id = ids.get(key);
    if (id === undefined) {
      this.db.run('INSERT INTO project_chunk_formats(chunk_kind, parser, parser_version) VALUES (?,?,?)', [
        format.chunkKind,
        format.parser,
        format.parserVersion,
      ]);
      id = this.db.lastInsertRowid();
      ids.set(key, id);
      formats.set(id, format);
    }
    return id;
  }

  /**
   * A chunk row as `SnippetRow`. Its declaration's id is computed (or taken from `computedIds`)
   * now; the chunk's own id and its references' JSON when first read: most rows a search reads
   * (a file's chunks for their members, phrase probes that fail) never need them. See
   * `lazyRowFields` for how those two are kept.
   */
  private toSnippet(row: SqlValue[]): SnippetRow {
    const format = this.loadFormats().formats.get(row[8] as number);
    const rowid = row[0] as number;
    const fileId = row[2] as number;
    const path = this.names.pathOf(fileId);
    const stale = row[7] === 1 ? 1 : 0;
    const fileIds = this.idsOf(fileId);
    const fileHash = (fileIds.hashes[stale] ??= blobHex(row[3]));
    const startLine = row[4] as number;
    const endLine = row[5] as number;
    const kind = row[11] as string | null;
    const qualifiedName = row[12] as string | null;
    const symbolStart = row[15] as number | null;
    const symbolEnd = row[16] as number | null;
    let symbolId: string | null = null;
    if (row[9] !== null && kind !== null && qualifiedName !== null && symbolStart !== null && symbolEnd !== null) {
      const symbolRowid = row[9] as number;
      symbolId = fileIds.symbols.get(symbolRowid) ?? null;
      if (symbolId === null) {
        symbolId = symbolIdOf(this.projectId, path, fileHash, { startLine: symbolStart, endLine: symbolEnd, kind, qualifiedName });
        fileIds.symbols.set(symbolRowid, symbolId);
      }
    }
    const lazy: LazyRowState = {
      projectId: this.projectId,
      chunks: fileIds.chunks,
      id: fileIds.chunks.get(rowid),
      refs: undefined,
      storedRefs: row[18],
    };
    // The fields are added in `SnippetRow`'s order, the two lazy ones through shared accessors
    // (`lazyRowFields`), so every row has the same shape (see there).
    const snippet = {} as SnippetRow;
    Object.defineProperty(snippet, lazyState, { value: lazy });
    snippet.rowid = rowid;
    Object.defineProperty(snippet, 'id', lazyRowFields.id);
    snippet.path = path;
    snippet.fileHash = fileHash;
    snippet.startLine = startLine;
    snippet.endLine = endLine;
    snippet.tokens = row[6] as number;
    snippet.stale = stale === 1;
    snippet.chunkKind = format?.chunkKind ?? 'window';
    snippet.parser = format?.parser ?? '';
    snippet.parserVersion = format?.parserVersion ?? '';
    snippet.symbolId = symbolId;
    snippet.name = row[10] as string | null;
    snippet.kind = kind;
    snippet.qualifiedName = qualifiedName;
    snippet.signature = row[13] as string | null;
    snippet.parent = row[14] as string | null;
    snippet.symbolStart = symbolStart;
    snippet.symbolEnd = symbolEnd;
    snippet.imports = row[17] as string | null;
    Object.defineProperty(snippet, 'refs', lazyRowFields.refs);
    return snippet;
  }

  private toSymbol(row: SqlValue[]): SymbolRow {
    const fileId = row[1] as number;
    const path = this.names.pathOf(fileId);
    const fileHash = blobHex(row[9]);
    const symbol = {
      name: row[2] as string,
      qualifiedName: row[3] as string,
      kind: row[4] as string,
      startLine: row[5] as number,
      endLine: row[6] as number,
    };
    const symbols = this.idsOf(fileId).symbols;
    let symbolId = symbols.get(row[0] as number);
    if (symbolId === undefined) {
      symbolId = symbolIdOf(this.projectId, path, fileHash, symbol);
      symbols.set(row[0] as number, symbolId);
    }
    return {
      symbolId,
      path,
      ...symbol,
      signature: row[7] as string | null,
      parent: row[8] as string | null,
      fileHash,
    };
  }

  /** Row ids of a file's current (searchable) chunks. */
  currentIds(fileId: number): number[] {
    return this.db.all('SELECT id FROM project_snippets WHERE file_id = ? AND stale = 0', [fileId]).map((row) => row[0] as number);
  }

  /**
   * A file's current rows become stale (inspectable, never searchable; their symbols go with the
   * file's symbols, so a stale row's computed id no longer names its declaration), older stale rows go, and the new rows are inserted; their ids go into
   * `change.chunkIds`.
   */
  replaceFile(change: FileChange): void {
    const { fileId } = change;
    this.computedIds.delete(fileId);
    const hash = hexBlob(change.file?.sha256 ?? '');
    // A file new to the index has no rows here (its id's rows left with the file that had it), so it only inserts.
    const stored = change.known ? this.db.one('SELECT current FROM project_chunk_hashes WHERE file_id = ?', [fileId])?.[0] : undefined;
    const sameBytes = stored instanceof Uint8Array && typeof hash !== 'string' && Buffer.from(stored).equals(hash);
    const hadCurrent = change.known && change.retiredChunkIds.length > 0;
    if (change.known) {
      this.db.run('DELETE FROM project_snippets WHERE file_id = ? AND stale = 1', [fileId]);
      // Re-indexing the same bytes (a forced rebuild) yields the same ids: those rows are replaced, not kept stale.
      if (sameBytes) this.db.run('DELETE FROM project_snippets WHERE file_id = ? AND stale = 0', [fileId]);
      else this.db.run('UPDATE project_snippets SET stale = 1, symbol = NULL WHERE file_id = ? AND stale = 0', [fileId]);
      this.db.run('DELETE FROM project_symbols WHERE file_id = ?', [fileId]);
    }
    // A file's chunks share its hash: stored once per file, with the hash its stale chunks had.
    this.db.run('INSERT OR REPLACE INTO project_chunk_hashes(file_id, current, previous) VALUES (?,?,?)', [
      fileId,
      hash,
      !sameBytes && hadCurrent && stored instanceof Uint8Array ? stored : null,
    ]);
    // The ids SQLite would choose (one past the largest), given here rather than asked for
    // after each row: a re-index writes tens of thousands of rows, and each question is a statement.
    const symbolIds = new Map<string, number>();
    let symbolId = change.symbols.length > 0 ? this.largestId('project_symbols') : 0;
    for (const symbol of change.symbols) {
      symbolId++;
      this.db.run(
        'INSERT INTO project_symbols(id, file_id, name, qualified_name, kind, start_line, end_line, signature, parent) VALUES (?,?,?,?,?,?,?,?,?)',
        [
          symbolId,
          fileId,
          symbol.name,
          symbol.qualifiedName,
          symbol.kind,
          symbol.startLine,
          symbol.endLine,
          symbol.signature,
          symbol.parent,
        ],
      );
      symbolIds.set(symbol.symbolId, symbolId);
    }
    let chunkId = change.snippets.length > 0 ? this.largestId('project_snippets') : 0;
    change.chunkIds = change.snippets.map((snippet) => {
      const format = this.formatId(snippet);
      chunkId++;
      this.db.run(
        `INSERT INTO project_snippets(id, file_id, stale, start_line, end_line, tokens, format, symbol, imports, refs)
         VALUES (?,?,0,?,?,?,?,?,?,?)`,
        [
          chunkId,
          fileId,
          snippet.startLine,
          snippet.endLine,
          snippet.tokens,
          format,
          snippet.symbolId === null ? null : (symbolIds.get(snippet.symbolId) ?? null),
          snippet.imports,
          referencesToStored(snippet.refs),
        ],
      );
      return chunkId;
    });
  }

  /** The largest row id of a table (0 when empty): the one before the id SQLite gives the next row. */
  private largestId(table: 'project_symbols' | 'project_snippets'): number {
    return Number(this.db.one(`SELECT max(id) FROM ${table}`)?.[0] ?? 0);
  }

  removeFile(change: FileChange): void {
    this.computedIds.delete(change.fileId);
    this.db.run('DELETE FROM project_chunk_hashes WHERE file_id = ?', [change.fileId]);
    this.db.run('DELETE FROM project_snippets WHERE file_id = ?', [change.fileId]);
    this.db.run('DELETE FROM project_symbols WHERE file_id = ?', [change.fileId]);
  }

  currentSnippets(path: string): SnippetRow[] {
    const fileId = this.names.idOf(path);
    if (fileId === undefined) return [];
    const sql = `SELECT ${snippetColumns} FROM ${snippetSource} WHERE c.file_id = ? AND c.stale = 0`;
    return chunkOrder(
      this.db.all(sql, [fileId]).map((row) => this.toSnippet(row)),
      true,
    );
  }

  /**
   * The current rows read by id since the tables last committed a change, or undefined inside a
   * transaction (its rows may yet roll back). A search reads a few hundred rows by id (its
   * full-text pool, its phrases' chunks) at about 15 µs each, and the requests of a session
   * share many: a pasted text's pool of 256 holds a third of rows read before on the bench.
   * Bounded by `maxReadRows` (a few megabytes); the rows are never changed after they are made.
   */
  private rowsRead(): Map<number, SnippetRow> | undefined {
    if (this.db.inTransaction) return undefined;
    const revision = this.db.revision;
    if (this.readRows.revision !== revision || this.readRows.rows.size >= maxReadRows) this.readRows = { revision, rows: new Map() };
    return this.readRows.rows;
  }

  /** Current snippets by row id, in the order asked (unknown or stale ids are skipped). */
  snippetsByRowid(rowids: number[]): SnippetRow[] {
    const wanted = [...new Set(rowids)].filter((rowid) => Number.isSafeInteger(rowid));
    if (wanted.length === 0) return [];
    const read = this.rowsRead();
    const byRowid = new Map<number, SnippetRow>();
    const missing = read ? wanted.filter((rowid) => !read.has(rowid)) : wanted;
    for (const slice of paddedBatches(missing)) {
      const sql = `SELECT ${snippetColumns} FROM ${snippetSource} WHERE c.id IN (${placeholders(slice.length)}) AND c.stale = 0`;
      for (const row of this.db.all(sql, slice)) {
        const snippet = this.toSnippet(row);
        byRowid.set(snippet.rowid, snippet);
        read?.set(snippet.rowid, snippet);
      }
    }
    return wanted.map((rowid) => byRowid.get(rowid) ?? read?.get(rowid)).filter((row): row is SnippetRow => row !== undefined);
  }

  /** Of the current chunks among `rowids`: each one's file and the name it declares (null for none). */
  owners(rowids: number[]): Array<{ rowid: number; path: string; name: string | null }> {
    const owners: Array<{ rowid: number; path: string; name: string | null }> = [];
    for (let start = 0; start < rowids.length; start += 500) {
      const slice = rowids.slice(start, start + 500);
      const sql = `SELECT c.id, c.file_id, s.name FROM project_snippets c LEFT JOIN project_symbols s ON s.id = c.symbol
        WHERE c.id IN (${placeholders(slice.length)}) AND c.stale = 0`;
      for (const row of this.db.list(sql, slice))
        owners.push({ rowid: row[0] as number, path: this.names.pathOf(row[1] as number), name: (row[2] as string | null) ?? null });
    }
    return owners;
  }

  /** The sorted distinct paths of the current chunks among `rowids`. */
  pathsOf(rowids: number[]): string[] {
    const paths = new Set<string>();
    for (let start = 0; start < rowids.length; start += 500) {
      const slice = rowids.slice(start, start + 500);
      const sql = `SELECT DISTINCT file_id FROM project_snippets WHERE id IN (${placeholders(slice.length)}) AND stale = 0`;
      for (const row of this.db.list(sql, slice)) paths.add(this.names.pathOf(row[0] as number));
    }
    return [...paths].sort(compareText);
  }

  allCurrentSnippets(): SnippetRow[] {
    const sql = `SELECT ${snippetColumns} FROM ${snippetSource} WHERE c.stale = 0 ORDER BY c.file_id, c.start_line, c.end_line`;
    return chunkOrder(
      this.db.all(sql).map((row) => this.toSnippet(row)),
      true,
    );
  }

  /** Snippets of declarations whose qualified or simple name equals `name` (exact, case-sensitive). */
  declarationSnippets(name: string, by: 'qualified' | 'simple'): SnippetRow[] {
    const column = by === 'qualified' ? 's.qualified_name' : 's.name';
    const sql = `SELECT ${snippetColumns} FROM project_symbols s JOIN project_snippets c ON c.symbol = s.id JOIN project_chunk_hashes h ON h.file_id = c.file_id
      WHERE ${column} = ? AND c.stale = 0 ORDER BY c.start_line`;
    return chunkOrder(
      this.db.all(sql, [name]).map((row) => this.toSnippet(row)),
      false,
    );
  }

  /** Snippets of declarations whose simple name is any of `names` (exact, case-sensitive). */
  declarationSnippetsNamed(names: string[]): SnippetRow[] {
    const unique = [...new Set(names)];
    if (unique.length === 0) return [];
    const sql = `SELECT ${snippetColumns} FROM project_symbols s JOIN project_snippets c ON c.symbol = s.id JOIN project_chunk_hashes h ON h.file_id = c.file_id
      WHERE s.name IN (${placeholders(unique.length)}) AND c.stale = 0 ORDER BY c.start_line`;
    return chunkOrder(
      this.db.all(sql, unique).map((row) => this.toSnippet(row)),
      false,
    );
  }

  /** The ids of those of `paths` that are indexed. */
  private fileIds(paths: string[]): number[] {
    return [...new Set(paths)].map((path) => this.names.idOf(path)).filter((id): id is number => id !== undefined);
  }

  /** The import specifiers each of `paths` stored (on its first chunk), for the files that have any. */
  importsOf(paths: string[]): Map<string, string[]> {
    const ids = this.fileIds(paths);
    const imports = new Map<string, string[]>();
    for (let start = 0; start < ids.length; start += 500) {
      const slice = ids.slice(start, start + 500);
      const sql = `SELECT file_id, imports FROM project_snippets WHERE file_id IN (${placeholders(slice.length)}) AND stale = 0 AND imports IS NOT NULL`;
      for (const row of this.db.list(sql, slice)) {
        try {
          const parsed: unknown = JSON.parse(row[1] as string);
          if (Array.isArray(parsed))
            imports.set(
              this.names.pathOf(row[0] as number),
              parsed.filter((item): item is string => typeof item === 'string'),
            );
        } catch {
          // A malformed list is treated as no imports: the file's references are then name matches.
        }
      }
    }
    return imports;
  }

  symbols(): SymbolRow[] {
    const sql = `SELECT ${symbolColumns} FROM ${symbolSource} ORDER BY s.file_id, s.start_line, s.qualified_name`;
    return byPath(this.db.all(sql).map((row) => this.toSymbol(row)));
  }

  /** Current declarations whose qualified or simple name equals `name` (exact, case-sensitive), by path and line. */
  symbolsNamed(name: string, by: 'qualified' | 'simple'): SymbolRow[] {
    const column = by === 'qualified' ? 's.qualified_name' : 's.name';
    const sql = `SELECT ${symbolColumns} FROM ${symbolSource} WHERE ${column} = ? ORDER BY s.start_line, s.qualified_name`;
    return byPath(this.db.all(sql, [name]).map((row) => this.toSymbol(row)));
  }

  /** Current declarations of the files `paths` (at most 500 paths a call), by path and line. */
  symbolsOfPaths(paths: string[]): SymbolRow[] {
    const ids = this.fileIds([...new Set(paths)].slice(0, 500));
    if (ids.length === 0) return [];
    const sql = `SELECT ${symbolColumns} FROM ${symbolSource} WHERE s.file_id IN (${placeholders(ids.length)}) ORDER BY s.start_line, s.qualified_name`;
    return byPath(this.db.list(sql, ids).map((row) => this.toSymbol(row)));
  }

  counts(): { snippets: number; staleSnippets: number; symbols: number } {
    const row = this.db.one(`SELECT (SELECT COUNT(*) FROM project_snippets WHERE stale = 0),
      (SELECT COUNT(*) FROM project_snippets WHERE stale = 1), (SELECT COUNT(*) FROM project_symbols)`) as SqlValue[];
    return { snippets: row[0] as number, staleSnippets: row[1] as number, symbols: row[2] as number };
  }
}
