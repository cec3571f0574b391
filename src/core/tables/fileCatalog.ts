import type { SqlValue } from 'sql.js';
import type { ExclusionReason } from '../exclusion/reasons';
import type { Database } from './database';
import type { FileChange, FileNames, FileRow, IndexPart } from './fileChange';
import { blobHex, hexBlob, optionalBlobHex, optionalHexBlob } from './hexBlob';
import { paddedBatches, placeholders } from './idBatches';

export interface ProjectState {
  root: string;
  gitRoot: string | null;
  branch: string | null;
  head: string | null;
  dirty: boolean;
  changedPaths: string[];
  indexedAt: number | null;
  syncMs: number | null;
  usedGit: boolean;
  boundNotes: string[];
}

/**
 * Each indexed path is stored once, here, and the other parts refer to it by `id`. No index on
 * `path`: the catalog keeps the path ↔ id map in memory (`FileNames`), so an index would only
 * store every path a second time. Hashes (`sha256`, `git_head`) are bytes.
 */
export const fileCatalogSchema = `
CREATE TABLE project_states(
  id INTEGER PRIMARY KEY CHECK (id = 1), root TEXT NOT NULL, git_root TEXT, branch TEXT, head BLOB,
  dirty INTEGER NOT NULL DEFAULT 0, changed_paths TEXT NOT NULL DEFAULT '[]', indexed_at INTEGER,
  sync_ms INTEGER, used_git INTEGER NOT NULL DEFAULT 0, bound_notes TEXT NOT NULL DEFAULT '[]');
CREATE TABLE project_files(
  id INTEGER PRIMARY KEY, path TEXT NOT NULL, sha256 BLOB NOT NULL, bytes INTEGER NOT NULL, mtime_ms INTEGER NOT NULL,
  language TEXT NOT NULL, git_head BLOB, tracked INTEGER NOT NULL, modified INTEGER NOT NULL,
  parser TEXT NOT NULL, parser_reason TEXT, indexed_at INTEGER NOT NULL);
CREATE TABLE project_exclusions(
  path TEXT PRIMARY KEY, reason TEXT NOT NULL, detail TEXT, bytes INTEGER, mtime_ms INTEGER) WITHOUT ROWID;
`;

const fileColumns = 'path, sha256, bytes, mtime_ms, language, git_head, tracked, modified, parser, parser_reason, indexed_at';

function toFile(row: SqlValue[]): FileRow {
  return {
    path: row[0] as string,
    sha256: blobHex(row[1]),
    bytes: row[2] as number,
    mtimeMs: row[3] as number,
    language: row[4] as string,
    gitHead: optionalBlobHex(row[5]),
    tracked: row[6] === 1,
    modified: row[7] === 1,
    parser: row[8] as string,
    parserReason: row[9] as string | null,
    indexedAt: row[10] as number,
  };
}

/** File rows `FileCatalog.file` keeps at most (about 300 bytes each); past it the cache starts again. */
const maxCachedRows = 16_384;

/** `text` for a LIKE pattern with `ESCAPE '\'`: its `%`, `_` and `\` match themselves. */
function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, '\\$&');
}

/**
 * A path left out, and why. `bytes` and `mtimeMs` are set when the verdict was read from the
 * file's bytes (binary, secret, empty, ...): while its size and mtime stay the same, so does the
 * verdict, and the file is not read again (as an indexed file is not).
 */
export interface StoredExclusion {
  path: string;
  reason: ExclusionReason;
  detail?: string;
  bytes?: number;
  mtimeMs?: number;
}

/** One exclusion as `exclusionsDiffer` compares them. */
function exclusionKey(exclusion: StoredExclusion): string {
  return [exclusion.path, exclusion.reason, exclusion.detail ?? '', exclusion.bytes ?? '', exclusion.mtimeMs ?? ''].join('\0');
}

