import type * as fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import type { Database, SqlJsStatic } from 'sql.js';
import {
  acquireLock,
  pauseForTests,
  readDatabaseFileWith,
  withLock,
  writeDatabaseFile,
  type DatabaseLock,
  type FileIdentity,
  type LockOptions,
} from '../databaseFile';
import type { Logger } from '../ports';
import type { DatabaseFileIo } from './fileIo';
import { journalPathOf, parseJournal, readJournal, rollBack, writePagesJournaled, type PageSource } from './pageJournal';
import { MemoryFile } from './wasmFiles';

/**
 * Saving and opening a database whose MEMFS file is tracked (`MemoryFile`): a save writes the
 * changed pages in place through a redo journal (`pageJournal.ts`) when they are at most half of
 * the file, else the whole file (temporary copy and rename, `writeDatabaseFile`); an open streams
 * the file into MEMFS in pieces. Neither makes a whole copy of the database in memory.
 */

/** How the last save wrote, and how much. */
export interface SaveReport {
  mode: 'pages' | 'whole';
  /** Bytes of database content written (the journal writes as much again). */
  changedBytes: number;
  /** Wall time of the writes, from the first byte to the flushed commit. */
  ms: number;
}

/**
 * The save side. `baseOnDisk` is true when the file on disk held exactly this file's content at
 * the last `clearChanges` (it was loaded from there or last written there): only then can a save
 * write just the changed pages.
 */
export class PagePersistence {
  baseOnDisk = false;

  constructor(
    readonly file: MemoryFile,
    private readonly io: DatabaseFileIo,
    private readonly log: Logger,
  ) {}

  /** Undoes an interrupted save's journal; under the lock, before any save. */
  recover(dbPath: string): Promise<unknown> {
    return rollBack(this.io, dbPath, this.log);
  }

  /**
   * Writes what changed since the last save. `identity` is the file's identity the caller checked
   * under `lock`: pages are written in place only into that same inode.
   */
  async save(dbPath: string, identity: FileIdentity, lock: DatabaseLock): Promise<SaveReport> {
    const started = performance.now();
    const file = this.file;
    const writesAtStart = file.writes;
    const size = file.size;
    const source: PageSource = {
      size,
      read: (offset, length) => {
        // The engine runs one operation at a time, so nothing writes during a save; were it to,
        // the pieces would mix two states, so the save stops instead (and is undone).
        if (file.writes !== writesAtStart) throw new Error('the database changed while it was being saved');
        return file.read(offset, length);
      },
    };
    const ranges = file.changedRanges();
    const changedBytes = ranges.reduce((sum, range) => sum + range.length, 0);
    const inode = identity === 'missing' ? undefined : identity.split(':').slice(0, 2).join(':');
    if (!this.baseOnDisk || inode === undefined || changedBytes * 2 > size) {
      this.baseOnDisk = false;
      await writeDatabaseFile(dbPath, source, lock, this.io);
      file.clearChanges();
      this.baseOnDisk = true;
      return { mode: 'whole', changedBytes: size, ms: performance.now() - started };
    }
    const database = await this.io.open(dbPath, 'update');
    try {
      if ((await database.inode()) !== inode) throw new Error(`${dbPath} was replaced during the save`);
      await writePagesJournaled(this.io, dbPath, database, source, ranges, async (point) => {
        if (point === 'journal-written') {
          // The page save's counterpart of a whole save's written temporary file.
          await pauseForTests('temp-written');
          lock.verify();
        }
        await pauseForTests(point);
      });
    } catch (error) {
      // Undone (the old bytes are back, the changes still marked) unless the undo failed too:
      // then the journal stays for the next writer, and this copy is no longer what is on disk.
      if (await this.io.exists(journalPathOf(dbPath))) this.baseOnDisk = false;
      throw error;
    } finally {
      await database.close();
    }
    file.clearChanges();
    return { mode: 'pages', changedBytes, ms: performance.now() - started };
  }

  /** The file's bytes (one copy, for tests and tools that want the whole database). */
  bytes(): Uint8Array {
    return this.file.read(0, this.file.size);
  }

  close(): void {
    this.file.detach();
  }
}

export interface LoadedDatabase {
  identity: FileIdentity;
  db?: Database;
  persistence?: PagePersistence;
}

