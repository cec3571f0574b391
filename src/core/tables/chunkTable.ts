import type { SqlValue } from 'sql.js';
import type { Database } from './database';
import type { FileChange, IndexPart, SnippetRow, SymbolRow } from './fileChange';

export const chunkTableSchema = `
CREATE TABLE project_snippets(
  rowid INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, path TEXT NOT NULL,
  file_hash TEXT NOT NULL, start_line INTEGER NOT NULL, end_line INTEGER NOT NULL,
  tokens INTEGER NOT NULL, stale INTEGER NOT NULL DEFAULT 0, chunk_kind TEXT NOT NULL,
  parser TEXT NOT NULL, parser_version TEXT NOT NULL, symbol_id TEXT, name TEXT, kind TEXT,
  qualified_name TEXT, signature TEXT, parent TEXT, symbol_start INTEGER, symbol_end INTEGER,
  imports TEXT, refs TEXT);
CREATE INDEX project_snippets_path ON project_snippets(path, stale);
CREATE INDEX project_snippets_qualified ON project_snippets(qualified_name) WHERE qualified_name IS NOT NULL;
CREATE INDEX project_snippets_name ON project_snippets(name) WHERE name IS NOT NULL;
CREATE TABLE project_symbols(
  symbol_id TEXT PRIMARY KEY, path TEXT NOT NULL, name TEXT NOT NULL, qualified_name TEXT NOT NULL,
  kind TEXT NOT NULL, start_line INTEGER NOT NULL, end_line INTEGER NOT NULL, signature TEXT,
  parent TEXT, file_hash TEXT NOT NULL) WITHOUT ROWID;
CREATE INDEX project_symbols_qualified ON project_symbols(qualified_name);
CREATE INDEX project_symbols_name ON project_symbols(name);
CREATE INDEX project_symbols_path ON project_symbols(path);
`;

const snippetColumns =
  'rowid, id, path, file_hash, start_line, end_line, tokens, stale, chunk_kind, parser, parser_version, symbol_id, name, kind, qualified_name, signature, parent, symbol_start, symbol_end, imports, refs';

function toSnippet(row: SqlValue[]): SnippetRow {
  return {
    rowid: row[0] as number,
    id: row[1] as string,
    path: row[2] as string,
    fileHash: row[3] as string,
    startLine: row[4] as number,
    endLine: row[5] as number,
    tokens: row[6] as number,
    stale: row[7] === 1,
    chunkKind: row[8] as string,
    parser: row[9] as string,
    parserVersion: row[10] as string,
    symbolId: row[11] as string | null,
    name: row[12] as string | null,
    kind: row[13] as string | null,
    qualifiedName: row[14] as string | null,
    signature: row[15] as string | null,
    parent: row[16] as string | null,
    symbolStart: row[17] as number | null,
    symbolEnd: row[18] as number | null,
    imports: row[19] as string | null,
    refs: row[20] as string | null,
  };
}

const symbolColumns = 'symbol_id, path, name, qualified_name, kind, start_line, end_line, signature, parent, file_hash';

export function toSymbol(row: SqlValue[]): SymbolRow {
  return {
    symbolId: row[0] as string,
    path: row[1] as string,
    name: row[2] as string,
    qualifiedName: row[3] as string,
    kind: row[4] as string,
    startLine: row[5] as number,
    endLine: row[6] as number,
    signature: row[7] as string | null,
    parent: row[8] as string | null,
    fileHash: row[9] as string,
  };
}

function placeholders(count: number): string {
  return Array.from({ length: count }, () => '?').join(',');
}

/** The chunks and symbols part: each file's chunks (ranges, hashes, token estimates, declarations) and its symbols. */
export class ChunkTable implements IndexPart {
  readonly tables = ['project_snippets', 'project_symbols'] as const;

  constructor(private readonly db: Database) {}

  /** Row ids of a file's current (searchable) chunks. */
  currentIds(path: string): number[] {
    return this.db.all('SELECT rowid FROM project_snippets WHERE path = ? AND stale = 0', [path]).map((row) => row[0] as number);
  }