/** The files part: which files are indexed (hash, size, mtime, git state, parser), which are left out and why, and the project's state row. */
export class FileCatalog implements IndexPart, FileNames {
  readonly tables = ['project_files', 'project_exclusions', 'project_states'] as const;
  private ids: Map<string, number> | undefined;
  private paths: Map<number, string> | undefined;
  /** Each file's size in bytes by path, kept with the path ↔ id map (whole-file scores read it per matching file). */
  private byteCounts: Map<string, number> | undefined;
  private sizes: { revision: number; files: number; averageBytes: number } | undefined;
  /**
   * File rows already read, by id: every search reads the rows of the files it ranks and
   * verifies, often the same ones. `writeFile` and `removeFile` drop a file's row, a rollback
   * and any other committed change (a new revision) all of them.
   */
  private rows: { revision: number; byId: Map<number, FileRow> } = { revision: -1, byId: new Map() };

  constructor(private readonly db: Database) {
    // A rolled-back insert or delete may have changed the map: it is read again when next needed.
    db.onRollback(() => {
      this.ids = undefined;
      this.paths = undefined;
      this.rows.byId.clear();
      this.byteCounts = undefined;
    });
  }

  private loadNames(): { ids: Map<string, number>; paths: Map<number, string>; bytes: Map<string, number> } {
    if (!this.ids || !this.paths || !this.byteCounts) {
      const rows = this.db.all('SELECT id, path, bytes FROM project_files');
      this.ids = new Map(rows.map((row) => [row[1] as string, row[0] as number]));
      this.paths = new Map(rows.map((row) => [row[0] as number, row[1] as string]));
      this.byteCounts = new Map(rows.map((row) => [row[1] as string, row[2] as number]));
    }
    return { ids: this.ids, paths: this.paths, bytes: this.byteCounts };
  }

  idOf(path: string): number | undefined {
    return this.loadNames().ids.get(path);
  }

  pathOf(id: number): string {
    const path = this.loadNames().paths.get(id);
    if (path === undefined) throw new Error(`no indexed file has id ${id}`);
    return path;
  }

  /** The indexed file's size in bytes, from memory (undefined for a path the index does not hold). */
  bytesOf(path: string): number | undefined {
    return this.loadNames().bytes.get(path);
  }

  /** How many files the index holds and their mean size in bytes (read once per index revision). */
  sizeStatistics(): { files: number; averageBytes: number } {
    if (this.sizes?.revision !== this.db.revision) {
      const row = this.db.one('SELECT COUNT(*), AVG(bytes) FROM project_files');
      this.sizes = { revision: this.db.revision, files: Number(row?.[0] ?? 0), averageBytes: Number(row?.[1] ?? 0) || 1 };
    }
    return this.sizes;
  }

  /** The state row of a new index. */
  initialize(root: string): void {
    this.db.run('INSERT INTO project_states(id, root) VALUES (1, ?)', [root]);
  }

  files(): Map<string, FileRow> {
    const rows = new Map<string, FileRow>();
    for (const row of this.db.all(`SELECT ${fileColumns} FROM project_files ORDER BY path`)) {
      const file = toFile(row);
      rows.set(file.path, file);
    }
    return rows;
  }

  /** The cached rows, emptied when the index changed or the cache is full. */
  private cachedRows(): Map<number, FileRow> {
    if (this.rows.revision !== this.db.revision || this.rows.byId.size >= maxCachedRows)
      this.rows = { revision: this.db.revision, byId: new Map() };
    return this.rows.byId;
  }

  /**
   * Reads the rows of those of `paths` not cached yet, up to 64 per statement, into the cache
   * `file` answers from: a search ranks candidates of a few hundred files, and one query per
   * file cost several milliseconds of a pasted text's search on the bench corpus.
   */
  prefetch(paths: Iterable<string>): void {
    const cached = this.cachedRows();
    const missing = new Set<number>();
    for (const path of paths) {
      const id = this.idOf(path);
      if (id !== undefined && !cached.has(id)) missing.add(id);
    }
    if (missing.size === 0 || cached.size + missing.size >= maxCachedRows) return;
    for (const batch of paddedBatches([...missing])) {
      for (const row of this.db.all(`SELECT id, ${fileColumns} FROM project_files WHERE id IN (${placeholders(batch.length)})`, batch))
        cached.set(row[0] as number, toFile(row.slice(1)));
    }
  }

