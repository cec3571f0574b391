import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { readInPieces, type Logger } from './ports';
import { nodeDatabaseFileIo, type DatabaseFileIo, type WritableFile } from './storage/fileIo';
import type { PageSource } from './storage/pageJournal';

/**
 * The database file on disk: what may be opened or replaced, the writers' lock, atomic writes and
 * the sweeping of temporary files. The index itself is disposable, but the path it is given is
 * not: `--db` may name anything, so nothing here follows a symbolic link, waits on a FIFO or
 * writes over a file it cannot prove is a Project Knowledge index (see ARCHITECTURE.md,
 * "The database file").
 */

/** The file at the database path is not ours to open or replace; its message is one line. */
export class DatabaseRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DatabaseRefusedError';
  }
}

/** The writers' lock could not be had in time; its message is one line naming the holder. */
export class DatabaseLockedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DatabaseLockedError';
  }
}

const sqliteHeader = Buffer.from('SQLite format 3\0', 'latin1');
const noFollow = fs.constants.O_NOFOLLOW ?? 0;
const nonBlocking = fs.constants.O_NONBLOCK ?? 0;

/**
 * What a database path held when it was read or last written: device, inode, size, and the
 * nanosecond modification and change times. Every write renames a new file into place, so a
 * write by anyone else changes it; `missing` when there was no file.
 */
export type FileIdentity = string;

function identityOf(stat: fs.BigIntStats): FileIdentity {
  return `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}`;
}

function describeKind(stat: fs.BigIntStats | fs.Stats): string {
  if (stat.isSymbolicLink()) return 'a symbolic link';
  if (stat.isDirectory()) return 'a directory';
  if (stat.isFIFO()) return 'a FIFO';
  if (stat.isSocket()) return 'a socket';
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'a device';
  return 'not a regular file';
}

function refusal(dbPath: string, why: string): DatabaseRefusedError {
  return new DatabaseRefusedError(`Refusing to use ${dbPath} as the index database: ${why}; it was left untouched.`);
}

