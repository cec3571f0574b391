import * as fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import type { Database, SqlJsStatic } from 'sql.js';
import {
  acquireLock,
  openDatabaseFile,
  pauseForTests,
  withLock,
  writeDatabaseFile,
  type DatabaseLock,
  type FileIdentity,
  type LockOptions,
} from '../databaseFile';
import type { Logger } from '../ports';
import type { DatabaseFileIo } from './fileIo';
import { journalPathOf, parseJournal, readJournal, rollBack, writePagesJournaled, type PageSource } from './pageJournal';
import { BaseChangedError, type BaseFile } from './blockStore';
import { MemoryFile, type MemoryFileOptions } from './wasmFiles';

/**
 * Saving and opening a database whose file is tracked (`MemoryFile`): the file on disk is the
 * base that unwritten blocks are read from, so an open reads nothing but the header. A save
 * writes the changed blocks in place through a rollback journal (`pageJournal.ts`) when they are
 * at most half of the file, else the whole file (temporary copy and rename, `writeDatabaseFile`),
 * which becomes the base. Neither makes a whole copy of the database in memory.
 */

/** How the last save wrote, and how much. */
export interface SaveReport {
  mode: 'pages' | 'whole';
  /** Bytes of database content written (the journal writes as much again). */
  changedBytes: number;
  /** Wall time of the writes, from the first byte to the flushed commit. */
  ms: number;
}

/** SQLite's header field `user_version`: the store's save generation, see `nextGeneration`. */
const generationOffset = 60;

function generationAt(fd: number): number {
  const bytes = Buffer.alloc(4);
  if (fs.readSync(fd, bytes, 0, 4, generationOffset) !== 4) throw new Error('the database file has no header');
  return bytes.readUInt32BE(0);
}

/** Opens the file a whole save just wrote, by name, checking it is the inode written. */
function openWritten(temporary: string, inode: string): number {
  const fd = fs.openSync(temporary, fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0));
  const stat = fs.fstatSync(fd, { bigint: true });
  if (`${stat.dev}:${stat.ino}` !== inode) {
    fs.closeSync(fd);
    throw new Error(`${temporary} was replaced before it was renamed`);
  }
  return fd;
}

/**
 * The save side. `baseOnDisk` is true when the file on disk held exactly this file's content at
 * the last save or open (apart from the blocks written since): only then can a save write just
 * the changed pages.
 */
export class PagePersistence {
  baseOnDisk = false;
  /** `dev:ino` of the base file: pages are written in place only into it. */
  private baseInode: string | undefined;
  private baseFd: number | undefined;
  /**
   * The save generations the base file may hold. Any other means another process saved pages
   * into it in place since: the blocks it now holds would mix two versions, so reads stop (the
   * store reopens). A save of our own that fails may leave its generation there, so it is kept.
   */
  private accepted = new Set<number>();

  constructor(
    readonly file: MemoryFile,
    private readonly io: DatabaseFileIo,
    private readonly log: Logger,
  ) {}

  /** Why reads of the base file stopped (another process wrote it in place), or undefined. */
  get stale(): string | undefined {
    return this.file.stale;
  }

  /** Makes the open database file `fd` (`size` bytes, inode `inode`) the base; it is closed with the file. */
  adopt(fd: number, size: number, inode: string): void {
    this.accepted = new Set([generationAt(fd)]);
    this.baseInode = inode;
    this.baseFd = fd;
    this.file.open(this.baseFile(fd, size));
  }

  private baseFile(fd: number, size: number): BaseFile {
    return {
      fd,
      size,
      verify: () => {
        const generation = generationAt(fd);
        if (!this.accepted.has(generation))
          throw new BaseChangedError(`the database file was saved by another process since it was read (save generation ${generation})`);
      },
    };
  }

  /** Undoes an interrupted save's journal; under the lock, before any save. */
  recover(dbPath: string): Promise<unknown> {
    return rollBack(this.io, dbPath, this.log);
  }

