import type { Database as SqlDatabase } from 'sql.js';
import {
  acquireLock,
  currentIdentity,
  isSealed,
  notOurDatabase,
  openSpillFile,
  pauseForTests,
  readDatabaseFile,
  sealFile,
  sweepTemporaryFiles,
  withLock,
  writeDatabaseFile,
  type FileIdentity,
} from './databaseFile';
import { CurationTables } from './curation/tables';
import { HistoryTable } from './history/historyTable';
import { projectIdOf } from './hashing';
import type { EnginePorts } from './ports';
import { loadSqlite } from './sqlite';
import { nodeDatabaseFileIo } from './storage/fileIo';
import { loadDatabase, nextGeneration, PagePersistence, saveGeneration, type SaveReport } from './storage/pagedPersistence';
import { MemoryFile, type MemoryFileOptions, type Residency } from './storage/wasmFiles';
import { ChunkTable, chunkTableSchema } from './tables/chunkTable';
import { Database } from './tables/database';
import { EmbeddingTable, embeddingTableSchema } from './tables/embeddingTable';
import { FileCatalog, fileCatalogSchema, type ProjectState, type StoredExclusion } from './tables/fileCatalog';
import type { FileRows } from './fileAnalysis';
import type { FileChange, FileRow, IndexPart } from './tables/fileChange';
import { FullTextIndex, fullTextSchema } from './tables/fullTextIndex';

export { bm25, bm25GroupedWithIdf, bm25Idf, bm25WithIdf } from './tables/bm25';
export type { FileChange, FileRow, NewSnippet, SnippetRow, SymbolRow } from './tables/fileChange';
export type { ProjectState, StoredExclusion } from './tables/fileCatalog';

/**
 * Bumped whenever the tables change, or the exclusion rules widen (3: more secret formats and
 * secretlint; 4: the compact schema, integer file and chunk ids, hashes as bytes, each path and
 * each declaration stored once; 5: a file's full-text terms in one deflated blob, its hash once
 * for its chunks, chunk and symbol ids computed instead of stored; 6: that blob names only its
 * first chunk's docid; 7: an exclusion read from a file's bytes keeps the file's size and mtime,
 * so an unchanged excluded file is not read again), so rows admitted by older rules go; an
 * older file is discarded and rebuilt, never migrated. A change of the content rules (which
 * verdicts kept that way depend on) bumps it too.
 */
export const schemaVersion = 7;

/**
 * The meta row that marks a SQLite file as a Project Knowledge index, so `--db` replaces only
 * files that are ours (see `ownership`). Indexes written before it have no such row.
 */
const productKey = 'product';
const productName = 'project-knowledge';

/** How long a writer waits for another one's lock by default. */
const defaultLockTimeoutMs = 120_000;

/** The database's own table; each part creates its own. */
const metaSchema = 'CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);';

const schema = [metaSchema, fileCatalogSchema, chunkTableSchema, fullTextSchema, embeddingTableSchema].join('\n');

export interface StoreOpenOptions {
  /** How long a save waits for another writer's lock before failing (default two minutes). */
  lockTimeoutMs?: number;
  /** Bytes of written pages kept in memory before they spill (see `MemoryFileOptions.residentBytes`). */
  residentBytes?: number;
}

/** How a store's database file is paged (storage/wasmFiles.ts): written blocks past the budget spill beside the database. */
function fileOptions(dbPath: string | undefined, ports: EnginePorts, residentBytes: number | undefined): MemoryFileOptions {
  return {
    residentBytes,
    openSpill: dbPath === undefined ? undefined : () => openSpillFile(dbPath),
    warn: (message) => ports.log.warn(message),
  };
}

export interface OpenResult {
  store: IndexStore;
  /** Set when a stored file existed but could not be used, saying why it was discarded. */
  discardedReason?: string;
  loaded: boolean;
}