/** SQLite's header field `user_version` (offset 60): the store's save generation, see `nextGeneration`. */
async function generationOf(handle: fs.promises.FileHandle): Promise<number> {
  const bytes = Buffer.alloc(4);
  await handle.read(bytes, 0, 4, 60);
  return bytes.readUInt32BE(0);
}

/**
 * Bumps the save generation in the database header before a save, so that page 1 is among the
 * pages written and changes first: a reader that sees the same generation before and after
 * reading the file, and no journal, read no page of a save in progress (`loadDatabase`).
 */
export function nextGeneration(db: Database): void {
  const current = db.exec('PRAGMA user_version')[0]?.values[0]?.[0];
  db.exec(`PRAGMA user_version = ${(typeof current === 'number' ? current + 1 : 1) % 2_000_000_000}`);
}

/**
 * Opens the database file into a new sql.js database, streaming it into MEMFS in pieces, without
 * waiting for a writer. A journal of a save that died is undone on disk first when the lock is
 * free at once. A save may run meanwhile: the read is checked against it (the journal's
 * signature before, after and around reading it, and the save generation in the header before
 * and after) and, when a whole journal was there all along, its old bytes are put over the copy
 * read, so the copy is the last committed content either way. A read that overlapped a change
 * of the journal is read again; the fifth time under the lock. Undefined `db`: a missing or empty
 * file.
 */
export async function loadDatabase(
  SQL: SqlJsStatic,
  dbPath: string,
  io: DatabaseFileIo,
  lockOptions: LockOptions,
): Promise<LoadedDatabase> {
  const log = lockOptions.log;
  if (await io.exists(journalPathOf(dbPath))) await rollBackIfFree(dbPath, io, log);
  for (let attempt = 0; ; attempt++) {
    const read = () => readInto(SQL, dbPath, io, log);
    const loaded = attempt < 4 ? await read() : await withLock(dbPath, lockOptions, read);
    if (!loaded.db || !loaded.persistence || loaded.consistent) return loaded;
    loaded.persistence.close();
    loaded.db.close();
    log.info(`${dbPath} was being saved while it was read; reading it again.`);
  }
}

async function rollBackIfFree(dbPath: string, io: DatabaseFileIo, log: Logger): Promise<void> {
  try {
    const lock = await acquireLock(dbPath, { timeoutMs: 0, log });
    if (!lock) return;
    try {
      await rollBack(io, dbPath, log);
    } finally {
      lock.release();
    }
  } catch (error) {
    // A read-only folder: the copy read is corrected in memory instead (see readInto).
    log.info(`The journal beside ${dbPath} was not undone on disk: ${error instanceof Error ? error.message : String(error)}`);
  }
}

async function readInto(
  SQL: SqlJsStatic,
  dbPath: string,
  io: DatabaseFileIo,
  log: Logger,
): Promise<LoadedDatabase & { consistent: boolean }> {
  const journalPath = journalPathOf(dbPath);
  const { identity, value } = await readDatabaseFileWith(dbPath, async (handle, size) => {
    const generation = await generationOf(handle);
    const journalBefore = await io.signature(journalPath);
    const db = new SQL.Database();
    const file = MemoryFile.attach(db);
    if (!file) {
      db.close();
      throw new Error('the database file of sql.js is not tracked');
    }
    const persistence = new PagePersistence(file, io, log);
    try {
      await file.load(size, async (into, offset) => (await handle.read(into, 0, into.length, offset)).bytesRead);
      const journalAfter = await io.signature(journalPath);
      const journal = journalAfter === undefined ? undefined : await parseJournal(io, dbPath);
      const unchanged = journalBefore === journalAfter && (await io.signature(journalPath)) === journalAfter;
      if (journal && unchanged) {
        // A save was (or died) writing in place: its journal's old bytes over the copy give the content before it.
        await readJournal(io, dbPath, journal, async (bytes, offset) => file.writeAt(bytes, offset));
        file.resize(journal.oldSize);
        return { db, persistence, consistent: true };
      }
      // No whole journal: no page was written in place during the read unless page 1 (written first) changed.
      const consistent = unchanged && generation === (await generationOf(handle));
      persistence.baseOnDisk = consistent;
      return { db, persistence, consistent };
    } catch (error) {
      persistence.close();
      db.close();
      throw error;
    }
  });
  return value ? { identity, ...value } : { identity, consistent: true };
}