  /**
   * Writes what changed since the last save. `identity` is the file's identity the caller checked
   * under `lock`: pages are written in place only into that same inode, the base's.
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
    const generation = Buffer.from(file.read(generationOffset, 4)).readUInt32BE(0);
    const ranges = file.changedRanges();
    const changedBytes = ranges.reduce((sum, range) => sum + range.length, 0);
    const inode = identity === 'missing' ? undefined : identity.split(':').slice(0, 2).join(':');
    if (!this.baseOnDisk || inode === undefined || inode !== this.baseInode || changedBytes * 2 > size) {
      this.baseOnDisk = false;
      let written: number | undefined;
      try {
        await writeDatabaseFile(dbPath, source, lock, this.io, async (temporary, writtenInode) => {
          written = openWritten(temporary, writtenInode);
          this.baseInode = writtenInode;
        });
      } catch (error) {
        if (written !== undefined) fs.closeSync(written);
        throw error;
      }
      // The file written is the base now: the blocks just written are read from it from here on.
      const fd = written as number;
      this.accepted = new Set([generation]);
      this.baseFd = fd;
      file.saved(this.baseFile(fd, size));
      this.baseOnDisk = true;
      return { mode: 'whole', changedBytes: size, ms: performance.now() - started };
    }
    // Page 1 (with the new generation) is written first: from then on the base may hold either.
    this.accepted.add(generation);
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
    this.accepted = new Set([generation]);
    file.saved(this.baseFile(this.baseFd as number, size));
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

/**
 * Bumps the save generation in the database header before a save, so that page 1 is among the
 * pages written and changes first: a reader that sees the same generation before and after
 * reading from the file, and no journal, read no page of a save in progress (`loadDatabase`,
 * `PagePersistence.baseFile`).
 */
export function nextGeneration(db: Database): number {
  const next = (saveGeneration(db) + 1) % 2_000_000_000;
  db.exec(`PRAGMA user_version = ${next}`);
  return next;
}

/** The save generation in the database header (`PRAGMA user_version`; 0 before the first save). */
export function saveGeneration(db: Database): number {
  const value = db.exec('PRAGMA user_version')[0]?.values[0]?.[0];
  return typeof value === 'number' ? value : 0;
}

/**
 * Opens the database file as the base of a new sql.js database, without waiting for a writer
 * and without reading it (its blocks are read when SQLite asks for them). A journal of a save
 * that died is undone on disk first when the lock is free at once. A save may run meanwhile: the
 * open is checked against it (the journal's signature before, after and around the open, and
 * the save generation in the header before and after) and, when a whole journal was there all
 * along, its old bytes are put over the base, so the content seen is the last committed one
 * either way. An open that overlapped a change of the journal is made again; the fifth time
 * under the lock. Undefined `db`: a missing or empty file.
 */
export async function loadDatabase(
  SQL: SqlJsStatic,
  dbPath: string,
  io: DatabaseFileIo,
  lockOptions: LockOptions,
  fileOptions: MemoryFileOptions = {},
): Promise<LoadedDatabase> {
  const log = lockOptions.log;
  if (await io.exists(journalPathOf(dbPath))) await rollBackIfFree(dbPath, io, log);
  for (let attempt = 0; ; attempt++) {
    const read = () => readInto(SQL, dbPath, io, log, fileOptions);
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
  fileOptions: MemoryFileOptions,
): Promise<LoadedDatabase & { consistent: boolean }> {
  const journalPath = journalPathOf(dbPath);
  const opened = openDatabaseFile(dbPath);
  const { identity, fd } = opened;
  if (fd === undefined) return { identity, consistent: true };
  let db: Database | undefined;
  let persistence: PagePersistence | undefined;
  let adopted = false;
  try {
    const generation = generationAt(fd);
    const journalBefore = await io.signature(journalPath);
    db = new SQL.Database();
    const file = MemoryFile.attach(db, fileOptions);
    if (!file) throw new Error('the database file of sql.js is not tracked');
    persistence = new PagePersistence(file, io, log);
    persistence.adopt(fd, opened.size, opened.inode);
    adopted = true;
    const journalAfter = await io.signature(journalPath);
    const journal = journalAfter === undefined ? undefined : await parseJournal(io, dbPath);
    const unchanged = journalBefore === journalAfter && (await io.signature(journalPath)) === journalAfter;
    if (journal && unchanged) {
      // A save was (or died) writing in place: its journal's old bytes over the base give the content before it.
      await readJournal(io, dbPath, journal, async (bytes, offset) => file.writeAt(bytes, offset));
      file.resize(journal.oldSize);
      return { identity, db, persistence, consistent: true };
    }
    // No whole journal: no page was written in place meanwhile unless page 1 (written first) changed.
    const consistent = unchanged && generation === generationAt(fd);
    persistence.baseOnDisk = consistent;
    return { identity, db, persistence, consistent };
  } catch (error) {
    // The descriptor belongs to the file once adopted; before, it is closed here.
    persistence?.close();
    if (!adopted) fs.closeSync(fd);
    db?.close();
    throw error;
  }
}
