import type { Database as SqlDatabase, SqlJsStatic, SqlValue, Statement } from 'sql.js';

/** Above this size the rollback journal is a file in sql.js's file system instead of WebAssembly memory (always, see `configure`). */
const fileJournalBytes = 0;

/** Above this size the database is not vacuumed (VACUUM's copy must fit the 2 GB WebAssembly heap). */
const maxVacuumBytes = 512 * 1024 * 1024;

/**
 * The one sql.js connection of an index, and nothing about its tables: pragmas, the prepared
 * statement cache, transactions and savepoints, the change counter caches compare, the `meta`
 * rows, and the bytes persistence writes. The parts (files, chunks, full text, embeddings) each
 * own their tables and run their statements through it.
 */
export class Database {
  private statements = new Map<string, Statement>();
  private batchDepth = 0;
  private journal: 'memory' | 'truncate' = 'memory';
  private dirty = false;
  private revisionCounter = 0;
  private readonly configureHooks: Array<(db: SqlDatabase) => void> = [];
  private readonly rollbackHooks: Array<(outermost: boolean) => void> = [];
  private readonly commitHooks: Array<(outermost: boolean) => void> = [];

  constructor(
    readonly sql: SqlJsStatic,
    private readonly db: SqlDatabase,
  ) {}

  /** The sql.js connection, for the parts' helpers that run their own statements and for tests. */
  get connection(): SqlDatabase {
    return this.db;
  }

  /** Runs `hook` at every `configure` (the first one, and after export and VACUUM, which reset functions and pragmas). */
  onConfigure(hook: (db: SqlDatabase) => void): void {
    this.configureHooks.push(hook);
  }

  /**
   * Runs `hook` after a transaction or a file's savepoint rolled back (`outermost` false for a
   * savepoint), so caches of what it wrote are dropped.
   */
  onRollback(hook: (outermost: boolean) => void): void {
    this.rollbackHooks.push(hook);
  }

  /**
   * Runs `hook` just before each commit (`outermost` true) or savepoint release, so a part writes
   * what it kept pending (common-term counts, full-text rows).
   */
  onBeforeCommit(hook: (outermost: boolean) => void): void {
    this.commitHooks.push(hook);
  }

  private beforeCommit(outermost: boolean): void {
    for (const hook of this.commitHooks) hook(outermost);
  }

  private rolledBack(outermost: boolean): void {
    for (const hook of this.rollbackHooks) hook(outermost);
  }

  /** Connection settings; also rerun after export and VACUUM, which reset them. */
  configure(): void {
    // Deleted rows are zeroed so nothing removed from the index lingers in free pages. The
    // connection is the file's only user, so it holds the lock and keeps its page cache between
    // transactions. A page the cache lacks is read from the file on disk (through the system's
    // cache, see storage/wasmFiles.ts) or, written since the last save, from memory or the
    // spill file: 16 MB of cache instead of 256 MB held the 5,000-file bench's peak WebAssembly
    // heap down (it never shrinks; 32 MB of cache left it at 52.8 MB, 16 MB at 30.5 MB, in the same
    // CPU seconds), and the rollback journal is a file (kept beside the database's by
    // storage/wasmFiles.ts: in JavaScript memory up to 4 MB, past it in the spill file, given back
    // when the transaction ends) instead of SQLite's memory journal in that heap (see `fitJournal`).
    this.db.exec(
      'PRAGMA secure_delete = ON; PRAGMA foreign_keys = OFF; PRAGMA journal_mode = TRUNCATE; PRAGMA synchronous = OFF; PRAGMA temp_store = MEMORY; PRAGMA cache_size = -16384; PRAGMA locking_mode = EXCLUSIVE;',
    );
    this.journal = 'truncate';
    for (const hook of this.configureHooks) hook(this.db);
  }

