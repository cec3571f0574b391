import type { SqlValue } from 'sql.js';
import type { Database } from './database';
import type { FileChange, FileNames, IndexPart, SnippetRow, SymbolRow } from './fileChange';
import { blobHex, hexBlob } from './hexBlob';
import { compareText } from './textOrder';

/**
 * Chunks and symbols refer to their file by id (the path is stored once, by the file part), keep
 * hashes and ids as bytes, and a declaration's fields once, in `project_symbols`: a chunk points
 * at its symbol. A chunk's kind, parser and parser version take one of a handful of values, so
 * they are stored once each in `project_chunk_formats` and a chunk names its format. Indexes:
 * chunks by file (each file's change, its current chunks) and by symbol (declarations by name),
 * symbols by name, by qualified name and by file; nothing else is looked up by value.
 */
export const chunkTableSchema = `
CREATE TABLE project_chunk_formats(
  id INTEGER PRIMARY KEY, chunk_kind TEXT NOT NULL, parser TEXT NOT NULL, parser_version TEXT NOT NULL);
CREATE TABLE project_snippets(
  id INTEGER PRIMARY KEY, file_id INTEGER NOT NULL, stale INTEGER NOT NULL DEFAULT 0, chunk_key BLOB NOT NULL,
  file_hash BLOB NOT NULL, start_line INTEGER NOT NULL, end_line INTEGER NOT NULL, tokens INTEGER NOT NULL,
  format INTEGER NOT NULL, symbol INTEGER, imports TEXT, refs TEXT);
CREATE INDEX project_snippets_file ON project_snippets(file_id, stale);
CREATE INDEX project_snippets_symbol ON project_snippets(symbol) WHERE symbol IS NOT NULL;
CREATE TABLE project_symbols(
  id INTEGER PRIMARY KEY, file_id INTEGER NOT NULL, symbol_key BLOB NOT NULL, name TEXT NOT NULL,
  qualified_name TEXT NOT NULL, kind TEXT NOT NULL, start_line INTEGER NOT NULL, end_line INTEGER NOT NULL,
  signature TEXT, parent TEXT, file_hash BLOB NOT NULL);
CREATE INDEX project_symbols_name ON project_symbols(name);
CREATE INDEX project_symbols_qualified ON project_symbols(qualified_name);
CREATE INDEX project_symbols_file ON project_symbols(file_id);
`;

const snippetColumns = `c.id, c.chunk_key, c.file_id, c.file_hash, c.start_line, c.end_line, c.tokens, c.stale, c.format,
  s.symbol_key, s.name, s.kind, s.qualified_name, s.signature, s.parent, s.start_line, s.end_line, c.imports, c.refs`;
const snippetSource = 'project_snippets c LEFT JOIN project_symbols s ON s.id = c.symbol';

const symbolColumns = 'symbol_key, file_id, name, qualified_name, kind, start_line, end_line, signature, parent, file_hash';

interface ChunkFormat {
  chunkKind: string;
  parser: string;
  parserVersion: string;
}

function placeholders(count: number): string {
  return Array.from({ length: count }, () => '?').join(',');
}

/** Rows by path (in SQLite's text order), then in the order the query returned them within a file. */
function byPath<T extends { path: string }>(rows: T[]): T[] {
  return rows
    .map((row, index) => ({ row, index }))
    .sort((a, b) => compareText(a.row.path, b.row.path) || a.index - b.index)
    .map((entry) => entry.row);
}

/** The chunks and symbols part: each file's chunks (ranges, hashes, token estimates, declarations) and its symbols. */
export class ChunkTable implements IndexPart {
  readonly tables = ['project_chunk_formats', 'project_snippets', 'project_symbols'] as const;
  private formats: Map<number, ChunkFormat> | undefined;
  private formatIds: Map<string, number> | undefined;