  /**
   * A file's current rows become stale (inspectable, never searchable), older stale rows go, and
   * the new rows are inserted; their ids go into `change.chunkIds`.
   */
  replaceFile(change: FileChange): void {
    const { path } = change;
    this.db.run('DELETE FROM project_snippets WHERE path = ? AND stale = 1', [path]);
    // Re-indexing the same bytes (a forced rebuild) yields the same ids: those rows are replaced, not kept stale.
    if (change.file) this.db.run('DELETE FROM project_snippets WHERE path = ? AND file_hash = ?', [path, change.file.sha256]);
    this.db.run('UPDATE project_snippets SET stale = 1 WHERE path = ?', [path]);
    this.db.run('DELETE FROM project_symbols WHERE path = ?', [path]);
    change.chunkIds = change.snippets.map((snippet) => {
      this.db.run(
        `INSERT INTO project_snippets(id, path, file_hash, start_line, end_line, tokens, stale, chunk_kind, parser, parser_version, symbol_id, name, kind, qualified_name, signature, parent, symbol_start, symbol_end, imports, refs)
         VALUES (?,?,?,?,?,?,0,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
        [
          snippet.id,
          snippet.path,
          snippet.fileHash,
          snippet.startLine,
          snippet.endLine,
          snippet.tokens,
          snippet.chunkKind,
          snippet.parser,
          snippet.parserVersion,
          snippet.symbolId,
          snippet.name,
          snippet.kind,
          snippet.qualifiedName,
          snippet.signature,
          snippet.parent,
          snippet.symbolStart,
          snippet.symbolEnd,
          snippet.imports,
          snippet.refs,
        ],
      );
      return this.db.lastInsertRowid();
    });
    for (const symbol of change.symbols) {
      this.db.run(
        'INSERT OR REPLACE INTO project_symbols(symbol_id, path, name, qualified_name, kind, start_line, end_line, signature, parent, file_hash) VALUES (?,?,?,?,?,?,?,?,?,?)',
        [
          symbol.symbolId,
          symbol.path,
          symbol.name,
          symbol.qualifiedName,
          symbol.kind,
          symbol.startLine,
          symbol.endLine,
          symbol.signature,
          symbol.parent,
          symbol.fileHash,
        ],
      );
    }
  }

  removeFile(change: FileChange): void {
    this.db.run('DELETE FROM project_snippets WHERE path = ?', [change.path]);
    this.db.run('DELETE FROM project_symbols WHERE path = ?', [change.path]);
  }

  currentSnippets(path: string): SnippetRow[] {
    return this.db
      .all(`SELECT ${snippetColumns} FROM project_snippets WHERE path = ? AND stale = 0 ORDER BY start_line, end_line, id`, [path])
      .map(toSnippet);
  }

  /** Current snippets by row id, in the order asked (unknown or stale ids are skipped). */
  snippetsByRowid(rowids: number[]): SnippetRow[] {
    const wanted = [...new Set(rowids)].filter((rowid) => Number.isSafeInteger(rowid));
    if (wanted.length === 0) return [];
    const byRowid = new Map<number, SnippetRow>();
    for (let start = 0; start < wanted.length; start += 500) {
      const slice = wanted.slice(start, start + 500);
      const sql = `SELECT ${snippetColumns} FROM project_snippets WHERE rowid IN (${placeholders(slice.length)}) AND stale = 0`;
      for (const row of this.db.list(sql, slice)) byRowid.set(row[0] as number, toSnippet(row));
    }
    return wanted.map((rowid) => byRowid.get(rowid)).filter((row): row is SnippetRow => row !== undefined);
  }

  /** The sorted distinct paths of the current chunks among `rowids`. */
  pathsOf(rowids: number[]): string[] {
    const paths = new Set<string>();
    for (let start = 0; start < rowids.length; start += 500) {
      const slice = rowids.slice(start, start + 500);
      const sql = `SELECT DISTINCT path FROM project_snippets WHERE rowid IN (${placeholders(slice.length)}) AND stale = 0`;
      for (const row of this.db.list(sql, slice)) paths.add(row[0] as string);
    }
    return [...paths].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  }

  snippetById(id: string): SnippetRow | undefined {
    const row = this.db.one(`SELECT ${snippetColumns} FROM project_snippets WHERE id = ?`, [id]);
    return row ? toSnippet(row) : undefined;
  }

  allCurrentSnippets(): SnippetRow[] {
    return this.db
      .all(`SELECT ${snippetColumns} FROM project_snippets WHERE stale = 0 ORDER BY path, start_line, end_line, id`)
      .map(toSnippet);
  }

  /** Snippets of declarations whose qualified or simple name equals `name` (exact, case-sensitive). */
  declarationSnippets(name: string, by: 'qualified' | 'simple'): SnippetRow[] {
    const column = by === 'qualified' ? 'qualified_name' : 'name';
    return this.db
      .all(
        `SELECT ${snippetColumns} FROM project_snippets WHERE ${column} = ? AND stale = 0 AND symbol_id IS NOT NULL ORDER BY path, start_line, id`,
        [name],
      )
      .map(toSnippet);
  }

  /** Snippets of declarations whose simple name is any of `names` (exact, case-sensitive). */
  declarationSnippetsNamed(names: string[]): SnippetRow[] {
    const unique = [...new Set(names)];
    if (unique.length === 0) return [];
    return this.db
      .all(
        `SELECT ${snippetColumns} FROM project_snippets WHERE name IN (${placeholders(unique.length)}) AND stale = 0 AND symbol_id IS NOT NULL ORDER BY path, start_line, id`,
        unique,
      )
      .map(toSnippet);
  }

  /** The import specifiers each of `paths` stored (on its first chunk), for the files that have any. */
  importsOf(paths: string[]): Map<string, string[]> {
    const unique = [...new Set(paths)];
    const imports = new Map<string, string[]>();
    for (let start = 0; start < unique.length; start += 500) {
      const slice = unique.slice(start, start + 500);
      const sql = `SELECT path, imports FROM project_snippets WHERE path IN (${placeholders(slice.length)}) AND stale = 0 AND imports IS NOT NULL`;
      for (const row of this.db.list(sql, slice)) {
        try {
          const parsed: unknown = JSON.parse(row[1] as string);
          if (Array.isArray(parsed))
            imports.set(
              row[0] as string,
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
    return this.db.all(`SELECT ${symbolColumns} FROM project_symbols ORDER BY path, start_line, qualified_name`).map(toSymbol);
  }

  /** Current declarations whose qualified or simple name equals `name` (exact, case-sensitive), by path and line. */
  symbolsNamed(name: string, by: 'qualified' | 'simple'): SymbolRow[] {
    const column = by === 'qualified' ? 'qualified_name' : 'name';
    const sql = `SELECT ${symbolColumns} FROM project_symbols WHERE ${column} = ? ORDER BY path, start_line, qualified_name`;
    return this.db.all(sql, [name]).map(toSymbol);
  }

  /** Current declarations of the files `paths` (at most 500 paths a call), by path and line. */
  symbolsOfPaths(paths: string[]): SymbolRow[] {
    const unique = [...new Set(paths)].slice(0, 500);
    if (unique.length === 0) return [];
    const sql = `SELECT ${symbolColumns} FROM project_symbols WHERE path IN (${placeholders(unique.length)}) ORDER BY path, start_line, qualified_name`;
    return this.db.list(sql, unique).map(toSymbol);
  }

  counts(): { snippets: number; staleSnippets: number; symbols: number } {
    const row = this.db.one(`SELECT (SELECT COUNT(*) FROM project_snippets WHERE stale = 0),
      (SELECT COUNT(*) FROM project_snippets WHERE stale = 1), (SELECT COUNT(*) FROM project_symbols)`) as SqlValue[];
    return { snippets: row[0] as number, staleSnippets: row[1] as number, symbols: row[2] as number };
  }
}
