import type { Database, SqlJsStatic } from 'sql.js';
import { BaseChangedError, BlockStore, type BaseFile, type ByteRange } from './blockStore';

/**
 * The database file as SQLite in sql.js sees it. sql.js keeps it in Emscripten's in-memory file
 * system (MEMFS) and SQLite reaches it through six system calls the WebAssembly module imports
 * (open, seek, read, write, truncate, fstat). sql.js exports neither the file system nor those
 * calls, and its release build minifies their names, so `installFileHooks` wraps every import
 * before the module is instantiated and `identifyFileCalls` finds the six by watching a probe
 * database open, write and shrink its file. With them, a tracked database's file (`MemoryFile`)
 * is not in MEMFS at all: its reads, writes, size and truncation are served by a `BlockStore`,
 * which reads unwritten blocks on demand from the database file on disk and keeps the written
 * ones (so a save writes only those), in memory up to a budget and in a spill file past it. Its
 * rollback journal is served the same way, by a store of its own. If the probe cannot tell the
 * calls apart (another sql.js build), `MemoryFile.attach` returns undefined and the store keeps
 * whole files in MEMFS and exports them as before.
 */

type ImportFunction = (...args: unknown[]) => unknown;

interface Slot {
  readonly original: ImportFunction;
  current: ImportFunction;
}

interface RecordedCall {
  slot: Slot;
  args: unknown[];
  result: unknown;
  /** The C string a pointer argument named, when it holds `dbfile_` (sql.js's database file names). */
  path?: string;
}

interface FileCalls {
  open: Slot;
  seek: Slot;
  read: Slot;
  write: Slot;
  truncate: Slot;
  fstat: Slot;
}

interface WasmMemory {
  readonly buffer: ArrayBuffer;
}

interface Allocator {
  _malloc(size: number): number;
}

/** Bytes moved between the WebAssembly memory and the file per call: bounds the copies a save or an open holds. */
export const pieceBytes = 1024 * 1024;
/** The unit of change tracking; SQLite's pages (4096 bytes here) are whole blocks. */
export { blockBytes } from './blockStore';

/** WASI's and Linux's error numbers the hooks answer with: an I/O error, an invalid argument. */
const wasiIoError = 29;
const wasiInvalid = 28;
/** Where Emscripten's `struct stat` keeps `st_size` (a 64-bit integer) and `st_mode`. */
const statSizeOffset = 24;
const statModeOffset = 4;
const regularFileMode = 0o100000;

const slots: Slot[] = [];
let recording: RecordedCall[] | undefined;
let calls: FileCalls | undefined;
let unavailable = 'the sql.js module was loaded without file hooks';
let memory: WasmMemory | undefined;
/** Scratch space in the WebAssembly heap: an iovec, a result word, a 64-bit offset, a stat buffer, then one piece. */
let scratch = 0;
const scratchData = 256;
const fdPaths = new Map<number, string>();
/** The descriptors of tracked files: every call on one is answered by its `MemoryFile`. */
const fdFiles = new Map<number, MemoryFile>();
const tracked = new Map<string, MemoryFile>();

/** sql.js names each database's MEMFS file `dbfile_<random>` and keeps the name on the object (not in its typings). */
function fileNameOf(db: Database): string {
  const name = (db as unknown as { filename?: unknown }).filename;
  if (typeof name !== 'string') throw new Error('this sql.js build keeps no file name on its databases');
  return name;
}

let views: { buffer: ArrayBuffer; bytes: Uint8Array; words: Uint32Array; view: DataView } | undefined;

/** Views of the WebAssembly memory, made again only when it grew (every file call uses them). */
function heap(): { bytes: Uint8Array; words: Uint32Array; view: DataView } {
  const buffer = (memory as WasmMemory).buffer;
  if (views?.buffer !== buffer)
    views = { buffer, bytes: new Uint8Array(buffer), words: new Uint32Array(buffer), view: new DataView(buffer) };
  return views;
}

function cString(pointer: unknown): string | undefined {
  if (typeof pointer !== 'number' || pointer <= 0 || !memory) return undefined;
  const bytes = new Uint8Array(memory.buffer);
  if (pointer >= bytes.length) return undefined;
  const end = bytes.indexOf(0, pointer);
  if (end < 0 || end - pointer > 512) return undefined;
  const text = Buffer.from(bytes.subarray(pointer, end)).toString('latin1');
  return text.includes('dbfile_') ? text : undefined;
}

/**
 * Wraps every function sql.js's module imports, before instantiation, so that the file calls
 * can be observed and, once identified, tracked. An unidentified import costs one extra call.
 */
