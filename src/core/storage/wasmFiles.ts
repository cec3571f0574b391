import type { Database, SqlJsStatic } from 'sql.js';

/**
 * The database file as sql.js keeps it: a file in Emscripten's in-memory file system (MEMFS),
 * which SQLite reads and writes through five system calls the WebAssembly module imports (open,
 * seek, read, write, truncate). sql.js exports neither the file system nor those calls, and its
 * release build minifies their names, so `installFileHooks` wraps every import before the module
 * is instantiated and `identifyFileCalls` finds the five by watching a probe database open, write
 * and shrink its file. With them, `MemoryFile` knows which 4 KiB blocks SQLite wrote since the last
 * save (so a save writes only those) and reads or fills the file in bounded pieces (so neither a
 * save nor an open needs `db.export()`'s whole copy). If the probe cannot tell the calls apart
 * (another sql.js build), `MemoryFile.attach` returns undefined and the store exports whole files
 * as before.
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
export const blockBytes = 4096;

const slots: Slot[] = [];
let recording: RecordedCall[] | undefined;
let calls: FileCalls | undefined;
let unavailable = 'the sql.js module was loaded without file hooks';
let memory: WasmMemory | undefined;
/** Scratch space in the WebAssembly heap: an iovec, a result word, a 64-bit offset, then one piece. */
let scratch = 0;
const fdPaths = new Map<number, string>();
const tracked = new Map<string, MemoryFile>();

/** sql.js names each database's MEMFS file `dbfile_<random>` and keeps the name on the object (not in its typings). */
function fileNameOf(db: Database): string {
  const name = (db as unknown as { filename?: unknown }).filename;
  if (typeof name !== 'string') throw new Error('this sql.js build keeps no file name on its databases');
  return name;
}

