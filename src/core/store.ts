import type { Database, SqlJsStatic, SqlValue, Statement } from 'sql.js';
import { ColumnLengths } from './columnLengths';
import { CommonTermCounts, commonTermsSchema, documentCount } from './commonTerms';
import {
  acquireLock,
  currentIdentity,
  notOurDatabase,
  pauseForTests,
  readDatabaseFile,
  sweepTemporaryFiles,
  withLock,
  writeDatabaseFile,
  type FileIdentity,
} from './databaseFile';
import type { ExclusionReason } from './exclusion/reasons';
import type { EnginePorts } from './ports';
import { declareRowFunction, loadSqlite, withRowFunction } from './sqlite';
import { nodeDatabaseFileIo } from './storage/fileIo';
import { loadDatabase, nextGeneration, PagePersistence, type SaveReport } from './storage/pagedPersistence';
import { MemoryFile } from './storage/wasmFiles';
import { buildVocabulary, decodeWords, encodeWords, readVarints } from './termCodes';

/**
 * Bumped whenever the tables change, or the exclusion rules widen (3: more secret formats and
 * secretlint), so rows admitted by older rules go; an older file is discarded and rebuilt, never migrated.
 */
export const schemaVersion = 3;

/**
 * The meta row that marks a SQLite file as a Project Knowledge index, so `--db` replaces only
 * files that are ours (see `ownership`). Indexes written before it have no such row.
 */
const productKey = 'product';
const productName = 'project-knowledge';

/** How long a writer waits for another one's lock by default. */
const defaultLockTimeoutMs = 120_000;

const schema = `
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE project_states(
  id INTEGER PRIMARY KEY CHECK (id = 1), root TEXT NOT NULL, git_root TEXT, branch TEXT, head TEXT,
  dirty INTEGER NOT NULL DEFAULT 0, changed_paths TEXT NOT NULL DEFAULT '[]', indexed_at INTEGER,
  sync_ms INTEGER, used_git INTEGER NOT NULL DEFAULT 0, bound_notes TEXT NOT NULL DEFAULT '[]');
CREATE TABLE project_files(
  path TEXT PRIMARY KEY, sha256 TEXT NOT NULL, bytes INTEGER NOT NULL, mtime_ms INTEGER NOT NULL,
  language TEXT NOT NULL, git_head TEXT, tracked INTEGER NOT NULL, modified INTEGER NOT NULL,
  parser TEXT NOT NULL, parser_reason TEXT, indexed_at INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE project_exclusions(path TEXT PRIMARY KEY, reason TEXT NOT NULL, detail TEXT) WITHOUT ROWID;
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
CREATE TABLE search_terms(docid INTEGER PRIMARY KEY, body TEXT NOT NULL, path TEXT NOT NULL, idents TEXT NOT NULL);
CREATE TABLE search_vocabulary(path TEXT PRIMARY KEY, words TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE search_codes(docid INTEGER PRIMARY KEY, path TEXT NOT NULL, body BLOB NOT NULL, idents BLOB NOT NULL);
CREATE VIRTUAL TABLE search_index USING fts4(content="search_terms", body, path, idents, tokenize=unicode61 "tokenchars=_");
CREATE TABLE derived_embeddings(
  source_key TEXT NOT NULL, source_hash TEXT NOT NULL, chunking_version TEXT NOT NULL,
  provider TEXT NOT NULL, model TEXT NOT NULL, dimensions INTEGER NOT NULL, vector BLOB NOT NULL,
  PRIMARY KEY (source_key, source_hash, chunking_version, provider, model, dimensions)) WITHOUT ROWID;
`;

export interface FileRow {
  path: string;
  sha256: string;
  bytes: number;
  mtimeMs: number;
  language: string;
  gitHead: string | null;
  tracked: boolean;
  modified: boolean;
  parser: string;
  parserReason: string | null;
  indexedAt: number;
}

export interface SnippetRow {
  rowid: number;
  id: string;
  path: string;
  fileHash: string;
  startLine: number;
  endLine: number;
  tokens: number;
  stale: boolean;
  chunkKind: string;
  parser: string;
  parserVersion: string;
  symbolId: string | null;
  name: string | null;
  kind: string | null;
  qualifiedName: string | null;
  signature: string | null;
  parent: string | null;
  symbolStart: number | null;
  symbolEnd: number | null;
  imports: string | null;
  refs: string | null;
}

/**
 * A chunk to insert. `indexText` is the chunk's source: it goes into the full-text index (for
 * positions and term frequencies) but is not stored; `terms.words` is what is stored, the
 * distinct words FTS4 needs to delete the row later.
 */
export type NewSnippet = Omit<SnippetRow, 'rowid' | 'stale'> & { indexText: string; terms: { words: string; identifierParts: string } };

export interface SymbolRow {
  symbolId: string;
  path: string;
  name: string;
  qualifiedName: string;
  kind: string;
  startLine: number;
  endLine: number;
  signature: string | null;
  parent: string | null;
  fileHash: string;
}

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

export interface StoreOpenOptions {
  /** How long a save waits for another writer's lock before failing (default two minutes). */
  lockTimeoutMs?: number;
}

export interface OpenResult {
  store: IndexStore;
  /** Set when a stored file existed but could not be used, saying why it was discarded. */
  discardedReason?: string;
  loaded: boolean;
}

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

function toFile(row: SqlValue[]): FileRow {
  return {
    path: row[0] as string,
    sha256: row[1] as string,
    bytes: row[2] as number,
    mtimeMs: row[3] as number,
    language: row[4] as string,
    gitHead: row[5] as string | null,
    tracked: row[6] === 1,
    modified: row[7] === 1,
    parser: row[8] as string,
    parserReason: row[9] as string | null,
    indexedAt: row[10] as number,
  };
}

const fileColumns = 'path, sha256, bytes, mtime_ms, language, git_head, tracked, modified, parser, parser_reason, indexed_at';

/**
 * The SQLite projection of one project. It owns every table; sync decides what changes and
 * calls the per-file operations here, each in its own transaction.
 */
export class IndexStore {
  /** The schema this store writes (for health, which must not import this module's values). */
  readonly schemaVersion = schemaVersion;
  private statements = new Map<string, Statement>();
  private dirtySincePersist = false;
  private revisionCounter = 0;