export function installFileHooks(imports: object): void {
  for (const group of Object.values(imports) as unknown[]) {
    if (!group || typeof group !== 'object') continue;
    const functions = group as Record<string, unknown>;
    for (const [name, value] of Object.entries(functions)) {
      if (typeof value !== 'function') continue;
      const slot: Slot = { original: value as ImportFunction, current: value as ImportFunction };
      slots.push(slot);
      functions[name] = (...args: unknown[]) => {
        if (!recording) return slot.current(...args);
        const result = slot.original(...args);
        recording.push({ slot, args, result, path: args.map(cString).find((text) => text !== undefined) });
        return result;
      };
    }
  }
}

function record<T>(work: () => T): { value: T; calls: RecordedCall[] } {
  const calls: RecordedCall[] = [];
  recording = calls;
  try {
    return { value: work(), calls };
  } finally {
    recording = undefined;
  }
}

function onFile(call: RecordedCall, fd: number): boolean {
  return call.args[0] === fd;
}

/** The MEMFS file's size through the original seek (to its end, then back). */
function memfsSize(found: FileCalls, fd: number): number {
  const { view } = heap();
  if (found.seek.original(fd, 0n, 1, scratch + 8) !== 0) return -1;
  const position = view.getBigInt64(scratch + 8, true);
  if (found.seek.original(fd, 0n, 2, scratch + 8) !== 0) return -1;
  const size = Number(heap().view.getBigInt64(scratch + 8, true));
  found.seek.original(fd, position, 0, scratch + 8);
  return size;
}

/** Reads the MEMFS file through the original calls, a piece at a time (a probe's check, and adopting a file's first pages). */
function readMemfs(found: FileCalls, fd: number, offset: number, length: number, sink: (bytes: Uint8Array, at: number) => void): void {
  let done = 0;
  while (done < length) {
    const piece = Math.min(pieceBytes, length - done);
    if (found.seek.original(fd, BigInt(offset + done), 0, scratch + 8) !== 0) throw new Error('seeking the database file failed');
    const iov = heap();
    iov.words[scratch >>> 2] = scratch + scratchData;
    iov.words[(scratch >>> 2) + 1] = piece;
    const code = found.read.original(fd, scratch, 1, scratch + 16);
    const count = heap().words[(scratch + 16) >>> 2];
    if (code !== 0 || count === 0) throw new Error(`reading the database file failed at ${offset + done}`);
    sink(heap().bytes.subarray(scratch + scratchData, scratch + scratchData + count), done);
    done += count;
  }
}

/**
 * Finds the six file calls by what a probe database does: the call that names its file and
 * returns a descriptor is `open`; on that descriptor, the call with a 64-bit offset and four
 * arguments is `seek`, the one with two is `truncate`; the four-number call made while opening
 * (SQLite reads the header) is `read`, the other one made while writing is `write`; the first
 * two-number call is `fstat` (SQLite asks for the file's inode when it opens it), checked by the
 * size and file type it writes. The result is then checked by reading the probe's file back
 * through them and comparing it with sql.js's own export. Called once, after the module is loaded.
 */