function heap(): { bytes: Uint8Array; words: Uint32Array; view: DataView } {
  const buffer = (memory as WasmMemory).buffer;
  return { bytes: new Uint8Array(buffer), words: new Uint32Array(buffer), view: new DataView(buffer) };
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

/**
 * Finds the five file calls by what a probe database does: the call that names its file and
 * returns a descriptor is `open`; on that descriptor, the call with a 64-bit offset and four
 * arguments is `seek`, the one with two is `truncate`; the four-number call made while opening
 * (SQLite reads the header) is `read`, the other one made while writing is `write`. The result is
 * then checked by reading the probe's file back through them and comparing it with sql.js's own
 * export. Called once, after the module is loaded.
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
    if (!seek || !read || !write || !truncate) throw new Error('the seek, read, write or truncate call was not seen');
    calls = { open: open.slot, seek: seek.slot, read: read.slot, write: write.slot, truncate: truncate.slot };
    scratch = (SQL as unknown as Allocator)._malloc(pieceBytes + 32);
    if (!scratch) throw new Error('no scratch memory');
    hook(calls);
    fdPaths.set(fd, `/${name}`);
    const file = new MemoryFile(`/${name}`);
    const viaCalls = file.read(0, file.size);
    const exported = db.export();
    file.detach();
    // sql.js exports through SQLite's backup API, which writes its own header fields (change
    // counter, schema cookie, format bytes) into page 1: everything after the header must match.
    const same = (from: number, to: number) => Buffer.from(viaCalls.subarray(from, to)).equals(Buffer.from(exported.subarray(from, to)));
    if (viaCalls.length !== exported.length || !same(0, 16) || !same(100, viaCalls.length))
      throw new Error('the file read through the calls differs from the export');
    unavailable = '';
  } catch (error) {
    calls = undefined;
    for (const slot of slots) slot.current = slot.original;
    unavailable = `sql.js's file calls could not be identified (${error instanceof Error ? error.message : String(error)})`;
  } finally {
    probe?.close();
  }
}

/** Replaces the open, write and truncate calls with versions that keep `fdPaths` and the dirty blocks current. */
function hook(found: FileCalls): void {
  found.open.current = (...args: unknown[]) => {
    const fd = found.open.original(...args);
    if (typeof fd === 'number' && fd >= 0) {
      const path = cString(args[1]);
      if (path === undefined) fdPaths.delete(fd);
      else fdPaths.set(fd, path.startsWith('/') ? path : `/${path}`);
    }
    return fd;
  };
  found.write.current = (...args: unknown[]) => {
    const file = trackedFile(args[0]);
    if (!file) return found.write.original(...args);
    const start = file.position();
    const code = found.write.original(...args);
    if (code === 0) file.wrote(start, heap().words[(args[3] as number) >>> 2]);
    return code;
  };
  found.truncate.current = (...args: unknown[]) => {
    const code = found.truncate.original(...args);
    const file = trackedFile(args[0]);
    if (file && code === 0) file.truncated(Number(args[1]));
    return code;
  };
}

function trackedFile(fd: unknown): MemoryFile | undefined {
  if (typeof fd !== 'number') return undefined;
  const path = fdPaths.get(fd);
  return path === undefined ? undefined : tracked.get(path);
}

/** Why page-level persistence is off in this process, or '' when it is on. */
export function fileHooksUnavailable(): string {
  return unavailable;
}

/** One contiguous range of changed bytes. */
export interface ByteRange {
  offset: number;
  length: number;
}

/**
 * The MEMFS file of one open sql.js database: its size, reads and fills in pieces, and the set
 * of blocks SQLite wrote since `clearChanges`.
 */
export class MemoryFile {
  private dirty = new Uint32Array(1024);
  private dirtyBlocks = 0;
  private writeCount = 0;

  constructor(private readonly path: string) {
    tracked.set(path, this);
  }

  /** True once the file calls are identified (after `loadSqlite`). */
  static get available(): boolean {
    return calls !== undefined;
  }

  /** Tracks `db`'s file; undefined when the file calls are not known (see `fileHooksUnavailable`). */
  static attach(db: Database): MemoryFile | undefined {
    if (!calls) return undefined;
    const path = `/${fileNameOf(db)}`;
    if (![...fdPaths.values()].includes(path)) return undefined;
    return new MemoryFile(path);
  }

  private descriptor(): number {
    for (const [fd, path] of fdPaths) if (path === this.path) return fd;
    throw new Error(`the database file ${this.path} is not open`);
  }

  private seek(offset: number, whence: 0 | 1 | 2): number {
    const { seek } = calls as FileCalls;
    const code = seek.original(this.descriptor(), BigInt(offset), whence, scratch + 8);
    if (code !== 0) throw new Error(`seeking the database file failed (${String(code)})`);
    return Number(heap().view.getBigInt64(scratch + 8, true));
  }

  /** The descriptor's current offset (SQLite seeks before every read and write). */
  position(): number {
    return this.seek(0, 1);
  }

  get size(): number {
    return this.seek(0, 2);
  }

  /** Count of writes SQLite made to the file so far: a save compares it to know nothing wrote meanwhile. */
  get writes(): number {
    return this.writeCount;
  }

  /** Copies `length` bytes from `offset` into a new buffer, a piece at a time. */
  read(offset: number, length: number): Uint8Array {
    const target = Buffer.allocUnsafe(length);
    const { read } = calls as FileCalls;
    let done = 0;
    while (done < length) {
      const piece = Math.min(pieceBytes, length - done);
      this.seek(offset + done, 0);
      const iov = heap();
      iov.words[scratch >>> 2] = scratch + 32;
      iov.words[(scratch >>> 2) + 1] = piece;
      const code = read.original(this.descriptor(), scratch, 1, scratch + 16);
      const count = heap().words[(scratch + 16) >>> 2];
      if (code !== 0 || count === 0) throw new Error(`reading the database file failed at ${offset + done}`);
      target.set(heap().bytes.subarray(scratch + 32, scratch + 32 + count), done);
      done += count;
    }
    return target;
  }

  /**
   * Fills the file with `size` bytes, `pieceBytes` at a time, from `fill` (which writes into the
   * buffer it is given and returns how many bytes it wrote). The file is sized first, so MEMFS
   * allocates it once instead of growing (and copying) it piece by piece. Must run before SQLite
   * reads anything: right after the database is constructed empty.
   */
  async load(size: number, fill: (into: Buffer, offset: number) => Promise<number>): Promise<void> {
    this.resizeUntracked(size);
    const piece = Buffer.allocUnsafe(Math.min(pieceBytes, Math.max(1, size)));
    let offset = 0;
    while (offset < size) {
      const count = await fill(piece.subarray(0, Math.min(piece.length, size - offset)), offset);
      if (count <= 0) throw new Error(`the database file ended at ${offset} of ${size} bytes`);
      this.put(piece.subarray(0, count), offset);
      offset += count;
    }
    this.clearChanges();
  }

  /** Writes `bytes` at `offset` as SQLite would (the blocks count as changed); for a journal applied in memory. */
  writeAt(bytes: Uint8Array, offset: number): void {
    for (let done = 0; done < bytes.length; done += pieceBytes) this.put(bytes.subarray(done, done + pieceBytes), offset + done);
    this.wrote(offset, bytes.length);
  }

  /** Sets the file's size as SQLite would; for a journal applied in memory. */
  resize(size: number): void {
    const before = this.size;
    this.resizeUntracked(size);
    if (size > before) this.wrote(before, size - before);
    else this.truncated(size);
  }

  private resizeUntracked(size: number): void {
    const { truncate } = calls as FileCalls;
    if (truncate.original(this.descriptor(), BigInt(size)) !== 0) throw new Error('sizing the database file failed');
  }

  private put(bytes: Uint8Array, offset: number): void {
    const { write } = calls as FileCalls;
    this.seek(offset, 0);
    const target = heap();
    target.bytes.set(bytes, scratch + 32);
    target.words[scratch >>> 2] = scratch + 32;
    target.words[(scratch >>> 2) + 1] = bytes.length;
    const code = write.original(this.descriptor(), scratch, 1, scratch + 16);
    if (code !== 0 || heap().words[(scratch + 16) >>> 2] !== bytes.length) throw new Error('writing the database file failed');
  }

  wrote(offset: number, length: number): void {
    this.writeCount++;
    if (length <= 0) return;
    const last = Math.floor((offset + length - 1) / blockBytes);
    if (last >= this.dirty.length * 32) {
      const grown = new Uint32Array(Math.max(this.dirty.length * 2, (last >>> 5) + 1));
      grown.set(this.dirty);
      this.dirty = grown;
    }
    for (let block = Math.floor(offset / blockBytes); block <= last; block++) {
      const bit = 1 << (block & 31);
      if ((this.dirty[block >>> 5] & bit) === 0) {
        this.dirty[block >>> 5] |= bit;
        this.dirtyBlocks++;
      }
    }
  }

  truncated(size: number): void {
    this.writeCount++;
    const firstGone = Math.ceil(size / blockBytes);
    for (let block = firstGone; block < this.dirty.length * 32; block++) {
      const bit = 1 << (block & 31);
      if ((this.dirty[block >>> 5] & bit) !== 0) {
        this.dirty[block >>> 5] &= ~bit;
        this.dirtyBlocks--;
      }
    }
  }

  /** Bytes in the blocks written since `clearChanges` (within the file's current size). */
  get changedBytes(): number {
    return Math.min(this.dirtyBlocks * blockBytes, this.size);
  }

  /** The written blocks as sorted ranges of at most `pieceBytes`, clipped to the file's size. */
  changedRanges(): ByteRange[] {
    const size = this.size;
    const ranges: ByteRange[] = [];
    let start = -1;
    const close = (end: number) => {
      for (let offset = start; offset < end; offset += pieceBytes) ranges.push({ offset, length: Math.min(pieceBytes, end - offset) });
      start = -1;
    };
    const blocks = Math.min(this.dirty.length * 32, Math.ceil(size / blockBytes));
    for (let block = 0; block < blocks; block++) {
      const word = this.dirty[block >>> 5];
      if (word === 0 && (block & 31) === 0) {
        if (start >= 0) close(block * blockBytes);
        block += 31;
        continue;
      }
      const set = (word & (1 << (block & 31))) !== 0;
      if (set && start < 0) start = block * blockBytes;
      if (!set && start >= 0) close(block * blockBytes);
    }
    if (start >= 0) close(Math.min(size, blocks * blockBytes));
    return ranges;
  }

  /** Forgets the written blocks: the file on disk now equals this one. */
  clearChanges(): void {
    this.dirty.fill(0);
    this.dirtyBlocks = 0;
  }

  /** Marks every block written: the file on disk is not known to equal this one. */
  markAllChanged(): void {
    this.wrote(0, Math.max(1, this.size));
  }

  detach(): void {
    if (tracked.get(this.path) === this) tracked.delete(this.path);
  }
}