/**
 * The SQLite projection of one project: one `Database` and the parts that each own their tables
 * (files, chunks and symbols, full text, embeddings). Sync decides what changes and hands each
 * file's change to `replaceFile`/`removeFile`, which apply it to every part in one transaction;
 * queries go to the part that owns the rows (`store.catalog`, `store.chunks`, `store.search`,
 * `store.embeddings`, `store.curation`).
 */
export class IndexStore {
  /** The schema this store writes (for health, which must not import this module's values). */
  readonly schemaVersion = schemaVersion;
  readonly catalog: FileCatalog;
  readonly chunks: ChunkTable;
  readonly search: FullTextIndex;
  readonly embeddings: EmbeddingTable;
  /** Pins, memory and labels: the curation log's projection, replaced whole, so it takes no per-file change. */
  readonly curation: CurationTables;
  /** Earlier commits of HEAD: their messages' words and changed paths (`history/`), replaced or extended at each sync, never per file. */
  readonly history: HistoryTable;
  /** In the order a file's change is applied: the chunk part assigns the ids the full-text part indexes. */
  private readonly parts: IndexPart[];

  /** What the database path held when this store read or last wrote it (see `persist`). */
  private diskIdentity: FileIdentity = 'missing';
  private superseded = false;
  private lockTimeoutMs = defaultLockTimeoutMs;
  private residentBytes: number | undefined;
  /** Page-level saves of sql.js's file (storage/); undefined where its file calls are unknown: whole exports. */
  private persistence: PagePersistence | undefined;
  /** How the last save wrote (for the benchmark and tests). */
  lastSave: SaveReport | undefined;