export function identifyFileCalls(SQL: SqlJsStatic, wasmMemory: WasmMemory): void {
  if (slots.length === 0) return;
  memory = wasmMemory;
  let probe: Database | undefined;
  try {
    const { value: db, calls: opening } = record(() => new SQL.Database());
    probe = db;
    const name = fileNameOf(db);
    const open = opening.find((call) => call.path?.endsWith(name) && typeof call.result === 'number' && call.result >= 0);
    if (!open) throw new Error('no open call named the database file');
    const fd = open.result as number;
    const numbers = (call: RecordedCall) => call.args.length === 4 && call.args.every((arg) => typeof arg === 'number');
    const seek = opening.find((call) => onFile(call, fd) && call.args.length === 4 && typeof call.args[1] === 'bigint');
    const read = opening.find((call) => onFile(call, fd) && numbers(call));
    const { calls: writing } = record(() =>
      db.exec('PRAGMA journal_mode = OFF; CREATE TABLE probe(x); INSERT INTO probe VALUES (randomblob(20000)); DELETE FROM probe; VACUUM;'),
    );
    const write = writing.find((call) => onFile(call, fd) && numbers(call) && call.slot !== read?.slot);
    const truncate = writing.find((call) => onFile(call, fd) && call.args.length === 2 && typeof call.args[1] === 'bigint');
    const fstat = [...opening, ...writing].find((call) => onFile(call, fd) && call.args.length === 2 && typeof call.args[1] === 'number');
    if (!seek || !read || !write || !truncate || !fstat) throw new Error('the seek, read, write, truncate or fstat call was not seen');
    const found: FileCalls = {
      open: open.slot,
      seek: seek.slot,
      read: read.slot,
      write: write.slot,
      truncate: truncate.slot,
      fstat: fstat.slot,
    };
    scratch = (SQL as unknown as Allocator)._malloc(pieceBytes + scratchData);
    if (!scratch) throw new Error('no scratch memory');
    const size = memfsSize(found, fd);
    const stat = scratch + 32;
    heap().bytes.fill(0, stat, stat + 128);
    const code = found.fstat.original(fd, stat);
    const view = heap().view;
    if (
      code !== 0 ||
      Number(view.getBigInt64(stat + statSizeOffset, true)) !== size ||
      (view.getUint32(stat + statModeOffset, true) & 0o170000) !== regularFileMode
    )
      throw new Error('the fstat call did not describe the database file');
    const viaCalls = Buffer.allocUnsafe(size);
    readMemfs(found, fd, 0, size, (bytes, at) => viaCalls.set(bytes, at));
    const exported = db.export();
    // sql.js exports through SQLite's backup API, which writes its own header fields (change
    // counter, schema cookie, format bytes) into page 1: everything after the header must match.
    const same = (from: number, to: number) => viaCalls.subarray(from, to).equals(Buffer.from(exported.subarray(from, to)));
    if (viaCalls.length !== exported.length || !same(0, 16) || !same(100, viaCalls.length))
      throw new Error('the file read through the calls differs from the export');
    calls = found;
    hook(found);
    unavailable = '';
  } catch (error) {
    calls = undefined;
    for (const slot of slots) slot.current = slot.original;
    unavailable = `sql.js's file calls could not be identified (${error instanceof Error ? error.message : String(error)})`;
  } finally {
    probe?.close();
  }
}

/** Replaces the six calls: a tracked file's descriptor is served by its `MemoryFile`, any other by MEMFS. */
function hook(found: FileCalls): void {
  found.open.current = (...args: unknown[]) => {
    const fd = found.open.original(...args);
    if (typeof fd === 'number' && fd >= 0) {
      const text = cString(args[1]);
      const path = text === undefined ? undefined : text.startsWith('/') ? text : `/${text}`;
      if (path === undefined) fdPaths.delete(fd);
      else fdPaths.set(fd, path);
      const file = path === undefined ? undefined : tracked.get(path);
      if (file) fdFiles.set(fd, file);
      else fdFiles.delete(fd);
    }
    return fd;
  };
  const on =
    (slot: Slot, serve: (file: MemoryFile, args: unknown[]) => unknown): ImportFunction =>
    (...args: unknown[]) => {
      const file = typeof args[0] === 'number' ? fdFiles.get(args[0]) : undefined;
      return file ? serve(file, args) : slot.original(...args);
    };
  found.seek.current = on(found.seek, (file, args) => file.seekCall(Number(args[1]), args[2] as number, args[3] as number));
  found.read.current = on(found.read, (file, args) => file.transferCall('read', args[1] as number, args[2] as number, args[3] as number));
  found.write.current = on(found.write, (file, args) =>
    file.transferCall('write', args[1] as number, args[2] as number, args[3] as number),
  );
  found.truncate.current = on(found.truncate, (file, args) => file.truncateCall(Number(args[1])));
  found.fstat.current = on(found.fstat, (file, args) => {
    const code = found.fstat.original(...args);
    if (code === 0) file.statCall(args[1] as number);
    return code;
  });
}

/** Why on-demand database files are off in this process, or '' when they are on. */
export function fileHooksUnavailable(): string {
  return unavailable;
}

export type { ByteRange } from './blockStore';

export interface MemoryFileOptions {
  /** Bytes of written blocks kept in memory before they go to the spill file (default 16 MiB). */
  residentBytes?: number;
  /** Makes the spill file (see `BlockStore`); undefined: written blocks all stay in memory. */
  openSpill?: () => number;
  warn?: (message: string) => void;
}

export interface Residency {
  residentBytes: number;
  spillWrites: number;
  spillReads: number;
  baseReads: number;
  /** The rollback journal's blocks in memory and bytes written to its spill file. */
  journal?: { residentBytes: number; spillWrites: number };
}

/** Default budget of written blocks in memory: a one-file edit's pages fit many times over, a cold index's do not. */
export const defaultResidentBytes = 16 * 1024 * 1024;
/** Budget of a rollback journal's blocks in memory, never above its database's: a one-file edit's journal fits, a cold index's merges spill. */
export const journalResidentBytes = 4 * 1024 * 1024;