  /** Token counts per full-text column of every row, for ranking (see `rankFullText`). */
  private readonly columnLengths: ColumnLengths;
  /** Chunk counts of the common words, for ranking (see `commonTermCounts`). */
  private readonly commonTerms: CommonTermCounts;

  /** What the database path held when this store read or last wrote it (see `persist`). */
  private diskIdentity: FileIdentity = 'missing';
  private superseded = false;
  private lockTimeoutMs = defaultLockTimeoutMs;
  /** Page-level saves of sql.js's file (storage/); undefined where its file calls are unknown: whole exports. */
  private persistence: PagePersistence | undefined;
  /** How the last save wrote (for the benchmark and tests). */
  lastSave: SaveReport | undefined;

  private constructor(
    private readonly SQL: SqlJsStatic,
    private db: Database,
    readonly dbPath: string | undefined,
    private readonly ports: EnginePorts,
  ) {
    this.columnLengths = new ColumnLengths(db, fullTextWeights.length);
    this.commonTerms = new CommonTermCounts(db);
  }

  /**
   * Opens the stored index for `root`, or a fresh one when the file is missing, empty, or an
   * index of ours that is corrupt, stale in schema or of another root. Anything else at `dbPath`
   * (another program's SQLite database, a text file, a symbolic link, a directory, a device or
   * FIFO, a SQLite file too damaged to tell) is refused with `DatabaseRefusedError` and never
   * written. Temporary files a killed save left behind are removed first.
   */
  static async open(dbPath: string | undefined, root: string, ports: EnginePorts, options: StoreOpenOptions = {}): Promise<OpenResult> {
    const SQL = await loadSqlite();
    let discardedReason: string | undefined;
    let identity: FileIdentity = 'missing';
    const lockTimeoutMs = options.lockTimeoutMs ?? defaultLockTimeoutMs;
    const io = ports.databaseFiles ?? nodeDatabaseFileIo;
    let persistence: PagePersistence | undefined;
    const opened = (store: IndexStore) => {
      store.diskIdentity = identity;
      store.lockTimeoutMs = lockTimeoutMs;
      store.persistence = persistence ?? store.attachFile(io);
      return store;
    };
    if (dbPath) {
      let db: Database | undefined;
      if (MemoryFile.available) {
        // Streamed into sql.js's file in pieces, a journal of an interrupted save finished first.
        const loaded = await loadDatabase(SQL, dbPath, io, { timeoutMs: lockTimeoutMs, log: ports.log });
        ({ identity, db, persistence } = loaded);
      } else {
        const contents = await readDatabaseFile(dbPath);
        identity = contents.identity;
        db = contents.bytes ? new SQL.Database(contents.bytes) : undefined;
      }
      const owned = db ? ownership(db) : true;
      if (owned !== true) {
        persistence?.close();
        db?.close();
        throw notOurDatabase(dbPath, owned);
      }
      // Only beside a path that is ours: a refused one gets no lock file either.
      await sweepAtOpen(dbPath, ports);
      if (db) {
        try {
          checkIntegrity(db);
          const version = metaValue(db, 'schema_version');
          if (version !== String(schemaVersion)) throw new Error(`schema version ${String(version)} is not ${schemaVersion}`);
          const storedRoot = metaValue(db, 'root');
          if (storedRoot !== root) throw new Error(`it belongs to another folder (${String(storedRoot)})`);
          // Indexes written before the product row get it with their next write.
          db.run('INSERT OR IGNORE INTO meta(key, value) VALUES (?, ?)', [productKey, productName]);
          const store = opened(new IndexStore(SQL, db, dbPath, ports));
          store.configure();
          return { store, loaded: true };
        } catch (error) {
          persistence?.close();
          persistence = undefined;
          db.close();
          const why = error instanceof Error ? error.message : String(error);
          discardedReason = `The stored index ${dbPath} was discarded and will be rebuilt: ${why}`;
          ports.log.warn(discardedReason);
        }
      }
    }
    const db = new SQL.Database();
    // Free pages are given back by `incremental_vacuum` at a save (see `persist`): a VACUUM would
    // build a whole copy of the database in the WebAssembly heap, which never shrinks again.
    db.exec('PRAGMA auto_vacuum = INCREMENTAL');
    db.exec(schema);
    const store = opened(new IndexStore(SQL, db, dbPath, ports));
    store.configure();
    const meta = [productKey, productName, 'schema_version', String(schemaVersion), 'root', root];
    store.run('INSERT INTO meta(key, value) VALUES (?, ?), (?, ?), (?, ?)', meta);
    store.run('INSERT INTO project_states(id, root) VALUES (1, ?)', [root]);
    store.dirtySincePersist = true;
    return { store, discardedReason, loaded: false };
  }

  /** Tracks a database this store created (not read from disk): its first save writes the whole file. */
  private attachFile(io: typeof nodeDatabaseFileIo): PagePersistence | undefined {
    const file = MemoryFile.attach(this.db);
    return file ? new PagePersistence(file, io, this.ports.log) : undefined;
  }