async function lstatOrMissing(dbPath: string): Promise<fs.BigIntStats | undefined> {
  try {
    return await fs.promises.lstat(dbPath, { bigint: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw refusal(dbPath, `it cannot be examined (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
}

/** The identity the path has now; refuses anything but a missing path or a regular file. */
export async function currentIdentity(dbPath: string): Promise<FileIdentity> {
  const stat = await lstatOrMissing(dbPath);
  if (!stat) return 'missing';
  if (!stat.isFile()) throw refusal(dbPath, `it is ${describeKind(stat)}`);
  return identityOf(stat);
}

/**
 * The microseconds of the modification time a completed save leaves on the file for its save
 * generation (1 to 999,999: a file system that keeps whole seconds only shows 0, never a seal).
 */
function sealMicros(generation: number): number {
  return 1 + ((Math.imul(generation, 2654435761) >>> 0) % 999_999);
}

/**
 * Seals the file a save just completed: its modification time is set to this second plus the
 * microseconds `sealMicros` derives from the save generation in its header. Any later write by
 * anyone (another program, a copy over it, a save that dies half way) sets a new time whose
 * microseconds match the header's generation by chance only (about 1 in 500,000), so an intact
 * seal says the bytes are those of a save that completed, and the open skips the integrity
 * check, a pass over every page (1.2 s on a 24 MB index, 28 s at 50,000 files). Called under the
 * writers' lock, after the path was checked to be the regular file written; a file system that
 * refuses it only leaves the check to run.
 */
export async function sealFile(dbPath: string, generation: number): Promise<void> {
  try {
    const stat = await fs.promises.lstat(dbPath);
    if (!stat.isFile()) return;
    const modified = Math.floor(Date.now() / 1000) + sealMicros(generation) / 1e6;
    await fs.promises.lutimes(dbPath, stat.atime, modified);
  } catch {
    // Unsealed: the next open checks the file's integrity instead.
  }
}

/** True when `identity` (read at open) carries the seal of a completed save of generation `generation` (see `sealFile`). */
export function isSealed(identity: FileIdentity, generation: number): boolean {
  const parts = identity.split(':');
  if (parts.length !== 5) return false;
  const mtimeNs = BigInt(parts[3]);
  // The time goes through a double of seconds (0.24 µs apart at this epoch): one microsecond of slack.
  const micros = Number(mtimeNs % 1_000_000_000n) / 1000;
  return Math.abs(micros - sealMicros(generation)) <= 1;
}

export interface DatabaseFileContents {
  identity: FileIdentity;
  /** The file's bytes, starting with the SQLite header; undefined for a missing or empty file. */
  bytes?: Uint8Array;
}

/**
 * Reads the database path without following a symbolic link or blocking on a FIFO: a missing or
 * empty file, or the bytes of a regular file with a SQLite header. Anything else is refused.
 * Whether the SQLite database is ours is the store's question (its meta table).
 */
export async function readDatabaseFile(dbPath: string): Promise<DatabaseFileContents> {
  const { identity, value } = await readDatabaseFileWith(dbPath, readInPieces);
  return { identity, bytes: value };
}

/**
 * `readDatabaseFile` with the reading of the checked descriptor left to `receive` (given the
 * handle and the file's size), so the bytes can go where they are needed without a whole copy
 * in between (see storage/loadDatabase.ts). `value` is undefined for a missing or empty file.
 */
export async function readDatabaseFileWith<T>(
  dbPath: string,
  receive: (handle: fs.promises.FileHandle, size: number) => Promise<T>,
): Promise<{ identity: FileIdentity; value?: T }> {
  const before = await lstatOrMissing(dbPath);
  if (!before) return { identity: 'missing' };
  if (!before.isFile()) throw refusal(dbPath, `it is ${describeKind(before)}`);
  let handle: fs.promises.FileHandle;
  try {
    handle = await fs.promises.open(dbPath, fs.constants.O_RDONLY | noFollow | nonBlocking);
  } catch (error) {
    throw refusal(dbPath, `it cannot be opened (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  try {
    // The stat of the open descriptor describes the bytes read, whatever the path names now.
    const stat = await handle.stat({ bigint: true });
    if (!stat.isFile() || stat.ino !== before.ino || stat.dev !== before.dev) {
      throw refusal(dbPath, 'it was replaced while it was being opened');
    }
    const identity = identityOf(stat);
    if (stat.size === 0n) return { identity };
    if (stat.size < BigInt(sqliteHeader.length)) throw refusal(dbPath, 'it is not a SQLite database');
    const header = Buffer.alloc(sqliteHeader.length);
    await handle.read(header, 0, header.length, 0);
    if (!header.equals(sqliteHeader)) throw refusal(dbPath, 'it is not a SQLite database');
    return { identity, value: await receive(handle, Number(stat.size)) };
  } finally {
    await handle.close();
  }
}

/** An open database file that blocks are read from on demand (see storage/blockStore.ts); `fd` is the caller's to close. */
export interface OpenDatabaseFile {
  identity: FileIdentity;
  /** Undefined for a missing or empty file. */
  fd?: number;
  size: number;
  /** `dev:ino` of the descriptor. */
  inode: string;
}

/**
 * `readDatabaseFile`'s checks (no symbolic link, no FIFO, a regular file with a SQLite header,
 * the descriptor's inode the path's), leaving the descriptor open for reads on demand instead of
 * reading the file. Synchronous, because SQLite's reads through it are.
 */
export function openDatabaseFile(dbPath: string): OpenDatabaseFile {
  let before: fs.BigIntStats;
  try {
    before = fs.lstatSync(dbPath, { bigint: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { identity: 'missing', size: 0, inode: '' };
    throw refusal(dbPath, `it cannot be examined (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  if (!before.isFile()) throw refusal(dbPath, `it is ${describeKind(before)}`);
  let fd: number;
  try {
    fd = fs.openSync(dbPath, fs.constants.O_RDONLY | noFollow | nonBlocking);
  } catch (error) {
    throw refusal(dbPath, `it cannot be opened (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  let keep = false;
  try {
    const stat = fs.fstatSync(fd, { bigint: true });
    if (!stat.isFile() || stat.ino !== before.ino || stat.dev !== before.dev)
      throw refusal(dbPath, 'it was replaced while it was being opened');
    const identity = identityOf(stat);
    const inode = `${stat.dev}:${stat.ino}`;
    if (stat.size === 0n) return { identity, size: 0, inode };
    const header = Buffer.alloc(sqliteHeader.length);
    if (
      stat.size < BigInt(sqliteHeader.length) ||
      fs.readSync(fd, header, 0, header.length, 0) !== header.length ||
      !header.equals(sqliteHeader)
    )
      throw refusal(dbPath, 'it is not a SQLite database');
    keep = true;
    return { identity, fd, size: Number(stat.size), inode };
  } finally {
    if (!keep) fs.closeSync(fd);
  }
}

/**
 * Opens a file written blocks can spill to while the database is open (storage/blockStore.ts):
 * a new temporary file beside the database, unlinked at once where the system allows it, so it
 * takes no name and its space comes back when it is closed or the process dies. Where it cannot
 * be unlinked it keeps a temporary file's name, which `sweepTemporaryFiles` removes later.
 */
export function openSpillFile(dbPath: string): number {
  const name = temporaryName(dbPath);
  const fd = fs.openSync(name, fs.constants.O_RDWR | fs.constants.O_CREAT | fs.constants.O_EXCL | noFollow, 0o600);
  try {
    fs.unlinkSync(name);
  } catch {
    // Windows may refuse to unlink an open file: the name is swept as a leftover later.
  }
  return fd;
}

/** The refusal for a SQLite file that is not (or cannot be proved to be) a Project Knowledge index. */
export function notOurDatabase(dbPath: string, why: string): DatabaseRefusedError {
  return refusal(dbPath, why);
}

// ---- temporary files ---------------------------------------------------------------------------

/** `<db>.<pid>.<random>.tmp` (and `<db>.lock.<pid>.<random>.stale`, see `takeOver`): the only names `sweepTemporaryFiles` removes. */
function temporaryName(dbPath: string): string {
  return `${dbPath}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
}

function temporaryPattern(dbPath: string): RegExp {
  const base = path.basename(dbPath).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`^${base}(\\.\\d+\\.[0-9a-f]{12}\\.tmp|\\.lock\\.\\d+\\.[0-9a-f]{12}\\.stale)$`);
}

/**
 * Removes the temporary files of earlier writes beside `dbPath`. Only a writer holding the lock
 * has a temporary file, so under the lock every one left is an orphan (a kill or a crash).
 */
export async function sweepTemporaryFiles(dbPath: string, log: Logger): Promise<number> {
  const directory = path.dirname(dbPath);
  const pattern = temporaryPattern(dbPath);
  let names: string[];
  try {
    names = await fs.promises.readdir(directory);
  } catch {
    return 0;
  }
  let removed = 0;
  for (const name of names.filter((entry) => pattern.test(entry))) {
    const absolute = path.join(directory, name);
    try {
      if (!(await fs.promises.lstat(absolute)).isFile()) continue;
      await fs.promises.unlink(absolute);
      removed++;
    } catch (error) {
      log.warn(`Could not remove the leftover temporary file ${absolute}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
    }
  }
  if (removed > 0) log.info(`Removed ${removed} leftover temporary file(s) of ${dbPath}.`);
  return removed;
}

/**
 * Writes `bytes` (or a `PageSource`'s whole file, a piece at a time) to a new temporary file
 * beside `dbPath` through `io`, flushes it, renames it into place and flushes the directory. On
 * any failure (a full disk, a size limit, an exception) the temporary file is removed before the
 * error is passed on. Called with the lock held.
 */
export async function writeDatabaseFile(
  dbPath: string,
  bytes: Uint8Array | PageSource,
  lock: DatabaseLock,
  io: DatabaseFileIo = nodeDatabaseFileIo,
  written?: (temporary: string, inode: string) => Promise<void>,
): Promise<void> {
  const temporary = temporaryName(dbPath);
  let file: WritableFile | undefined;
  try {
    file = await io.open(temporary, 'create');
    const size = bytes instanceof Uint8Array ? bytes.length : bytes.size;
    // A page source copies each piece out of sql.js's file: smaller pieces bound that copy.
    const piece = (bytes instanceof Uint8Array ? 64 : 8) * 1024 * 1024;
    for (let offset = 0; offset < size; offset += piece) {
      const length = Math.min(size - offset, piece);
      await file.write(bytes instanceof Uint8Array ? bytes.subarray(offset, offset + length) : bytes.read(offset, length), offset);
    }
    await file.sync();
    const inode = await file.inode();
    await file.close();
    file = undefined;
    // The caller may open the written file (by its inode) before it takes the database's name.
    await written?.(temporary, inode);
    await pauseForTests('temp-written');
    // A lock taken over in the meantime (it never should be) must not let two writers rename.
    lock.verify();
    await io.rename(temporary, dbPath);
    await io.syncDirectory(path.dirname(dbPath));
  } catch (error) {
    await file?.close().catch(() => undefined);
    await io.remove(temporary).catch(() => undefined);
    throw error;
  }
}

/** Where a save can be stopped by `pauseForTests`. */
export type SavePoint = 'before-lock' | 'temp-written' | 'journal-written' | 'pages-written';

/**
 * Test hook: with `PK_TEST_PAUSE_IN_SAVE` set to a folder, a save stops at `PK_TEST_PAUSE_POINT`
 * (`temp-written`, the default: its temporary file written, the lock held; `before-lock`: the
 * database ready, the lock not yet asked for; `journal-written`: a page save's journal flushed,
 * the database not yet touched; `pages-written`: its pages written in place and flushed, the
 * journal not yet removed), says so by creating `paused` there and waits
 * until `resume` appears, so a test can kill or race the writer at exactly that point without
 * guessing with sleeps. Unset, it costs one environment lookup per save.
 */
export async function pauseForTests(point: SavePoint): Promise<void> {
  const folder = process.env.PK_TEST_PAUSE_IN_SAVE;
  if (!folder || (process.env.PK_TEST_PAUSE_POINT ?? 'temp-written') !== point) return;
  fs.writeFileSync(path.join(folder, 'paused'), String(process.pid));
  while (!fs.existsSync(path.join(folder, 'resume'))) await new Promise((resolve) => setTimeout(resolve, 20));
}

// ---- the writers' lock -------------------------------------------------------------------------

interface LockOwner {
  pid: number;
  host: string;
  since: string;
  token: string;
}

/** How long a lock file may stay unreadable (being written by its creator) before it counts as abandoned. */
const unreadableLockGraceMs = 10_000;

function parseOwner(text: string): LockOwner | undefined {
  try {
    const value = JSON.parse(text) as Partial<LockOwner>;
    const complete =
      typeof value.pid === 'number' && typeof value.host === 'string' && typeof value.since === 'string' && typeof value.token === 'string';
    if (complete) return value as LockOwner;
  } catch {
    // An unreadable lock file is judged by its age instead.
  }
  return undefined;
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A held lock on one database; `release` is safe to call twice. */
export class DatabaseLock {
  private released = false;

  constructor(
    readonly lockPath: string,
    private readonly handle: number,
    private readonly owner: LockOwner,
  ) {}

  /** Throws unless the lock file at `lockPath` is still the one this lock created. */
  verify(): void {
    const mine = fs.fstatSync(this.handle);
    let current: fs.Stats;
    try {
      current = fs.lstatSync(this.lockPath);
    } catch {
      throw new DatabaseLockedError(`The lock ${this.lockPath} of pid ${this.owner.pid} disappeared during a save; the save was given up.`);
    }
    if (current.ino !== mine.ino || current.dev !== mine.dev) {
      throw new DatabaseLockedError(`The lock ${this.lockPath} was taken over by another process during a save; the save was abandoned.`);
    }
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    try {
      // Only our own lock file is removed: one taken over by someone else stays theirs.
      const mine = fs.fstatSync(this.handle);
      const current = fs.lstatSync(this.lockPath);
      if (current.ino === mine.ino && current.dev === mine.dev) fs.unlinkSync(this.lockPath);
    } catch {
      // Already gone: nothing to release.
    } finally {
      fs.closeSync(this.handle);
    }
  }
}

export interface LockOptions {
  /** How long to wait for a live holder; 0 tries once. */
  timeoutMs: number;
  log: Logger;
}

/** `<db>.lock`, beside the database. */
export function lockPathOf(dbPath: string): string {
  return `${dbPath}.lock`;
}

/**
 * Takes the writers' lock of `dbPath`: a file `<db>.lock` created exclusively, holding the pid,
 * host, time and a random token. A lock whose process is dead on this host (or whose file stayed
 * unreadable past a grace period) is stale and taken over; a live one is waited for with bounded
 * polling, saying so once. Undefined when `timeoutMs` is 0 and the lock is held.
 */
export async function acquireLock(dbPath: string, options: LockOptions): Promise<DatabaseLock | undefined> {
  const lockPath = lockPathOf(dbPath);
  const owner: LockOwner = {
    pid: process.pid,
    host: os.hostname(),
    since: new Date().toISOString(),
    token: randomBytes(8).toString('hex'),
  };
  const started = Date.now();
  let delay = 20;
  let announced = false;
  for (;;) {
    const created = tryCreate(lockPath, owner);
    if (created !== undefined) return new DatabaseLock(lockPath, created, owner);
    const holder = readHolder(lockPath);
    if (holder === 'gone') continue;
    if (holder.stale) {
      if (takeOver(lockPath, holder.ino)) options.log.info(`Took over the stale lock ${lockPath} (${holder.description}).`);
      continue;
    }
    if (Date.now() - started >= options.timeoutMs) {
      if (options.timeoutMs === 0) return undefined;
      const waited = (options.timeoutMs / 1000).toFixed(1);
      const advice = `remove ${lockPath} if no such process runs`;
      throw new DatabaseLockedError(`The index ${dbPath} is locked by ${holder.description}; gave up after ${waited} s (${advice}).`);
    }
    if (!announced) {
      announced = true;
      options.log.warn(`Waiting for the index ${dbPath}: it is locked by ${holder.description}.`);
    }
    await new Promise((resolve) => setTimeout(resolve, delay));
    delay = Math.min(250, delay * 2);
  }
}

function tryCreate(lockPath: string, owner: LockOwner): number | undefined {
  let handle: number;
  try {
    handle = fs.openSync(lockPath, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | noFollow, 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return undefined;
    throw new DatabaseLockedError(`Cannot create the lock ${lockPath}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  try {
    fs.writeSync(handle, JSON.stringify(owner));
  } catch (error) {
    fs.closeSync(handle);
    fs.rmSync(lockPath, { force: true });
    throw new DatabaseLockedError(`Cannot write the lock ${lockPath}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  return handle;
}

function readHolder(lockPath: string): 'gone' | { stale: boolean; ino: number; description: string } {
  let text: string;
  let stat: fs.Stats;
  try {
    const handle = fs.openSync(lockPath, fs.constants.O_RDONLY | noFollow | nonBlocking);
    try {
      stat = fs.fstatSync(handle);
      text = stat.isFile() && stat.size <= 4096 ? fs.readFileSync(handle, 'utf8') : '';
    } finally {
      fs.closeSync(handle);
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'gone';
    throw new DatabaseLockedError(`Cannot read the lock ${lockPath}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  const owner = parseOwner(text);
  if (!owner) {
    const stale = Date.now() - stat.mtimeMs > unreadableLockGraceMs;
    return { stale, ino: stat.ino, description: 'a process that has not finished writing the lock file' };
  }
  const description = `pid ${owner.pid} on ${owner.host} since ${owner.since}`;
  // A process on another host cannot be checked: its lock is waited for, never taken over.
  return { stale: owner.host === os.hostname() && !processAlive(owner.pid), ino: stat.ino, description };
}

/**
 * Removes a stale lock file, if the file at `lockPath` is still the one judged stale: it is first
 * renamed aside (atomic, so of two processes taking over at once only one moves it), then
 * checked; a live lock moved by mistake is linked back.
 */
function takeOver(lockPath: string, staleIno: number): boolean {
  const aside = `${lockPath}.${process.pid}.${randomBytes(6).toString('hex')}.stale`;
  try {
    fs.renameSync(lockPath, aside);
  } catch {
    return false;
  }
  try {
    if (fs.lstatSync(aside).ino === staleIno) return true;
    try {
      fs.linkSync(aside, lockPath);
    } catch {
      // Someone took the free name meanwhile; the live holder finds out when it verifies.
    }
    return false;
  } finally {
    fs.rmSync(aside, { force: true });
  }
}

/** Runs `work` holding the lock of `dbPath`, released afterwards whatever happens. */
export async function withLock<T>(dbPath: string, options: LockOptions, work: (lock: DatabaseLock) => Promise<T>): Promise<T> {
  const lock = await acquireLock(dbPath, options);
  if (!lock) throw new DatabaseLockedError(`The index ${dbPath} is locked.`);
  try {
    return await work(lock);
  } finally {
    lock.release();
  }
}