/**
 * The file of one open sql.js database, served by a `BlockStore` instead of MEMFS: its size,
 * reads and writes in pieces, and the blocks SQLite wrote since the last save.
 */
export class MemoryFile {
  private readonly store: BlockStore;
  /** The database's rollback journal, tracked beside it (see `attach`); undefined for a journal. */
  private journal: MemoryFile | undefined;
  private positionNow = 0;
  private writeCount = 0;
  /** Set when the base file changed behind our back: every read fails from then on (the store reopens). */
  private staleReason: string | undefined;

  private constructor(
    private readonly path: string,
    options: MemoryFileOptions,
    /** A rollback journal: emptied, it gives back its memory and its spill file's blocks. */
    private readonly isJournal = false,
  ) {
    this.store = new BlockStore({
      residentBytes: options.residentBytes ?? defaultResidentBytes,
      openSpill: options.openSpill,
      warn: options.warn,
    });
  }

  /** True once the file calls are identified (after `loadSqlite`). */
  static get available(): boolean {
    return calls !== undefined;
  }

  /**
   * Tracks `db`'s file from now on; undefined when the file calls are not known (see
   * `fileHooksUnavailable`). Whatever SQLite already wrote into MEMFS (a new database's schema)
   * is taken over as written blocks and MEMFS's copy is emptied. Its rollback journal
   * (`<file>-journal`) is tracked too, in a store of its own that spills past
   * `journalResidentBytes` and gives its memory back when SQLite empties it at a commit: in MEMFS
   * a journal is one array, copied into one an eighth larger at each growth, and an FTS4 merge
   * in a cold index journals megabytes of freed pages (secure_delete zeroes them), so the old
   * copies piled up outside V8's heap, 30 MB at the 4,206-file repository's peak.
   */
  static attach(db: Database, options: MemoryFileOptions = {}): MemoryFile | undefined {
    if (!calls) return undefined;
    const path = `/${fileNameOf(db)}`;
    const file = new MemoryFile(path, options);
    if (!MemoryFile.adopt(calls, path, file, true)) return undefined;
    file.journal = new MemoryFile(
      `${path}-journal`,
      {
        ...options,
        residentBytes: Math.min(journalResidentBytes, options.residentBytes ?? defaultResidentBytes),
      },
      true,
    );
    MemoryFile.adopt(calls, file.journal.path, file.journal, false);
    return file;
  }

  /**
   * Makes `file` serve `path` from now on. A descriptor already open on it in MEMFS (a new
   * database's, which SQLite wrote its schema through) is taken over, its bytes as written
   * blocks, and MEMFS's copy is emptied. False when `required` and no such descriptor is open.
   */
  private static adopt(found: FileCalls, path: string, file: MemoryFile, required: boolean): boolean {
    const descriptors = [...fdPaths].filter(([, name]) => name === path).map(([fd]) => fd);
    const fd = descriptors.find((candidate) => memfsSize(found, candidate) >= 0);
    if (fd === undefined && required) return false;
    if (fd !== undefined) {
      const size = memfsSize(found, fd);
      readMemfs(found, fd, 0, size, (bytes, at) => file.store.write(bytes, 0, at, bytes.length));
      if (found.truncate.original(fd, 0n) !== 0) throw new Error(`emptying the in-memory file ${path} failed`);
    }
    tracked.set(path, file);
    for (const candidate of descriptors) fdFiles.set(candidate, file);
    return true;
  }

  get size(): number {
    return this.store.size;
  }

  /** Count of writes SQLite made to the file so far: a save compares it to know nothing wrote meanwhile. */
  get writes(): number {
    return this.writeCount;
  }

  /** Why the file's reads fail (its base changed on disk behind our back), or undefined. */
  get stale(): string | undefined {
    return this.staleReason;
  }

  /** Bytes of written blocks in memory, and moved to and from the spill file (for the benchmark); the journal's apart. */
  get residency(): Residency {
    return {
      residentBytes: this.store.residentBytes,
      spillWrites: this.store.spillWrites,
      spillReads: this.store.spillReads,
      baseReads: this.store.baseReads,
      journal: this.journal && { residentBytes: this.journal.store.residentBytes, spillWrites: this.journal.store.spillWrites },
    };
  }

  /** Copies `length` bytes from `offset` into a new buffer. */
  read(offset: number, length: number): Uint8Array {
    if (this.staleReason !== undefined) throw new BaseChangedError(this.staleReason);
    const target = Buffer.allocUnsafe(length);
    let count: number;
    try {
      count = this.store.read(target, 0, offset, length);
    } catch (error) {
      if (error instanceof BaseChangedError) this.markStale(error.message);
      throw error;
    }
    if (count !== length) throw new Error(`reading the database file failed at ${offset + count}`);
    return target;
  }