  file(path: string): FileRow | undefined {
    const id = this.idOf(path);
    if (id === undefined) return undefined;
    const cached = this.cachedRows();
    let file = cached.get(id);
    if (!file) {
      const row = this.db.one(`SELECT ${fileColumns} FROM project_files WHERE id = ?`, [id]);
      if (!row) return undefined;
      file = toFile(row);
      cached.set(id, file);
    }
    // A copy: a caller that edits its row (sync builds the next one from it) leaves the cached one as stored.
    return { ...file };
  }

  /** Writes a file's row (a new file, new content, or only a new mtime or git state) and returns its id. */
  writeFile(file: FileRow): number {
    const names = this.loadNames();
    const known = names.ids.get(file.path);
    if (known !== undefined) this.rows.byId.delete(known);
    this.db.run(`INSERT OR REPLACE INTO project_files(id, ${fileColumns}) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)`, [
      known ?? null,
      file.path,
      hexBlob(file.sha256),
      file.bytes,
      file.mtimeMs,
      file.language,
      optionalHexBlob(file.gitHead),
      file.tracked ? 1 : 0,
      file.modified ? 1 : 0,
      file.parser,
      file.parserReason,
      file.indexedAt,
    ]);
    names.bytes.set(file.path, file.bytes);
    if (known !== undefined) return known;
    const id = this.db.lastInsertRowid();
    names.ids.set(file.path, id);
    names.paths.set(id, file.path);
    return id;
  }

  /** Writes the file's row first, so the parts after it have its id (`change.fileId`). */
  replaceFile(change: FileChange): void {
    if (change.file) change.fileId = this.writeFile(change.file);
    this.db.run('DELETE FROM project_exclusions WHERE path = ?', [change.path]);
  }

  removeFile(change: FileChange): void {
    this.rows.byId.delete(change.fileId);
    this.db.run('DELETE FROM project_files WHERE id = ?', [change.fileId]);
    const names = this.loadNames();
    names.ids.delete(change.path);
    names.paths.delete(change.fileId);
    names.bytes.delete(change.path);
  }

  /** True when `exclusions` differ from the stored ones (so a sync that changed nothing leaves the store clean). */
  exclusionsDiffer(exclusions: StoredExclusion[]): boolean {
    const stored = this.storedExclusions().map(exclusionKey);
    const unique = new Map(exclusions.map((exclusion) => [exclusion.path, exclusion]));
    const next = [...unique.values()].map(exclusionKey).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return stored.length !== next.length || stored.some((entry, index) => entry !== next[index]);
  }

  /** Every stored exclusion, by path. */
  storedExclusions(): StoredExclusion[] {
    return this.db.all('SELECT path, reason, detail, bytes, mtime_ms FROM project_exclusions ORDER BY path').map((row) => ({
      path: row[0] as string,
      reason: row[1] as ExclusionReason,
      detail: (row[2] as string | null) ?? undefined,
      bytes: (row[3] as number | null) ?? undefined,
      mtimeMs: (row[4] as number | null) ?? undefined,
    }));
  }

  writeExclusions(exclusions: StoredExclusion[]): void {
    this.db.run('DELETE FROM project_exclusions');
    for (const exclusion of exclusions) {
      this.db.run('INSERT OR REPLACE INTO project_exclusions(path, reason, detail, bytes, mtime_ms) VALUES (?,?,?,?,?)', [
        exclusion.path,
        exclusion.reason,
        exclusion.detail ?? null,
        exclusion.bytes ?? null,
        exclusion.mtimeMs ?? null,
      ]);
    }
  }