  constructor(
    private readonly db: Database,
    private readonly names: FileNames,
  ) {
    db.onRollback(() => {
      this.formats = undefined;
      this.formatIds = undefined;
    });
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

  private toSnippet(row: SqlValue[]): SnippetRow {
    const format = this.loadFormats().formats.get(row[8] as number);
    const declared = row[9] !== null;
    return {
      rowid: row[0] as number,
      id: blobHex(row[1]),
      path: this.names.pathOf(row[2] as number),
      fileHash: blobHex(row[3]),
      startLine: row[4] as number,
      endLine: row[5] as number,
      tokens: row[6] as number,
      stale: row[7] === 1,
      chunkKind: format?.chunkKind ?? 'window',
      parser: format?.parser ?? '',
      parserVersion: format?.parserVersion ?? '',
      symbolId: declared ? blobHex(row[9]) : null,
      name: row[10] as string | null,
      kind: row[11] as string | null,
      qualifiedName: row[12] as string | null,
      signature: row[13] as string | null,
      parent: row[14] as string | null,
      symbolStart: row[15] as number | null,
      symbolEnd: row[16] as number | null,
      imports: row[17] as string | null,
      refs: row[18] as string | null,
    };
  }

  private toSymbol(row: SqlValue[]): SymbolRow {
    return {
      symbolId: blobHex(row[0]),
      path: this.names.pathOf(row[1] as number),
      name: row[2] as string,
      qualifiedName: row[3] as string,
      kind: row[4] as string,
      startLine: row[5] as number,
      endLine: row[6] as number,
      signature: row[7] as string | null,
      parent: row[8] as string | null,
      fileHash: blobHex(row[9]),
    };
  }

  /** Row ids of a file's current (searchable) chunks. */
  currentIds(fileId: number): number[] {
    return this.db.all('SELECT id FROM project_snippets WHERE file_id = ? AND stale = 0', [fileId]).map((row) => row[0] as number);
  }

  /**
   * A file's current rows become stale (inspectable, never searchable; their symbols go with the
   * file's symbols), older stale rows go, and the new rows are inserted; their ids go into
   * `change.chunkIds`.
   */
  replaceFile(change: FileChange): void {
    const { fileId } = change;
    this.db.run('DELETE FROM project_snippets WHERE file_id = ? AND stale = 1', [fileId]);
    // Re-indexing the same bytes (a forced rebuild) yields the same ids: those rows are replaced, not kept stale.
    if (change.file) this.db.run('DELETE FROM project_snippets WHERE file_id = ? AND file_hash = ?', [fileId, hexBlob(change.file.sha256)]);
    this.db.run('UPDATE project_snippets SET stale = 1, symbol = NULL WHERE file_id = ?', [fileId]);
    this.db.run('DELETE FROM project_symbols WHERE file_id = ?', [fileId]);
    const symbolIds = new Map<string, number>();
    for (const symbol of change.symbols) {
      this.db.run(
        'INSERT INTO project_symbols(file_id, symbol_key, name, qualified_name, kind, start_line, end_line, signature, parent, file_hash) VALUES (?,?,?,?,?,?,?,?,?,?)',
        [
          fileId,
          hexBlob(symbol.symbolId),
          symbol.name,
          symbol.qualifiedName,
          symbol.kind,
          symbol.startLine,
          symbol.endLine,
          symbol.signature,
          symbol.parent,
          hexBlob(symbol.fileHash),
        ],
      );
      symbolIds.set(symbol.symbolId, this.db.lastInsertRowid());
    }
    change.chunkIds = change.snippets.map((snippet) => {
      const format = this.formatId(snippet);
      this.db.run(
        `INSERT INTO project_snippets(file_id, stale, chunk_key, file_hash, start_line, end_line, tokens, format, symbol, imports, refs)
         VALUES (?,0,?,?,?,?,?,?,?,?,?)`,
        [
          fileId,
          hexBlob(snippet.id),
          hexBlob(snippet.fileHash),
          snippet.startLine,
          snippet.endLine,
          snippet.tokens,
          format,
          snippet.symbolId === null ? null : (symbolIds.get(snippet.symbolId) ?? null),
          snippet.imports,
          snippet.refs,
        ],
      );
      return this.db.lastInsertRowid();
    });
  }

  removeFile(change: FileChange): void {
    this.db.run('DELETE FROM project_snippets WHERE file_id = ?', [change.fileId]);
    this.db.run('DELETE FROM project_symbols WHERE file_id = ?', [change.fileId]);
  }

  currentSnippets(path: string): SnippetRow[] {
    const fileId = this.names.idOf(path);
    if (fileId === undefined) return [];
    return this.db
      .all(
        `SELECT ${snippetColumns} FROM ${snippetSource} WHERE c.file_id = ? AND c.stale = 0 ORDER BY c.start_line, c.end_line, c.chunk_key`,
        [fileId],
      )
      .map((row) => this.toSnippet(row));
  }

  /** Current snippets by row id, in the order asked (unknown or stale ids are skipped). */
  snippetsByRowid(rowids: number[]): SnippetRow[] {
    const wanted = [...new Set(rowids)].filter((rowid) => Number.isSafeInteger(rowid));
    if (wanted.length === 0) return [];
    const byRowid = new Map<number, SnippetRow>();
    for (let start = 0; start < wanted.length; start += 500) {
      const slice = wanted.slice(start, start + 500);
      const sql = `SELECT ${snippetColumns} FROM ${snippetSource} WHERE c.id IN (${placeholders(slice.length)}) AND c.stale = 0`;
      for (const row of this.db.list(sql, slice)) byRowid.set(row[0] as number, this.toSnippet(row));
    }
    return wanted.map((rowid) => byRowid.get(rowid)).filter((row): row is SnippetRow => row !== undefined);
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
    const sql = `SELECT ${snippetColumns} FROM ${snippetSource} WHERE c.stale = 0 ORDER BY c.file_id, c.start_line, c.end_line, c.chunk_key`;
    return byPath(this.db.all(sql).map((row) => this.toSnippet(row)));
  }

  /** Snippets of declarations whose qualified or simple name equals `name` (exact, case-sensitive). */
  declarationSnippets(name: string, by: 'qualified' | 'simple'): SnippetRow[] {
    const column = by === 'qualified' ? 's.qualified_name' : 's.name';
    const sql = `SELECT ${snippetColumns} FROM project_symbols s JOIN project_snippets c ON c.symbol = s.id
      WHERE ${column} = ? AND c.stale = 0 ORDER BY c.start_line, c.chunk_key`;
    return byPath(this.db.all(sql, [name]).map((row) => this.toSnippet(row)));
  }

  /** Snippets of declarations whose simple name is any of `names` (exact, case-sensitive). */
  declarationSnippetsNamed(names: string[]): SnippetRow[] {
    const unique = [...new Set(names)];
    if (unique.length === 0) return [];
    const sql = `SELECT ${snippetColumns} FROM project_symbols s JOIN project_snippets c ON c.symbol = s.id
      WHERE s.name IN (${placeholders(unique.length)}) AND c.stale = 0 ORDER BY c.start_line, c.chunk_key`;
    return byPath(this.db.all(sql, unique).map((row) => this.toSnippet(row)));
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
    const sql = `SELECT ${symbolColumns} FROM project_symbols ORDER BY file_id, start_line, qualified_name`;
    return byPath(this.db.all(sql).map((row) => this.toSymbol(row)));
  }

  /** Current declarations whose qualified or simple name equals `name` (exact, case-sensitive), by path and line. */
  symbolsNamed(name: string, by: 'qualified' | 'simple'): SymbolRow[] {
    const column = by === 'qualified' ? 'qualified_name' : 'name';
    const sql = `SELECT ${symbolColumns} FROM project_symbols WHERE ${column} = ? ORDER BY start_line, qualified_name`;
    return byPath(this.db.all(sql, [name]).map((row) => this.toSymbol(row)));
  }

  /** Current declarations of the files `paths` (at most 500 paths a call), by path and line. */
  symbolsOfPaths(paths: string[]): SymbolRow[] {
    const ids = this.fileIds([...new Set(paths)].slice(0, 500));
    if (ids.length === 0) return [];
    const sql = `SELECT ${symbolColumns} FROM project_symbols WHERE file_id IN (${placeholders(ids.length)}) ORDER BY start_line, qualified_name`;
    return byPath(this.db.list(sql, ids).map((row) => this.toSymbol(row)));
  }

  counts(): { snippets: number; staleSnippets: number; symbols: number } {
    const row = this.db.one(`SELECT (SELECT COUNT(*) FROM project_snippets WHERE stale = 0),
      (SELECT COUNT(*) FROM project_snippets WHERE stale = 1), (SELECT COUNT(*) FROM project_symbols)`) as SqlValue[];
    return { snippets: row[0] as number, staleSnippets: row[1] as number, symbols: row[2] as number };
  }
}