  /** Makes `base` (the database file on disk, `size` bytes) the file's content; right after `attach` of an empty database. */
  open(base: BaseFile): void {
    this.store.open(base);
  }

  /** Writes `bytes` at `offset` as SQLite would (the blocks count as changed); for a journal applied in memory. */
  writeAt(bytes: Uint8Array, offset: number): void {
    this.writeCount++;
    this.store.write(bytes, 0, offset, bytes.length);
  }

  /** Sets the file's size as SQLite would; for a journal applied in memory. */
  resize(size: number): void {
    this.writeCount++;
    this.store.truncate(size);
  }

  /** Bytes a save must write. */
  get changedBytes(): number {
    return this.changedRanges().reduce((sum, range) => sum + range.length, 0);
  }

  /** The blocks a save must write as sorted ranges of at most `pieceBytes`, clipped to the file's size. */
  changedRanges(): ByteRange[] {
    return this.store.changedRanges(pieceBytes);
  }

  /** The disk holds exactly this content now, in `base` (see `BlockStore.rebase`). */
  saved(base: BaseFile | undefined): void {
    this.store.rebase(base);
  }

  /** From now on reads fail: the base file was changed by someone else, so blocks read from it would mix two versions. */
  markStale(reason: string): void {
    this.staleReason ??= reason;
  }

  detach(): void {
    this.journal?.detach();
    if (tracked.get(this.path) === this) tracked.delete(this.path);
    for (const [fd, file] of fdFiles) if (file === this) fdFiles.delete(fd);
    this.store.close();
  }

  /** `fd_seek` on the file: `whence` 0 from the start, 1 from the current position, 2 from the end. */
  seekCall(offset: number, whence: number, result: number): number {
    const from = whence === 0 ? 0 : whence === 1 ? this.positionNow : whence === 2 ? this.store.size : Number.NaN;
    const position = from + offset;
    if (!Number.isSafeInteger(position) || position < 0) return wasiInvalid;
    this.positionNow = position;
    heap().view.setBigInt64(result, BigInt(position), true);
    return 0;
  }

  /** `fd_read` or `fd_write` at the current position over `count` iovecs at `iov`; the bytes moved go to `result`. */
  transferCall(kind: 'read' | 'write', iov: number, count: number, result: number): number {
    if (kind === 'read' && this.staleReason !== undefined) return wasiIoError;
    try {
      const { bytes, words } = heap();
      let moved = 0;
      for (let index = 0; index < count; index++) {
        const pointer = words[(iov >>> 2) + index * 2];
        const length = words[(iov >>> 2) + index * 2 + 1];
        if (kind === 'write') {
          this.store.write(bytes, pointer, this.positionNow, length);
          this.positionNow += length;
          moved += length;
          continue;
        }
        const got = this.store.read(bytes, pointer, this.positionNow, length);
        this.positionNow += got;
        moved += got;
        if (got < length) break;
      }
      if (kind === 'write') this.writeCount++;
      heap().words[result >>> 2] = moved;
      return 0;
    } catch (error) {
      if (kind === 'read') this.markStale(error instanceof Error ? error.message : String(error));
      return wasiIoError;
    }
  }

  /** `ftruncate`: a syscall, so an error is a negative number. */
  truncateCall(size: number): number {
    if (!Number.isSafeInteger(size) || size < 0) return -wasiInvalid;
    this.writeCount++;
    this.store.truncate(size);
    if (this.isJournal && size === 0) this.store.rebase(undefined);
    return 0;
  }

  /** `fstat` answered by MEMFS (an empty file): the size is the file's own. */
  statCall(stat: number): void {
    const view = heap().view;
    view.setBigInt64(stat + statSizeOffset, BigInt(this.store.size), true);
  }
}

/**
 * Bytes of every file sql.js has open in its in-memory file system (journals, and database
 * files not tracked), for the benchmark's memory split; 0 when the file calls are not known.
 */
export function openFileBytes(): number {
  if (!calls) return 0;
  let total = 0;
  for (const fd of fdPaths.keys()) if (!fdFiles.has(fd)) total += Math.max(0, memfsSize(calls, fd));
  return total;
}

/** Bytes of written database blocks held in memory by every tracked file (for the benchmark). */
export function residentBlockBytes(): number {
  let total = 0;
  for (const file of tracked.values()) total += file.residency.residentBytes;
  return total;
}