  /**
   * SQLite's memory journal lives in the WebAssembly heap (2 GB with the page cache), and one
   * FTS4 merge in a large index journals every page it frees (secure_delete zeroes them); a
   * 50,000-file cold index ran out of memory. Past `fileJournalBytes` the journal becomes a file
   * (see `MemoryFile.attach`: bounded memory, the rest in the spill file). Called outside
   * transactions only.
   */
  fitJournal(): void {
    const wanted = this.byteSize() > fileJournalBytes ? 'truncate' : 'memory';
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

  /** Runs a cached statement. */
  run(sql: string, params: SqlValue[] = []): void {
    this.statement(sql).run(params);
  }

  /** Every row of a cached statement. */
  all(sql: string, params: SqlValue[] = []): SqlValue[][] {
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

  one(sql: string, params: SqlValue[] = []): SqlValue[] | undefined {
    return this.all(sql, params)[0];
  }

  /** A statement run once and freed (its text holds literal values, so caching it would only grow the cache). */
  once(sql: string, params: SqlValue[] = []): SqlValue[][] {
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

  /** `once` for up to 64 values (the usual pool sizes get one cached statement each), else a statement run once. */
  list(sql: string, params: SqlValue[]): SqlValue[][] {
    return params.length <= 64 ? this.all(sql, params) : this.once(sql, params);
  }

  /** Statements without parameters or results (schema, pragmas). */
  exec(sql: string): void {
    this.db.exec(sql);
  }

  lastInsertRowid(): number {
    // A cached statement: `exec` would prepare it again for every row inserted.
    return this.one('SELECT last_insert_rowid()')?.[0] as number;
  }

  /**
   * One file's change is atomic: on its own it is a transaction; inside `batch` it is a
   * savepoint, so a failing file rolls back alone while the batch commits the others.
   */
  transaction<T>(work: () => T): T {
    const nested = this.batchDepth > 0;
    if (!nested) this.fitJournal();
    // Cached statements: `exec` would compile the savepoint's SQL again for every file.
    this.run(nested ? 'SAVEPOINT file_change' : 'BEGIN');
    this.batchDepth++;
    try {
      const result = work();
      this.beforeCommit(!nested);
      this.batchDepth--;
      this.run(nested ? 'RELEASE file_change' : 'COMMIT');
      this.markChanged();
      return result;
    } catch (error) {
      this.batchDepth--;
      this.db.exec(nested ? 'ROLLBACK TO file_change; RELEASE file_change' : 'ROLLBACK');
      this.rolledBack(!nested);
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
      this.beforeCommit(true);
      this.batchDepth--;
      this.db.exec('COMMIT');
      return result;
    } catch (error) {
      this.batchDepth--;
      this.db.exec('ROLLBACK');
      this.rolledBack(true);
      throw error;
    }
  }

  /** Records a committed change: the file needs writing and caches derived from the tables are out of date. */
  markChanged(): void {
    this.dirty = true;
    this.revisionCounter++;
  }

  /** Records a change that needs writing but alters no query's answer (a merge of index segments). */
  markUnsaved(): void {
    this.dirty = true;
  }

  /** Declares the on-disk copy current. */
  markSaved(): void {
    this.dirty = false;
  }

  get needsPersist(): boolean {
    return this.dirty;
  }

  /** Grows with every committed change; caches derived from the tables compare it. */
  get revision(): number {
    return this.revisionCounter;
  }

  /** True while a transaction or batch is open: rows read then may not be committed yet, so a cache keyed by `revision` must not keep them. */
  get inTransaction(): boolean {
    return this.batchDepth > 0;
  }

  meta(key: string): string | undefined {
    const value = this.one('SELECT value FROM meta WHERE key = ?', [key])?.[0];
    return value === undefined || value === null ? undefined : String(value);
  }

  setMeta(key: string, value: string): void {
    this.run('INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)', [key, value]);
  }

  byteSize(): number {
    return this.pragma('page_count') * this.pragma('page_size');
  }

  private pragma(name: 'page_count' | 'page_size' | 'freelist_count'): number {
    return this.db.exec(`PRAGMA ${name}`)[0].values[0][0] as number;
  }

  /**
   * Free pages (zeroed by secure_delete) would otherwise be written out; compacts when they are
   * many. VACUUM builds its copy in the WebAssembly heap, so a very large index keeps its free
   * pages for later writes instead.
   */
  vacuumIfSparse(): void {
    const pages = this.pragma('page_count');
    const free = this.pragma('freelist_count');
    const incremental = this.incrementalAutoVacuum();
    if (free > 64 && free * 10 > pages && incremental) {
      // Moves pages from the end into the free ones and truncates: no copy of the database.
      this.db.exec('PRAGMA incremental_vacuum');
    } else if (free > 64 && free * 10 > pages && pages * this.pragma('page_size') <= maxVacuumBytes) {
      this.clearStatements();
      this.fitJournal();
      this.db.exec('VACUUM');
      this.configure();
    }
  }

  /**
   * Gives up to `pages` free pages back (`incremental_vacuum(N)` moves pages from the end into
   * them and truncates, with no copy of the database), whatever their share; true while free pages
   * remain. A database made without incremental auto-vacuum keeps them for later writes (false).
   * Bounded, so that the caller can answer requests between steps: at 50,000 files the pages a
   * full-text merge freed (about 52 MB) took one statement of 2.1 s.
   */
  releaseFreePagesStep(pages: number): boolean {
    if (this.pragma('freelist_count') === 0 || !this.incrementalAutoVacuum()) return false;
    this.fitJournal();
    this.db.exec(`PRAGMA incremental_vacuum(${Math.max(1, Math.floor(pages))})`);
    return this.pragma('freelist_count') > 0;
  }

  /** Whether the database was made with incremental auto-vacuum (`PRAGMA auto_vacuum` 2), so free pages can be given back without a copy. */
  private incrementalAutoVacuum(): boolean {
    return this.db.exec('PRAGMA auto_vacuum')[0].values[0][0] === 2;
  }

  /** The database file's bytes. */
  exportBytes(): Uint8Array {
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
    this.db.close();
  }
}