  private constructor(
    private readonly db: Database,
    root: string,
    readonly dbPath: string | undefined,
    private readonly ports: EnginePorts,
  ) {
    this.catalog = new FileCatalog(db);
    this.chunks = new ChunkTable(db, this.catalog, projectIdOf(root));
    this.search = new FullTextIndex(db);
    this.embeddings = new EmbeddingTable(db, this.catalog);
    this.curation = new CurationTables(db);
    this.history = new HistoryTable(db);
    this.parts = [this.catalog, this.chunks, this.search, this.embeddings];
    db.configure();
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
    const opened = (db: SqlDatabase) => {
      const store = new IndexStore(new Database(SQL, db), root, dbPath, ports);
      store.diskIdentity = identity;
      store.lockTimeoutMs = lockTimeoutMs;
      store.residentBytes = options.residentBytes;
      store.persistence = persistence ?? store.attachFile(db, io);
      return store;
    };
    if (dbPath) {
      let db: SqlDatabase | undefined;
      if (MemoryFile.available) {
        // Streamed into sql.js's file in pieces, a journal of an interrupted save finished first.
        const loaded = await loadDatabase(
          SQL,
          dbPath,
          io,
          { timeoutMs: lockTimeoutMs, log: ports.log },
          fileOptions(dbPath, ports, options.residentBytes),
        );
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
          checkTables(db);
          // A file whose last save completed and that nothing wrote since is as that save left it.
          if (!persistence || !isSealed(identity, saveGeneration(db))) checkIntegrity(db);
          const version = metaValue(db, 'schema_version');
          if (version !== String(schemaVersion)) throw new Error(`schema version ${String(version)} is not ${schemaVersion}`);
          const storedRoot = metaValue(db, 'root');
          if (storedRoot !== root) throw new Error(`it belongs to another folder (${String(storedRoot)})`);
          // Indexes written before the product row get it with their next write.
          db.run('INSERT OR IGNORE INTO meta(key, value) VALUES (?, ?)', [productKey, productName]);
          return { store: opened(db), loaded: true };
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
    // Free pages are given back by `incremental_vacuum` at a save (see `Database.vacuumIfSparse`): a
    // VACUUM would build a whole copy of the database in the WebAssembly heap, which never shrinks again.
    db.exec('PRAGMA auto_vacuum = INCREMENTAL');
    db.exec(schema);
    const store = opened(db);
    store.db.setMeta(productKey, productName);
    store.db.setMeta('schema_version', String(schemaVersion));
    store.db.setMeta('root', root);
    store.catalog.initialize(root);
    store.db.markChanged();
    return { store, discardedReason, loaded: false };
  }

  /** Tracks a database this store created (not read from disk): its first save writes the whole file. */
  private attachFile(db: SqlDatabase, io: typeof nodeDatabaseFileIo): PagePersistence | undefined {
    const file = MemoryFile.attach(db, fileOptions(this.dbPath, this.ports, this.residentBytes));
    return file ? new PagePersistence(file, io, this.ports.log) : undefined;
  }

  /** Groups many per-file changes into one outer transaction (see `Database.batch`). */
  batch<T>(work: () => Promise<T>): Promise<T> {
    return this.db.batch(work);
  }

  /** Replaces one file's rows in every part, in one transaction (a savepoint inside `batch`). */
  replaceFile(file: FileRow, rows: Pick<FileRows, 'snippets' | 'symbols' | 'terms'>): void {
    this.db.transaction(() => {
      const fileId = this.catalog.idOf(file.path);
      const retiredChunkIds = fileId === undefined ? [] : this.chunks.currentIds(fileId);
      // A new file's id is assigned by the file part, the first to apply the change.
      const change: FileChange = {
        path: file.path,
        fileId: fileId ?? -1,
        known: fileId !== undefined,
        file,
        snippets: rows.snippets,
        terms: rows.terms,
        symbols: rows.symbols,
        retiredChunkIds,
        chunkIds: [],
      };
      for (const part of this.parts) part.replaceFile(change);
    });
  }

  /** Removes every row of a file: deleted, newly excluded or newly secret files leave no trace. */
  removeFile(path: string): void {
    this.db.transaction(() => {
      const fileId = this.catalog.idOf(path);
      // Every row of every part is keyed by the file's id: a file without one has none.
      if (fileId === undefined) return;
      const change: FileChange = {
        path,
        fileId,
        known: true,
        snippets: [],
        symbols: [],
        retiredChunkIds: this.chunks.currentIds(fileId),
        chunkIds: [],
      };
      for (const part of this.parts) part.removeFile(change);
    });
  }

  /** Updates what changed about a file whose content did not (mtime, git state). */
  touchFile(file: FileRow): void {
    this.db.transaction(() => this.catalog.writeFile(file));
  }

  replaceExclusions(exclusions: StoredExclusion[]): void {
    // Unchanged exclusions are not rewritten, so a sync that changed nothing leaves the store clean.
    if (!this.catalog.exclusionsDiffer(exclusions)) return;
    this.db.transaction(() => this.catalog.writeExclusions(exclusions));
  }

  writeState(state: ProjectState): void {
    this.db.transaction(() => this.catalog.writeState(state));
  }

  /** Paths of current chunks matching a full-text expression (at most `limit` chunks read), sorted. */
  pathsMatching(matchExpression: string, limit: number): string[] {
    return this.chunks.pathsOf(this.search.matchingRowids(matchExpression, limit));
  }

  counts(): { files: number; snippets: number; staleSnippets: number; symbols: number; exclusions: number } {
    const files = this.catalog.counts();
    const chunks = this.chunks.counts();
    return {
      files: files.files,
      snippets: chunks.snippets,
      staleSnippets: chunks.staleSnippets,
      symbols: chunks.symbols,
      exclusions: files.exclusions,
    };
  }

  /** Declares the on-disk copy current although the state row changed (only its timestamps did). */
  keepPersisted(): void {
    this.db.markSaved();
  }

  /** Grows with every committed change; caches derived from the tables compare it. */
  get revision(): number {
    return this.db.revision;
  }

  get needsPersist(): boolean {
    return this.db.needsPersist;
  }

  /**
   * Why this store can no longer read its database file, or undefined: another process saved
   * pages into the file in place since this store opened it, so the blocks it would read from
   * there belong to another version. The engine opens the file again (see `ProjectEngine`).
   */
  get staleOnDisk(): string | undefined {
    return this.persistence?.stale;
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
    if (!this.dbPath || !this.db.needsPersist) return true;
    const dbPath = this.dbPath;
    if ((await currentIdentity(dbPath)) !== this.diskIdentity) return this.markSuperseded();
    this.db.vacuumIfSparse();
    const persistence = this.persistence;
    // Whole exports (only where sql.js's file calls are unknown) are taken before the lock.
    const generation = persistence ? nextGeneration(this.db.connection) : 0;
    const bytes = persistence ? undefined : this.db.exportBytes();
    await pauseForTests('before-lock');
    const written = await withLock(dbPath, { timeoutMs: this.lockTimeoutMs, log: this.ports.log }, async (lock) => {
      await sweepTemporaryFiles(dbPath, this.ports.log);
      // A save that died in place is finished (or undone) before anything else reads or writes.
      await persistence?.recover(dbPath);
      // Checked again under the lock: no other writer can rename between this check and ours.
      if ((await currentIdentity(dbPath)) !== this.diskIdentity) return false;
      if (persistence) {
        this.lastSave = await persistence.save(dbPath, this.diskIdentity, lock);
        await sealFile(dbPath, generation);
      } else await writeDatabaseFile(dbPath, bytes as Uint8Array, lock, this.ports.databaseFiles);
      this.diskIdentity = await currentIdentity(dbPath);
      return true;
    });
    if (!written) return this.markSuperseded();
    this.db.markSaved();
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
    return this.db.exportBytes();
  }

  close(): void {
    this.persistence?.close();
    this.db.close();
  }

  byteSize(): number {
    return this.db.byteSize();
  }

  /** Records a change made through `database` (tests that alter rows directly), so caches and the next save see it. */
  markChanged(): void {
    this.db.markChanged();
  }

  /**
   * Written pages held in memory, bytes moved through the spill file and bytes read from the
   * database file (undefined: the whole file is in sql.js's memory).
   */
  get paging(): Residency | undefined {
    return this.persistence?.file.residency;
  }

  /** The sql.js connection, for tests that inspect the tables. */
  get database(): SqlDatabase {
    return this.db.connection;
  }
}

/** One meta value, or undefined. */
function metaValue(db: SqlDatabase, key: string): unknown {
  return db.exec('SELECT value FROM meta WHERE key = ?', [key])[0]?.values[0]?.[0];
}

/**
 * True when a SQLite database is a Project Knowledge index: its meta table names the product,
 * or (indexes written before that row) it holds our schema version and root rows beside our
 * `project_files` table. Otherwise why not, for the refusal. A file whose schema or meta table
 * cannot be read at all is not proved ours, so it is refused rather than replaced.
 */
function ownership(db: SqlDatabase): true | string {
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

/** The tables every index has; a file without them is not one this build can use. */
function checkTables(db: SqlDatabase): void {
  const tables = db.exec("SELECT name FROM sqlite_master WHERE type = 'table'")[0]?.values.map((row) => row[0] as string) ?? [];
  if (!tables.includes('meta') || !tables.includes('search_index_segdir')) throw new Error('required tables are missing');
}

/**
 * One `quick_check` pass over the whole file (b-trees, shadow tables included). FTS4's own
 * content check is the one message tolerated: it re-tokenizes `search_terms`, which by design
 * holds rows only while they are being deleted, so it always reports a mismatch.
 */
function checkIntegrity(db: SqlDatabase): void {
  const problems = (db.exec('PRAGMA quick_check')[0]?.values ?? [])
    .map((row) => String(row[0]))
    .filter((message) => message !== 'ok' && message !== 'malformed inverted index for FTS4 table main.search_index');
  if (problems.length > 0) throw new Error(`integrity check failed: ${problems[0]}`);
}