  private configure(): void {
    // Deleted rows are zeroed so nothing removed from the index lingers in free pages. The
    // connection is the file's only user, so it holds the lock and keeps its page cache between
    // transactions. The database file is itself in memory (sql.js's file system), so a page the
    // cache lacks costs a copy, not a disk read: 32 MB of cache instead of 256 MB held the
    // 5,000-file bench's peak WebAssembly heap down (it never shrinks), and the rollback journal
    // is a file there too (JavaScript memory, freed when the transaction ends) instead of
    // SQLite's memory journal in that heap (see `fitJournal`).
    this.db.exec(
      'PRAGMA secure_delete = ON; PRAGMA foreign_keys = OFF; PRAGMA journal_mode = TRUNCATE; PRAGMA synchronous = OFF; PRAGMA temp_store = MEMORY; PRAGMA cache_size = -32768; PRAGMA locking_mode = EXCLUSIVE;',
    );
    this.journal = 'truncate';
    // The same tokenizer as the index, to count tokens exactly (see dropSearchRows).
    this.db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.pk_tokenizer USING fts3tokenize('unicode61', 'tokenchars=_')`);
    // Added after schema 2 without a rebuild: an index without it builds it at its next sync.
    this.db.exec(commonTermsSchema);
    // bm25 inside SQLite, so ranking a full-text query does not copy every matching row out.
    const counts = (info: unknown) =>
      info instanceof Uint8Array ? new Uint32Array(info.buffer, info.byteOffset, info.byteLength >>> 2) : undefined;
    this.db.create_function('pk_bm25', (info: unknown) => {
      const values = counts(info);
      return values ? bm25(values, fullTextWeights) : 0;
    });
    declareRowFunction(this.SQL, this.db);
  }

  private journal: 'memory' | 'truncate' = 'memory';

  /**
   * SQLite's memory journal lives in the WebAssembly heap (2 GB with the page cache), and one
   * FTS4 merge in a large index journals every page it frees (secure_delete zeroes them); a
   * 50,000-file cold index ran out of memory. Past `fileJournalBytes` the journal becomes a file
   * in sql.js's in-memory file system (JavaScript memory), slower but unbounded. Called outside
   * transactions only.
   */
  private fitJournal(): void {
    const bytes = this.byteSize();
    const wanted = bytes > fileJournalBytes ? 'truncate' : 'memory';
    if (wanted === this.journal) return;
    this.db.exec(`PRAGMA journal_mode = ${wanted.toUpperCase()}`);
    this.journal = wanted;
  }

  private statement(sql: string): Statement {
    let prepared = this.statements.get(sql);
    if (!prepared) {
      prepared = this.db.prepare(sql);
      this.statements.set(sql, prepared);
    }
    return prepared;
  }

  private run(sql: string, params: SqlValue[] = []): void {
    const prepared = this.statement(sql);
    prepared.run(params);
  }

  private all(sql: string, params: SqlValue[] = []): SqlValue[][] {
    const prepared = this.statement(sql);
    prepared.bind(params);
    const rows: SqlValue[][] = [];
    try {
      while (prepared.step()) rows.push(prepared.get());
    } finally {
      prepared.reset();
    }
    return rows;
  }

  private one(sql: string, params: SqlValue[] = []): SqlValue[] | undefined {
    return this.all(sql, params)[0];
  }

  private batchDepth = 0;

  /**
   * One file's change is atomic: on its own it is a transaction; inside `batch` it is a
   * savepoint, so a failing file rolls back alone while the batch commits the others.
   */
  private transaction<T>(work: () => T): T {
    const nested = this.batchDepth > 0;
    if (!nested) this.fitJournal();
    this.db.exec(nested ? 'SAVEPOINT file_change' : 'BEGIN');
    try {
      const result = work();
      this.commonTerms.flush();
      this.db.exec(nested ? 'RELEASE file_change' : 'COMMIT');
      this.dirtySincePersist = true;
      this.revisionCounter++;
      return result;
    } catch (error) {
      this.db.exec(nested ? 'ROLLBACK TO file_change; RELEASE file_change' : 'ROLLBACK');
      this.commonTerms.reset();
      throw error;
    }
  }

  /**
   * Groups many per-file changes into one outer transaction. FTS4 flushes its pending terms
   * once per commit, so committing per batch instead of per file avoids thousands of tiny
   * index segments and their merges.
   */
  async batch<T>(work: () => Promise<T>): Promise<T> {
    if (this.batchDepth > 0) return work();
    this.fitJournal();
    this.db.exec('BEGIN');
    this.batchDepth++;
    try {
      const result = await work();
      this.batchDepth--;
      this.commonTerms.flush();
      this.db.exec('COMMIT');
      return result;
    } catch (error) {
      this.batchDepth--;
      this.db.exec('ROLLBACK');
      this.commonTerms.reset();
      throw error;
    }
  }

  /** Merges the full-text index into one segment: smaller and faster to query. */
  optimizeSearchIndex(): void {
    this.fitJournal();
    this.db.exec("INSERT INTO search_index(search_index) VALUES ('optimize')");
    this.dirtySincePersist = true;
  }

  /** True when the common words' counts are not kept (a large sync, or never built); see `refreshCommonTerms`. */
  get commonTermsStale(): boolean {
    return this.commonTerms.stale;
  }

  /** Rebuilds the common words' counts (one pass over the index) when they are stale, or now with another `floor` (tests keep every word with 1). */
  refreshCommonTerms(floor?: number): void {
    if (floor === undefined && !this.commonTerms.stale) return;
    this.fitJournal();
    this.commonTerms.refresh(floor);
    this.dirtySincePersist = true;
    this.revisionCounter++;
  }

  /** Stored chunk counts per full-text column for those of `terms` (bare tokens) that are common. */
  commonTermCounts(terms: string[]): Map<string, number[]> {
    return this.commonTerms.counts(terms, fullTextWeights.length);
  }

  /** Rows in the full-text index. */
  documentCount(): number {
    return documentCount(this.db);
  }

  /** Declares the on-disk copy current although the state row changed (only its timestamps did). */
  keepPersisted(): void {
    this.dirtySincePersist = false;
  }

  /** For owners of their own tables (vectors) that write through `database`. */
  markChanged(): void {
    this.dirtySincePersist = true;
    this.revisionCounter++;
  }

  /** Grows with every committed change; caches derived from the tables (vectors) compare it. */
  get revision(): number {
    return this.revisionCounter;
  }

  get needsPersist(): boolean {
    return this.dirtySincePersist;
  }

  /**
   * True once a save found that the file changed since this store read or wrote it: another
   * process wrote its own index there. Nothing was written; the engine reloads and syncs again.
   */
  get supersededOnDisk(): boolean {
    return this.superseded;
  }

  /**
   * Writes the database atomically (temp file + rename) under the writers' lock, and only if the
   * file is still the one this store read or last wrote: false (nothing written, the changes kept
   * in memory) when another writer replaced it meanwhile, so no one's update is silently lost.
   */
  async persist(): Promise<boolean> {
    if (!this.dbPath || !this.dirtySincePersist) return true;
    const dbPath = this.dbPath;
    if ((await currentIdentity(dbPath)) !== this.diskIdentity) return this.markSuperseded();
    // Free pages (zeroed by secure_delete) would otherwise be written out; compact when they are
    // many. VACUUM builds its copy in the WebAssembly heap, so a very large index keeps its free
    // pages for later writes instead.
    const pages = this.db.exec('PRAGMA page_count')[0].values[0][0] as number;
    const free = this.db.exec('PRAGMA freelist_count')[0].values[0][0] as number;
    const pageSize = this.db.exec('PRAGMA page_size')[0].values[0][0] as number;
    const incremental = this.db.exec('PRAGMA auto_vacuum')[0].values[0][0] === 2;
    if (free > 64 && free * 10 > pages && incremental) {
      // Moves pages from the end into the free ones and truncates: no copy of the database.
      this.db.exec('PRAGMA incremental_vacuum');
    } else if (free > 64 && free * 10 > pages && pages * pageSize <= maxVacuumBytes) {
      this.clearStatements();
      this.fitJournal();
      this.db.exec('VACUUM');
      this.configure();
    }
    const persistence = this.persistence;
    // Whole exports (only where sql.js's file calls are unknown) are taken before the lock.
    if (persistence) nextGeneration(this.db);
    const bytes = persistence ? undefined : this.exportBytes();
    await pauseForTests('before-lock');
    const written = await withLock(dbPath, { timeoutMs: this.lockTimeoutMs, log: this.ports.log }, async (lock) => {
      await sweepTemporaryFiles(dbPath, this.ports.log);
      // A save that died in place is finished (or undone) before anything else reads or writes.
      await persistence?.recover(dbPath);
      // Checked again under the lock: no other writer can rename between this check and ours.
      if ((await currentIdentity(dbPath)) !== this.diskIdentity) return false;
      if (persistence) this.lastSave = await persistence.save(dbPath, this.diskIdentity, lock);
      else await writeDatabaseFile(dbPath, bytes as Uint8Array, lock, this.ports.databaseFiles);
      this.diskIdentity = await currentIdentity(dbPath);
      return true;
    });
    if (!written) return this.markSuperseded();
    this.dirtySincePersist = false;
    return true;
  }

  private markSuperseded(): false {
    this.superseded = true;
    this.ports.log.info(`The index ${this.dbPath} was written by another process since it was read; this copy was not saved over it.`);
    return false;
  }

  /** The database file's bytes. */
  exportBytes(): Uint8Array {
    if (this.persistence) return this.persistence.bytes();
    // export() frees prepared statements and resets pragmas, so both are rebuilt afterwards.
    this.clearStatements();
    const bytes = this.db.export();
    this.configure();
    return bytes;
  }

  private clearStatements(): void {
    for (const prepared of this.statements.values()) prepared.free();
    this.statements.clear();
  }

  close(): void {
    this.clearStatements();
    this.persistence?.close();
    this.db.close();
  }

  byteSize(): number {
    const pageCount = this.db.exec('PRAGMA page_count')[0].values[0][0] as number;
    const pageSize = this.db.exec('PRAGMA page_size')[0].values[0][0] as number;
    return pageCount * pageSize;
  }

  // ---- files -------------------------------------------------------------------------------

  files(): Map<string, FileRow> {
    const rows = new Map<string, FileRow>();
    for (const row of this.all(`SELECT ${fileColumns} FROM project_files`)) {
      const file = toFile(row);
      rows.set(file.path, file);
    }
    return rows;
  }

  file(path: string): FileRow | undefined {
    const row = this.one(`SELECT ${fileColumns} FROM project_files WHERE path = ?`, [path]);
    return row ? toFile(row) : undefined;
  }

  /** Updates what changed about a file whose content did not (mtime, git state). */
  touchFile(file: FileRow): void {
    this.transaction(() => this.writeFileRow(file));
  }

  private writeFileRow(file: FileRow): void {
    this.run(`INSERT OR REPLACE INTO project_files(${fileColumns}) VALUES (?,?,?,?,?,?,?,?,?,?,?)`, [
      file.path,
      file.sha256,
      file.bytes,
      file.mtimeMs,
      file.language,
      file.gitHead,
      file.tracked ? 1 : 0,
      file.modified ? 1 : 0,
      file.parser,
      file.parserReason,
      file.indexedAt,
    ]);
  }

  /**
   * Deletes chunks from the full-text index. FTS4 re-tokenizes the stored row to know which
   * entries to delete and subtracts its token count from the column totals bm25 relies on; the
   * stored row holds each distinct word once, so it is padded with a filler word up to the
   * chunk's real token count (from `search_index_docsize`) to keep those totals exact.
   */
  private dropSearchRows(path: string, rowids: number[]): void {
    if (rowids.length === 0) return;
    const vocabulary = ((this.one('SELECT words FROM search_vocabulary WHERE path = ?', [path])?.[0] as string | undefined) ?? '').split(
      ' ',
    );
    for (const rowid of rowids) {
      const stored = this.one(
        'SELECT c.body, c.idents, d.size FROM search_codes c JOIN search_index_docsize d ON d.docid = c.docid WHERE c.docid = ?',
        [rowid],
      );
      if (stored) {
        const words = decodeWords(stored[0] as Uint8Array, vocabulary);
        const identifiers = decodeWords(stored[1] as Uint8Array, vocabulary);
        const indexedTokens = readVarints(stored[2] as Uint8Array)[0] ?? 0;
        const storedTokens = this.one('SELECT COUNT(*) FROM temp.pk_tokenizer WHERE input = ?', [words])?.[0] as number;
        const body = indexedTokens > storedTokens ? `${words}${' pkpad'.repeat(indexedTokens - storedTokens)}` : words;
        // The words exist as a row only for this delete: FTS4 reads them to know what to remove.
        this.run('INSERT OR REPLACE INTO search_terms(docid, body, path, idents) VALUES (?,?,?,?)', [
          rowid,
          body,
          pathTerms(path),
          identifiers,
        ]);
        this.run('DELETE FROM search_index WHERE docid = ?', [rowid]);
        this.columnLengths.touch(rowid);
        this.commonTerms.adjust([words, pathTerms(path), identifiers], -1);
        this.run('DELETE FROM search_terms WHERE docid = ?', [rowid]);
      }
      this.run('DELETE FROM search_codes WHERE docid = ?', [rowid]);
    }
  }

  /**
   * Replaces one file's chunks in one transaction: its current rows become stale (inspectable,
   * never searchable), older stale rows go, and the new rows are inserted.
   */
  replaceFile(file: FileRow, snippets: NewSnippet[], symbols: SymbolRow[]): void {
    this.transaction(() => {
      const current = this.all('SELECT rowid FROM project_snippets WHERE path = ? AND stale = 0', [file.path]).map(
        (row) => row[0] as number,
      );
      this.dropSearchRows(file.path, current);
      this.run('DELETE FROM project_snippets WHERE path = ? AND stale = 1', [file.path]);
      // Re-indexing the same bytes (a forced rebuild) yields the same ids: those rows are replaced, not kept stale.
      this.run('DELETE FROM project_snippets WHERE path = ? AND file_hash = ?', [file.path, file.sha256]);
      this.run('UPDATE project_snippets SET stale = 1 WHERE path = ?', [file.path]);
      this.run('DELETE FROM project_symbols WHERE path = ?', [file.path]);
      // Vectors of this file's older content go; vectors of its current hash (and of every other file) stay.
      this.deleteEmbeddings(file.path, file.sha256);
      this.writeFileRow(file);
      const vocabulary = buildVocabulary(snippets.flatMap((snippet) => [snippet.terms.words, snippet.terms.identifierParts]));
      const positions = new Map(vocabulary.map((word, index) => [word, index]));
      this.run('INSERT OR REPLACE INTO search_vocabulary(path, words) VALUES (?, ?)', [file.path, vocabulary.join(' ')]);
      const pathText = pathTerms(file.path);
      for (const snippet of snippets) {
        this.run(
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
        const rowid = this.db.exec('SELECT last_insert_rowid()')[0].values[0][0] as number;
        this.run('INSERT INTO search_codes(docid, path, body, idents) VALUES (?,?,?,?)', [
          rowid,
          file.path,
          encodeWords(snippet.terms.words, positions),
          encodeWords(snippet.terms.identifierParts, positions),
        ]);
        this.run('INSERT INTO search_index(docid, body, path, idents) VALUES (?,?,?,?)', [
          rowid,
          snippet.indexText,
          pathText,
          snippet.terms.identifierParts,
        ]);
        this.columnLengths.touch(rowid);
        this.commonTerms.adjust([snippet.indexText, pathText, snippet.terms.identifierParts], 1);
      }
      for (const symbol of symbols) {
        this.run(
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
      this.run('DELETE FROM project_exclusions WHERE path = ?', [file.path]);
    });
  }

  /** Removes every row of a file: deleted, newly excluded or newly secret files leave no trace. */
  removeFile(path: string): void {
    this.transaction(() => {
      const rowids = this.all('SELECT rowid FROM project_snippets WHERE path = ? AND stale = 0', [path]).map((row) => row[0] as number);
      this.dropSearchRows(path, rowids);
      this.run('DELETE FROM search_vocabulary WHERE path = ?', [path]);
      this.run('DELETE FROM project_snippets WHERE path = ?', [path]);
      this.run('DELETE FROM project_symbols WHERE path = ?', [path]);
      this.run('DELETE FROM project_files WHERE path = ?', [path]);
      this.deleteEmbeddings(path);
    });
  }

  /**
   * Removes the vectors of one file (keys are `path#L<start>-L<end>`), all of them or only those
   * of other hashes than `keepHash`. A key range, so it uses the primary key; the `#` check
   * keeps `a.ts#b.ts`-style names of other files out.
   */
  private deleteEmbeddings(path: string, keepHash?: string): void {
    const where = "source_key >= ? AND source_key < ? AND instr(substr(source_key, ?), '#') = 0";
    if (keepHash === undefined) this.run(`DELETE FROM derived_embeddings WHERE ${where}`, [`${path}#`, `${path}$`, [...path].length + 2]);
    else
      this.run(`DELETE FROM derived_embeddings WHERE ${where} AND source_hash <> ?`, [
        `${path}#`,
        `${path}$`,
        [...path].length + 2,
        keepHash,
      ]);
  }

  replaceExclusions(exclusions: Array<{ path: string; reason: ExclusionReason; detail?: string }>): void {
    // Unchanged exclusions are not rewritten, so a sync that changed nothing leaves the store clean.
    const stored = this.all('SELECT path, reason, detail FROM project_exclusions ORDER BY path').map(
      (row) => `${row[0] as string}\0${row[1] as string}\0${(row[2] as string | null) ?? ''}`,
    );
    const unique = new Map(exclusions.map((exclusion) => [exclusion.path, exclusion]));
    const next = [...unique.values()]
      .map((exclusion) => `${exclusion.path}\0${exclusion.reason}\0${exclusion.detail ?? ''}`)
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    if (stored.length === next.length && stored.every((entry, index) => entry === next[index])) return;
    this.transaction(() => {
      this.run('DELETE FROM project_exclusions');
      for (const exclusion of exclusions) {
        this.run('INSERT OR REPLACE INTO project_exclusions(path, reason, detail) VALUES (?,?,?)', [
          exclusion.path,
          exclusion.reason,
          exclusion.detail ?? null,
        ]);
      }
    });
  }

  exclusionCounts(): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const row of this.all('SELECT reason, COUNT(*) FROM project_exclusions GROUP BY reason ORDER BY reason'))
      counts[row[0] as string] = row[1] as number;
    return counts;
  }

  exclusion(path: string): { reason: string; detail: string | null } | undefined {
    const row = this.one('SELECT reason, detail FROM project_exclusions WHERE path = ?', [path]);
    return row ? { reason: row[0] as string, detail: row[1] as string | null } : undefined;
  }

  // ---- project state --------------------------------------------------------------------------

  state(): ProjectState {
    const row = this.one(
      'SELECT root, git_root, branch, head, dirty, changed_paths, indexed_at, sync_ms, used_git, bound_notes FROM project_states WHERE id = 1',
    ) as SqlValue[];
    return {
      root: row[0] as string,
      gitRoot: row[1] as string | null,
      branch: row[2] as string | null,
      head: row[3] as string | null,
      dirty: row[4] === 1,
      changedPaths: JSON.parse(row[5] as string) as string[],
      indexedAt: row[6] as number | null,
      syncMs: row[7] as number | null,
      usedGit: row[8] === 1,
      boundNotes: JSON.parse(row[9] as string) as string[],
    };
  }

  writeState(state: ProjectState): void {
    this.transaction(() => {
      this.run(
        'UPDATE project_states SET root = ?, git_root = ?, branch = ?, head = ?, dirty = ?, changed_paths = ?, indexed_at = ?, sync_ms = ?, used_git = ?, bound_notes = ? WHERE id = 1',
        [
          state.root,
          state.gitRoot,
          state.branch,
          state.head,
          state.dirty ? 1 : 0,
          JSON.stringify(state.changedPaths),
          state.indexedAt,
          state.syncMs,
          state.usedGit ? 1 : 0,
          JSON.stringify(state.boundNotes),
        ],
      );
    });
  }

  // ---- queries ---------------------------------------------------------------------------------

  currentSnippets(path: string): SnippetRow[] {
    return this.all(`SELECT ${snippetColumns} FROM project_snippets WHERE path = ? AND stale = 0 ORDER BY start_line, end_line, id`, [
      path,
    ]).map(toSnippet);
  }

  /** Current snippets by row id, in the order asked (unknown or stale ids are skipped). */
  snippetsByRowid(rowids: number[]): SnippetRow[] {
    const wanted = [...new Set(rowids)].filter((rowid) => Number.isSafeInteger(rowid));
    if (wanted.length === 0) return [];
    const byRowid = new Map<number, SnippetRow>();
    for (let start = 0; start < wanted.length; start += 500) {
      const slice = wanted.slice(start, start + 500);
      const sql = `SELECT ${snippetColumns} FROM project_snippets WHERE rowid IN (${slice.map(() => '?').join(',')}) AND stale = 0`;
      // One cached statement per batch size up to 64 (the usual pools); larger ones run once.
      const rows = slice.length <= 64 ? this.all(sql, slice) : this.once(sql, slice);
      for (const row of rows) byRowid.set(row[0] as number, toSnippet(row));
    }
    return wanted.map((rowid) => byRowid.get(rowid)).filter((row): row is SnippetRow => row !== undefined);
  }

  snippetById(id: string): SnippetRow | undefined {
    const row = this.one(`SELECT ${snippetColumns} FROM project_snippets WHERE id = ?`, [id]);
    return row ? toSnippet(row) : undefined;
  }

  allCurrentSnippets(): SnippetRow[] {
    return this.all(`SELECT ${snippetColumns} FROM project_snippets WHERE stale = 0 ORDER BY path, start_line, end_line, id`).map(
      toSnippet,
    );
  }

  /** Snippets of declarations whose qualified or simple name equals `name` (exact, case-sensitive). */
  declarationSnippets(name: string, by: 'qualified' | 'simple'): SnippetRow[] {
    const column = by === 'qualified' ? 'qualified_name' : 'name';
    return this.all(
      `SELECT ${snippetColumns} FROM project_snippets WHERE ${column} = ? AND stale = 0 AND symbol_id IS NOT NULL ORDER BY path, start_line, id`,
      [name],
    ).map(toSnippet);
  }

  /** Snippets of declarations whose simple name is any of `names` (exact, case-sensitive). */
  declarationSnippetsNamed(names: string[]): SnippetRow[] {
    const unique = [...new Set(names)];
    if (unique.length === 0) return [];
    return this.all(
      `SELECT ${snippetColumns} FROM project_snippets WHERE name IN (${unique.map(() => '?').join(',')}) AND stale = 0 AND symbol_id IS NOT NULL ORDER BY path, start_line, id`,
      unique,
    ).map(toSnippet);
  }

  symbols(): SymbolRow[] {
    return this.all(`SELECT ${symbolColumns} FROM project_symbols ORDER BY path, start_line, qualified_name`).map(toSymbol);
  }

  /** Current declarations whose qualified or simple name equals `name` (exact, case-sensitive), by path and line. */
  symbolsNamed(name: string, by: 'qualified' | 'simple'): SymbolRow[] {
    const column = by === 'qualified' ? 'qualified_name' : 'name';
    const sql = `SELECT ${symbolColumns} FROM project_symbols WHERE ${column} = ? ORDER BY path, start_line, qualified_name`;
    return this.all(sql, [name]).map(toSymbol);
  }

  /** Current declarations of the files `paths` (at most 500 paths a call), by path and line. */
  symbolsOfPaths(paths: string[]): SymbolRow[] {
    const unique = [...new Set(paths)].slice(0, 500);
    if (unique.length === 0) return [];
    const placeholders = unique.map(() => '?').join(',');
    const sql = `SELECT ${symbolColumns} FROM project_symbols WHERE path IN (${placeholders}) ORDER BY path, start_line, qualified_name`;
    return (unique.length <= 64 ? this.all(sql, unique) : this.once(sql, unique)).map(toSymbol);
  }

  /** Indexed paths equal to `directory` or under it ('' is the whole project), sorted. */
  pathsUnder(directory: string): string[] {
    if (directory === '') return this.all('SELECT path FROM project_files ORDER BY path').map((row) => row[0] as string);
    const rows = this.all("SELECT path FROM project_files WHERE path LIKE ? ESCAPE '\\' ORDER BY path", [`${escapeLike(directory)}/%`]);
    return rows.map((row) => row[0] as string);
  }

  /** Paths of current chunks matching a full-text expression (at most `limit` chunks read), sorted. */
  pathsMatching(matchExpression: string, limit: number): string[] {
    const sql = `SELECT DISTINCT p.path FROM (SELECT docid FROM search_index WHERE search_index MATCH ? LIMIT ?) AS hit
      JOIN project_snippets AS p ON p.rowid = hit.docid WHERE p.stale = 0 ORDER BY p.path`;
    return this.all(sql, [matchExpression, limit]).map((row) => row[0] as string);
  }

  /** The import specifiers each of `paths` stored (on its first chunk), for the files that have any. */
  importsOf(paths: string[]): Map<string, string[]> {
    const unique = [...new Set(paths)];
    const imports = new Map<string, string[]>();
    for (let start = 0; start < unique.length; start += 500) {
      const slice = unique.slice(start, start + 500);
      const placeholders = slice.map(() => '?').join(',');
      const sql = `SELECT path, imports FROM project_snippets WHERE path IN (${placeholders}) AND stale = 0 AND imports IS NOT NULL`;
      for (const row of slice.length <= 64 ? this.all(sql, slice) : this.once(sql, slice)) {
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

  /** Paths ending in `/tail` (at most 32, sorted). */
  pathsEndingWith(tail: string): string[] {
    return this.all("SELECT path FROM project_files WHERE path LIKE ? ESCAPE '\\' ORDER BY path LIMIT 32", [`%/${escapeLike(tail)}`])
      .map((row) => row[0] as string)
      .filter((path) => path.endsWith(`/${tail}`));
  }

  /** Paths holding `base` followed by an extension or a folder separator (at most 64, sorted): where a module may live. */
  pathsContainingModule(base: string): string[] {
    const escaped = escapeLike(base);
    return this.all("SELECT path FROM project_files WHERE path LIKE ? ESCAPE '\\' OR path LIKE ? ESCAPE '\\' ORDER BY path LIMIT 64", [
      `%${escaped}.%`,
      `%${escaped}/%`,
    ]).map((row) => row[0] as string);
  }

  /**
   * The best full-text matches, by bm25 from FTS4 `matchinfo('pcnalx')` (weights favour
   * identifiers and paths over body words). The score is computed and sorted inside SQLite, so
   * only the kept rows cross into JavaScript.
   */
  fullText(matchExpression: string, limit: number): Array<{ rowid: number; bm25: number }> {
    return this.all(
      "SELECT docid, pk_bm25(matchinfo(search_index, 'pcnalx')) AS score FROM search_index WHERE search_index MATCH ? ORDER BY score DESC, docid LIMIT ?",
      [matchExpression, limit],
    ).map((row) => ({ rowid: row[0] as number, bm25: row[1] as number }));
  }

  /**
   * Chunks holding each of `terms` (MATCH phrases), per full-text column: FTS4's
   * `matchinfo('ncx')` of any one matching row carries them all, each phrase's list walked once.
   * All zero when no row matches; throws when FTS4 rejects the expression.
   */
  termDocumentCounts(terms: string[]): number[][] {
    const columns = fullTextWeights.length;
    const blob = this.db.exec("SELECT matchinfo(search_index, 'ncx') FROM search_index WHERE search_index MATCH ? LIMIT 1", [
      terms.join(' OR '),
    ])[0]?.values[0]?.[0];
    const info =
      blob instanceof Uint8Array ? new Uint32Array(blob.buffer.slice(blob.byteOffset, blob.byteOffset + blob.byteLength)) : undefined;
    return terms.map((_, phrase) => Array.from({ length: columns }, (_, column) => info?.[2 + 3 * (phrase * columns + column) + 2] ?? 0));
  }

  /** Row ids of the first `limit` chunks matching, by row id (no ranking, no per-row statistics). */
  matchingRowids(matchExpression: string, limit: number): number[] {
    return this.all('SELECT docid FROM search_index WHERE search_index MATCH ? LIMIT ?', [matchExpression, limit]).map(
      (row) => row[0] as number,
    );
  }

  /**
   * As `fullText`, with the document frequencies already known (`idf` per phrase and column, in
   * expression order; 0 ignores a phrase), so FTS4 only reads each row's own hits
   * (`matchinfo('pcy')`) instead of walking every phrase's whole list for its totals; the row's
   * column lengths come from `ColumnLengths` instead of a docsize lookup per row. The scores of
   * the matching rows in `include` are returned too, whatever their rank: the scoring function
   * notes them as SQLite calls it, so no second query (or window sort) is needed.
   */
  rankFullText(
    query: { expression: string; idf: number[] },
    limit: number,
    include: Iterable<number> = [],
  ): { hits: Array<{ rowid: number; bm25: number }>; included: Map<number, number> } {
    const { lengths, averages } = this.columnLengths.current();
    const columns = this.columnLengths.columns;
    const wanted = new Set(include);
    const included = new Map<number, number>();
    const rows = withRowFunction(
      (_bytes, words, pointer, size, docid) => {
        // matchinfo's values are 32-bit words, aligned as SQLite allocated them.
        if (pointer % 4 !== 0 || size < 8) return 0;
        const score = bm25WithIdf(words, pointer / 4, query.idf, fullTextWeights, lengths, docid * columns, averages);
        if (wanted.has(docid)) included.set(docid, score);
        return score;
      },
      () =>
        this.all(
          "SELECT docid, pk_row(matchinfo(search_index, 'pcy'), docid) AS score FROM search_index WHERE search_index MATCH ? ORDER BY score DESC, docid LIMIT ?",
          [query.expression, limit],
        ),
    );
    return { hits: rows.map((row) => ({ rowid: row[0] as number, bm25: row[1] as number })), included };
  }

  /** A statement run once and freed (its text holds literal values, so caching it would only grow the cache). */
  private once(sql: string, params: SqlValue[]): SqlValue[][] {
    const prepared = this.db.prepare(sql);
    try {
      prepared.bind(params);
      const rows: SqlValue[][] = [];
      while (prepared.step()) rows.push(prepared.get());
      return rows;
    } finally {
      prepared.free();
    }
  }

  counts(): { files: number; snippets: number; staleSnippets: number; symbols: number; exclusions: number } {
    const row = this.one(`SELECT (SELECT COUNT(*) FROM project_files), (SELECT COUNT(*) FROM project_snippets WHERE stale = 0),
      (SELECT COUNT(*) FROM project_snippets WHERE stale = 1), (SELECT COUNT(*) FROM project_symbols), (SELECT COUNT(*) FROM project_exclusions)`) as SqlValue[];
    return {
      files: row[0] as number,
      snippets: row[1] as number,
      staleSnippets: row[2] as number,
      symbols: row[3] as number,
      exclusions: row[4] as number,
    };
  }

  parserCoverage(): Array<{ language: string; parser: string; reason: string | null; files: number }> {
    return this.all(
      'SELECT language, parser, parser_reason, COUNT(*) FROM project_files GROUP BY language, parser, parser_reason ORDER BY language, parser',
    ).map((row) => ({
      language: row[0] as string,
      parser: row[1] as string,
      reason: row[2] as string | null,
      files: row[3] as number,
    }));
  }

  /** Raw access for the vector index and tests; callers own their own tables. */
  get database(): Database {
    return this.db;
  }
}

/** One meta value, or undefined. */
function metaValue(db: Database, key: string): unknown {
  return db.exec('SELECT value FROM meta WHERE key = ?', [key])[0]?.values[0]?.[0];
}

/**
 * True when a SQLite database is a Project Knowledge index: its meta table names the product,
 * or (indexes written before that row) it holds our schema version and root rows beside our
 * `project_files` table. Otherwise why not, for the refusal. A file whose schema or meta table
 * cannot be read at all is not proved ours, so it is refused rather than replaced.
 */
function ownership(db: Database): true | string {
  let tables: string[];
  let meta: Map<string, unknown>;
  try {
    tables = db.exec("SELECT name FROM sqlite_master WHERE type = 'table'")[0]?.values.map((row) => row[0] as string) ?? [];
    if (!tables.includes('meta')) return 'it is a SQLite database of another program (it has no Project Knowledge meta table)';
    const rows = db.exec("SELECT key, value FROM meta WHERE key IN ('product', 'schema_version', 'root')")[0]?.values ?? [];
    meta = new Map(rows.map((row) => [String(row[0]), row[1]]));
  } catch (error) {
    const reason = (error instanceof Error ? error.message : String(error)).split('\n')[0];
    return (
      `it has a SQLite header but cannot be read (${reason}), so it cannot be proved to be a Project Knowledge index;` +
      ' delete it if it was one'
    );
  }
  if (meta.get(productKey) === productName) return true;
  if (!meta.has(productKey) && meta.has('schema_version') && meta.has('root') && tables.includes('project_files')) return true;
  return 'it is a SQLite database of another program (its meta table does not name Project Knowledge)';
}

/** Removes what a killed save left (temporary files), when no live writer holds the lock. */
async function sweepAtOpen(dbPath: string, ports: EnginePorts): Promise<void> {
  try {
    const lock = await acquireLock(dbPath, { timeoutMs: 0, log: ports.log });
    if (!lock) return;
    try {
      await sweepTemporaryFiles(dbPath, ports.log);
    } finally {
      lock.release();
    }
  } catch (error) {
    // A read-only folder still serves searches; the sweep waits for a writer.
    ports.log.info(`Temporary files beside ${dbPath} were not checked: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/**
 * One `quick_check` pass over the whole file (b-trees, shadow tables included). FTS4's own
 * content check is the one message tolerated: it re-tokenizes `search_terms`, which by design
 * holds rows only while they are being deleted, so it always reports a mismatch.
 */
function checkIntegrity(db: Database): void {
  const tables = db.exec("SELECT name FROM sqlite_master WHERE type = 'table'")[0]?.values.map((row) => row[0] as string) ?? [];
  if (!tables.includes('meta') || !tables.includes('search_index_segdir')) throw new Error('required tables are missing');
  const problems = (db.exec('PRAGMA quick_check')[0]?.values ?? [])
    .map((row) => String(row[0]))
    .filter((message) => message !== 'ok' && message !== 'malformed inverted index for FTS4 table main.search_index');
  if (problems.length > 0) throw new Error(`integrity check failed: ${problems[0]}`);
}

/** `text` for a LIKE pattern with `ESCAPE '\'`: its `%`, `_` and `\` match themselves. */
function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, '\\$&');
}

/** What the FTS `path` column holds for a file: its path with separators as spaces. */
function pathTerms(path: string): string {
  return path.replace(/[/._-]+/g, ' ');
}

/** Above this size the rollback journal is a file in sql.js's file system instead of WebAssembly memory (always, see `configure`). */
const fileJournalBytes = 0;

/** Above this size the database is not vacuumed (VACUUM's copy must fit the 2 GB WebAssembly heap). */
const maxVacuumBytes = 512 * 1024 * 1024;

/** bm25 column weights, in `search_index` column order: body, path, idents. */
const fullTextWeights = [1.0, 2.0, 1.5];

/** Okapi BM25 from FTS4 matchinfo 'pcnalx' (k1 = 1.2, b = 0.75). */
export function bm25(info: Uint32Array, weights: number[]): number {
  const phraseCount = info[0];
  const columnCount = info[1];
  const documentCount = info[2];
  const averageLengthOffset = 3;
  const lengthOffset = averageLengthOffset + columnCount;
  const hitsOffset = lengthOffset + columnCount;
  let score = 0;
  for (let phrase = 0; phrase < phraseCount; phrase++) {
    for (let column = 0; column < columnCount; column++) {
      const base = hitsOffset + 3 * (column + phrase * columnCount);
      const hitsHere = info[base];
      const documentsWithHits = info[base + 2];
      if (hitsHere === 0) continue;
      score +=
        (weights[column] ?? 1) *
        bm25Idf(documentCount, documentsWithHits) *
        bm25Frequency(hitsHere, info[lengthOffset + column], info[averageLengthOffset + column]);
    }
  }
  return score;
}

/**
 * Okapi BM25 (k1 = 1.2, b = 0.75) from FTS4 matchinfo 'pcy' at `info[base]`, known idf per
 * phrase and column, the row's column lengths at `lengths[lengthBase]` and the column averages.
 */
export function bm25WithIdf(
  info: Uint32Array,
  base: number,
  idf: number[],
  weights: number[],
  lengths: ArrayLike<number>,
  lengthBase: number,
  averages: number[],
): number {
  const phraseCount = info[base];
  const columnCount = info[base + 1];
  const hitsOffset = base + 2;
  let score = 0;
  for (let phrase = 0; phrase < phraseCount; phrase++) {
    for (let column = 0; column < columnCount; column++) {
      const hitsHere = info[hitsOffset + phrase * columnCount + column];
      const weight = idf[phrase * columnCount + column] ?? 0;
      if (hitsHere === 0 || weight === 0) continue;
      score += (weights[column] ?? 1) * weight * bm25Frequency(hitsHere, lengths[lengthBase + column] ?? 0, averages[column] ?? 0);
    }
  }
  return score;
}

/** bm25's saturated term frequency for a column holding `hits` of the term in `length` tokens (k1 = 1.2, b = 0.75). */
function bm25Frequency(hits: number, length: number, averageLength: number): number {
  const k1 = 1.2;
  const b = 0.75;
  return (hits * (k1 + 1)) / (hits + k1 * (1 - b + (b * length) / Math.max(1, averageLength)));
}

/** bm25's idf for a column where `withTerm` of `documents` rows hold the term. */
export function bm25Idf(documents: number, withTerm: number): number {
  return Math.log(1 + (documents - withTerm + 0.5) / (withTerm + 0.5));
}

const symbolColumns = 'symbol_id, path, name, qualified_name, kind, start_line, end_line, signature, parent, file_hash';

function toSymbol(row: SqlValue[]): SymbolRow {
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