  exclusionCounts(): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const row of this.db.all('SELECT reason, COUNT(*) FROM project_exclusions GROUP BY reason ORDER BY reason'))
      counts[row[0] as string] = row[1] as number;
    return counts;
  }

  exclusion(path: string): { reason: string; detail: string | null } | undefined {
    const row = this.db.one('SELECT reason, detail FROM project_exclusions WHERE path = ?', [path]);
    return row ? { reason: row[0] as string, detail: row[1] as string | null } : undefined;
  }

  state(): ProjectState {
    const row = this.db.one(
      'SELECT root, git_root, branch, head, dirty, changed_paths, indexed_at, sync_ms, used_git, bound_notes FROM project_states WHERE id = 1',
    ) as SqlValue[];
    return {
      root: row[0] as string,
      gitRoot: row[1] as string | null,
      branch: row[2] as string | null,
      head: optionalBlobHex(row[3]),
      dirty: row[4] === 1,
      changedPaths: JSON.parse(row[5] as string) as string[],
      indexedAt: row[6] as number | null,
      syncMs: row[7] as number | null,
      usedGit: row[8] === 1,
      boundNotes: JSON.parse(row[9] as string) as string[],
    };
  }

  writeState(state: ProjectState): void {
    this.db.run(
      'UPDATE project_states SET root = ?, git_root = ?, branch = ?, head = ?, dirty = ?, changed_paths = ?, indexed_at = ?, sync_ms = ?, used_git = ?, bound_notes = ? WHERE id = 1',
      [
        state.root,
        state.gitRoot,
        state.branch,
        optionalHexBlob(state.head),
        state.dirty ? 1 : 0,
        JSON.stringify(state.changedPaths),
        state.indexedAt,
        state.syncMs,
        state.usedGit ? 1 : 0,
        JSON.stringify(state.boundNotes),
      ],
    );
  }

  /** Indexed paths equal to `directory` or under it ('' is the whole project), sorted. */
  pathsUnder(directory: string): string[] {
    if (directory === '') return this.db.all('SELECT path FROM project_files ORDER BY path').map((row) => row[0] as string);
    const rows = this.db.all("SELECT path FROM project_files WHERE path LIKE ? ESCAPE '\\' ORDER BY path", [`${escapeLike(directory)}/%`]);
    return rows.map((row) => row[0] as string);
  }

  /** Paths ending in `/tail` (at most 32, sorted). */
  pathsEndingWith(tail: string): string[] {
    return this.db
      .all("SELECT path FROM project_files WHERE path LIKE ? ESCAPE '\\' ORDER BY path LIMIT 32", [`%/${escapeLike(tail)}`])
      .map((row) => row[0] as string)
      .filter((path) => path.endsWith(`/${tail}`));
  }

  /** Paths holding `base` followed by an extension or a folder separator (at most 64, sorted): where a module may live. */
  pathsContainingModule(base: string): string[] {
    const escaped = escapeLike(base);
    return this.db
      .all("SELECT path FROM project_files WHERE path LIKE ? ESCAPE '\\' OR path LIKE ? ESCAPE '\\' ORDER BY path LIMIT 64", [
        `%${escaped}.%`,
        `%${escaped}/%`,
      ])
      .map((row) => row[0] as string);
  }

  parserCoverage(): Array<{ language: string; parser: string; reason: string | null; files: number }> {
    return this.db
      .all(
        'SELECT language, parser, parser_reason, COUNT(*) FROM project_files GROUP BY language, parser, parser_reason ORDER BY language, parser',
      )
      .map((row) => ({
        language: row[0] as string,
        parser: row[1] as string,
        reason: row[2] as string | null,
        files: row[3] as number,
      }));
  }

  counts(): { files: number; exclusions: number } {
    const row = this.db.one('SELECT (SELECT COUNT(*) FROM project_files), (SELECT COUNT(*) FROM project_exclusions)') as SqlValue[];
    return { files: row[0] as number, exclusions: row[1] as number };
  }
}
