import * as fs from 'node:fs';

/**
 * The content of one database file as SQLite sees it, without holding it all in memory: blocks
 * SQLite has not written since the last save are read on demand from the file on disk (the
 * base, held open), and the blocks it wrote are kept in memory up to a budget, past which the
 * least recently written go to a private spill file (unlinked at once, so a crash leaves no
 * trace) and are read back from there. A save writes the changed blocks and calls `rebase`: the
 * disk then holds everything and the memory is given back. sql.js's WebAssembly imports call
 * `read`, `write` and `truncate` (see wasmFiles.ts); everything here is synchronous because
 * SQLite's calls are.
 */

export const blockBytes = 4096;

/** One contiguous range of changed bytes. */
export interface ByteRange {
  offset: number;
  length: number;
}
/** Blocks per slab of resident memory (1 MiB): slots are taken from slabs, not one allocation per block. */
const slabBlocks = 256;
/** Blocks written to the spill file per eviction (at most; a quarter of a smaller budget): enough to make one write of a run worth its call. */
const evictionBlocks = 64;
/** The smallest budget of resident blocks (64 KB). */
const minimumBudgetBlocks = 16;
const spilled = -1;

/** The base file was changed behind our back (see `BaseFile.verify`): what it holds now must not be served. */
export class BaseChangedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BaseChangedError';
  }
}

/** The file on disk that clean blocks are read from. `verify` runs after every read of it and throws when it changed behind our back. */
export interface BaseFile {
  readonly fd: number;
  readonly size: number;
  verify?: () => void;
}

export interface BlockStoreOptions {
  /** Bytes of written blocks kept in memory before the oldest go to the spill file. */
  residentBytes: number;
  /** Creates the spill file (open for reading and writing, already unlinked where possible); undefined: keep every block in memory. */
  openSpill?: () => number;
  /** Says once why blocks stay in memory after all (the spill file could not be made or written). */
  warn?: (message: string) => void;
}

export class BlockStore {
  /** The file's size as SQLite sees it. */
  size = 0;
  private base: BaseFile | undefined;
  /** Clean blocks at or past this offset read as zeros: the file was cut below the base's size since it was saved. */
  private baseLimit = 0;
  /** Per block: 0 clean, n > 0 resident in slot n - 1, `spilled` in the spill file at the block's own offset. */
  private state = new Int32Array(0);
  private dirtyBlocks = 0;
  private readonly slabs: Uint8Array[] = [];
  private slotBlock = new Int32Array(0);
  private referenced = new Uint8Array(0);
  private readonly freeSlots: number[] = [];
  private residentBlocks = 0;
  private hand = 0;
  private spill: number | undefined;
  private spillFailed = false;
  /**
   * The staging buffer of `evict`, made once: a new one per eviction is garbage outside V8's heap
   * while SQLite runs, with hardly a JavaScript allocation to prompt a collection.
   */
  private evictionRun: Buffer | undefined;
  private readonly budgetBlocks: number;
  private readonly evictionBlocks: number;
  /** Bytes moved to and from the spill file since the store was made (for the benchmark). */
  spillWrites = 0;
  spillReads = 0;
  /** Bytes read from the database file on disk since the store was made (for tests and the benchmark). */
  baseReads = 0;

  constructor(private readonly options: BlockStoreOptions) {
    this.budgetBlocks = Math.max(minimumBudgetBlocks, Math.floor(options.residentBytes / blockBytes));
    this.evictionBlocks = Math.min(evictionBlocks, Math.floor(this.budgetBlocks / 4));
  }

  /** Blocks written since the last `rebase`, resident or spilled. */
  get changedBlockCount(): number {
    return this.dirtyBlocks;
  }

  /** Bytes of written blocks held in memory now. */
  get residentBytes(): number {
    return this.residentBlocks * blockBytes;
  }

  /** Copies up to `length` bytes at `offset` into `target` at `at`; the count copied (short at the end of the file). */
  read(target: Uint8Array, at: number, offset: number, length: number): number {
    const end = Math.min(this.size, offset + length);
    let position = offset;
    let readBase = false;
    while (position < end) {
      const block = Math.floor(position / blockBytes);
      const state = block < this.state.length ? this.state[block] : 0;
      const into = at + (position - offset);
      if (state > 0) {
        const within = position - block * blockBytes;
        const count = Math.min(blockBytes - within, end - position);
        const slot = state - 1;
        const start = (slot % slabBlocks) * blockBytes + within;
        target.set(this.slabs[Math.floor(slot / slabBlocks)].subarray(start, start + count), into);
        position += count;
        continue;
      }
      // A run of blocks from the same place is one read.
      let runEnd = (block + 1) * blockBytes;
      while (runEnd < end && this.stateOf(runEnd / blockBytes) === state) runEnd += blockBytes;
      if (state === 0 && position < this.baseLimit) runEnd = Math.min(runEnd, this.baseLimit);
      const count = Math.min(runEnd, end) - position;
      if (state === spilled) {
        readFully(this.spill as number, target, into, count, position);
        this.spillReads += count;
      } else if (position < this.baseLimit && this.base) {
        const got = readFully(this.base.fd, target, into, count, position);
        if (got < count) throw new Error(`the database file ended at ${position + got} of ${this.baseLimit} bytes`);
        this.baseReads += count;
        readBase = true;
      } else {
        target.fill(0, into, into + count);
      }
      position += count;
    }
    if (readBase) this.base?.verify?.();
    return Math.max(0, end - offset);
  }

  /** Writes `length` bytes of `source` from `at` to the file at `offset`. */
  write(source: Uint8Array, at: number, offset: number, length: number): void {
    if (length <= 0) return;
    this.grow(Math.ceil((offset + length) / blockBytes));
    let position = offset;
    const end = offset + length;
    while (position < end) {
      const block = Math.floor(position / blockBytes);
      const within = position - block * blockBytes;
      const count = Math.min(blockBytes - within, end - position);
      const slot = this.residentSlot(block, count < blockBytes);
      const start = (slot % slabBlocks) * blockBytes + within;
      this.slabs[Math.floor(slot / slabBlocks)].set(source.subarray(at + (position - offset), at + (position - offset) + count), start);
      position += count;
    }
    if (end > this.size) this.size = end;
  }

  /** Sets the size: a cut forgets the blocks past it, a growth reads as zeros until written. */
  truncate(size: number): void {
    if (size < this.size) {
      const firstGone = Math.ceil(size / blockBytes);
      for (let block = firstGone; block < this.state.length; block++) this.forget(block);
      const partial = size % blockBytes;
      if (partial !== 0) {
        // The cut block's tail must read as zeros if the file grows again.
        const slot = this.residentSlot(Math.floor(size / blockBytes), true);
        const start = (slot % slabBlocks) * blockBytes;
        this.slabs[Math.floor(slot / slabBlocks)].fill(0, start + partial, start + blockBytes);
      }
      this.baseLimit = Math.min(this.baseLimit, size);
    }
    this.size = size;
  }

  /**
   * What a save must write: the blocks written since the last `rebase`, and every block past
   * the base's limit (zeros the disk may not hold), as sorted ranges of at most `piece` bytes.
   */
  changedRanges(piece: number): ByteRange[] {
    const ranges: ByteRange[] = [];
    const blocks = Math.ceil(this.size / blockBytes);
    let start = -1;
    const close = (end: number) => {
      for (let offset = start; offset < end; offset += piece) ranges.push({ offset, length: Math.min(piece, end - offset) });
      start = -1;
    };
    for (let block = 0; block < blocks; block++) {
      const changed = this.stateOf(block) !== 0 || Math.min((block + 1) * blockBytes, this.size) > this.baseLimit;
      if (changed && start < 0) start = block * blockBytes;
      if (!changed && start >= 0) close(block * blockBytes);
    }
    if (start >= 0) close(this.size);
    return ranges;
  }

  /**
   * The disk now holds exactly this content (a save wrote it, into `base` or a new file that is
   * `base` now): every block is clean, the memory and the spill file are given back.
   */
  rebase(base: BaseFile | undefined): void {
    if (this.base && this.base.fd !== base?.fd) closeQuietly(this.base.fd);
    this.base = base;
    this.baseLimit = base ? Math.min(base.size, this.size) : 0;
    this.state = new Int32Array(0);
    this.dirtyBlocks = 0;
    this.slabs.length = 0;
    this.slotBlock = new Int32Array(0);
    this.referenced = new Uint8Array(0);
    this.freeSlots.length = 0;
    this.residentBlocks = 0;
    this.hand = 0;
    this.evictionRun = undefined;
    if (this.spill !== undefined && this.spillFailed) {
      // No block is read from it any more: the next eviction tries a new one.
      closeQuietly(this.spill);
      this.spill = undefined;
    } else if (this.spill !== undefined) {
      try {
        fs.ftruncateSync(this.spill, 0);
      } catch {
        // The spill file's old blocks are never read again (every block is clean); its space comes back at close.
      }
    }
    this.spillFailed = false;
  }

  /** Makes `base` the file clean blocks come from, for a store that was just created (size 0). */
  open(base: BaseFile): void {
    this.base = base;
    this.size = base.size;
    this.baseLimit = base.size;
  }

  close(): void {
    if (this.base) closeQuietly(this.base.fd);
    if (this.spill !== undefined) closeQuietly(this.spill);
    this.base = undefined;
    this.spill = undefined;
  }

  private stateOf(block: number): number {
    return block < this.state.length ? this.state[block] : 0;
  }

  private grow(blocks: number): void {
    if (blocks <= this.state.length) return;
    const grown = new Int32Array(Math.max(blocks, this.state.length * 2, 1024));
    grown.set(this.state);
    this.state = grown;
  }

  private forget(block: number): void {
    const state = this.state[block];
    if (state === 0) return;
    if (state > 0) this.release(state - 1);
    this.state[block] = 0;
    this.dirtyBlocks--;
  }

  private release(slot: number): void {
    this.slotBlock[slot] = -1;
    this.referenced[slot] = 0;
    this.freeSlots.push(slot);
    this.residentBlocks--;
  }

  /** The slot holding `block`, brought into memory (its current bytes first when `partial`, the write covering only part of it). */
  private residentSlot(block: number, partial: boolean): number {
    this.grow(block + 1);
    const state = this.state[block];
    if (state > 0) {
      this.referenced[state - 1] = 1;
      return state - 1;
    }
    const slot = this.takeSlot();
    const slab = this.slabs[Math.floor(slot / slabBlocks)];
    const start = (slot % slabBlocks) * blockBytes;
    if (partial) {
      const offset = block * blockBytes;
      if (state === spilled) {
        readFully(this.spill as number, slab, start, blockBytes, offset);
        this.spillReads += blockBytes;
      } else if (offset < this.baseLimit && this.base) {
        const length = Math.min(blockBytes, this.baseLimit - offset);
        readFully(this.base.fd, slab, start, length, offset);
        slab.fill(0, start + length, start + blockBytes);
        this.base.verify?.();
      } else slab.fill(0, start, start + blockBytes);
    }
    if (state === 0) this.dirtyBlocks++;
    this.state[block] = slot + 1;
    this.slotBlock[slot] = block;
    this.referenced[slot] = 1;
    this.residentBlocks++;
    return slot;
  }

  private takeSlot(): number {
    if (this.residentBlocks >= this.budgetBlocks && this.spillable()) this.evict();
    const free = this.freeSlots.pop();
    if (free !== undefined) return free;
    const slot = this.slabs.length * slabBlocks;
    this.slabs.push(new Uint8Array(slabBlocks * blockBytes));
    const slots = this.slabs.length * slabBlocks;
    const slotBlock = new Int32Array(slots).fill(-1);
    slotBlock.set(this.slotBlock);
    this.slotBlock = slotBlock;
    const referenced = new Uint8Array(slots);
    referenced.set(this.referenced);
    this.referenced = referenced;
    for (let index = slots - 1; index > slot; index--) this.freeSlots.push(index);
    return slot;
  }

  private spillable(): boolean {
    if (this.spillFailed) return false;
    if (this.spill !== undefined) return true;
    if (!this.options.openSpill) return false;
    try {
      this.spill = this.options.openSpill();
      return true;
    } catch (error) {
      this.spillFailed = true;
      this.options.warn?.(`Written database pages stay in memory: no spill file (${describe(error)}).`);
      return false;
    }
  }

  /** Moves the least recently written resident blocks (a clock sweep) to the spill file, in runs. */
  private evict(): void {
    const victims: number[] = [];
    const slots = this.slotBlock.length;
    for (let steps = 0; victims.length < this.evictionBlocks && steps < slots * 2; steps++) {
      const slot = this.hand;
      this.hand = (this.hand + 1) % slots;
      // 2 marks a slot already chosen: the sweep may pass it again before the batch is full.
      if (this.slotBlock[slot] < 0 || this.referenced[slot] === 2) continue;
      if (this.referenced[slot] === 1) this.referenced[slot] = 0;
      else {
        this.referenced[slot] = 2;
        victims.push(slot);
      }
    }
    victims.sort((left, right) => this.slotBlock[left] - this.slotBlock[right]);
    this.evictionRun ??= Buffer.allocUnsafe(this.evictionBlocks * blockBytes);
    const run = this.evictionRun;
    try {
      for (let first = 0; first < victims.length;) {
        let last = first;
        while (last + 1 < victims.length && this.slotBlock[victims[last + 1]] === this.slotBlock[victims[last]] + 1) last++;
        for (let index = first; index <= last; index++) {
          const slot = victims[index];
          const start = (slot % slabBlocks) * blockBytes;
          run.set(this.slabs[Math.floor(slot / slabBlocks)].subarray(start, start + blockBytes), (index - first) * blockBytes);
        }
        const length = (last - first + 1) * blockBytes;
        writeFully(this.spill as number, run, length, this.slotBlock[victims[first]] * blockBytes);
        this.spillWrites += length;
        for (let index = first; index <= last; index++) {
          const slot = victims[index];
          this.state[this.slotBlock[slot]] = spilled;
          this.release(slot);
        }
        first = last + 1;
      }
    } catch (error) {
      // What was written stays valid and readable (those blocks are marked spilled); the rest stay in memory.
      this.spillFailed = true;
      this.options.warn?.(`Written database pages stay in memory: the spill file could not be written (${describe(error)}).`);
    }
  }
}

function readFully(fd: number, target: Uint8Array, at: number, length: number, position: number): number {
  let done = 0;
  while (done < length) {
    const count = fs.readSync(fd, target, at + done, length - done, position + done);
    if (count === 0) break;
    done += count;
  }
  return done;
}

function writeFully(fd: number, source: Uint8Array, length: number, position: number): void {
  let done = 0;
  while (done < length) done += fs.writeSync(fd, source, done, length - done, position + done);
}

function closeQuietly(fd: number): void {
  try {
    fs.closeSync(fd);
  } catch {
    // Already closed.
  }
}

function describe(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? (error instanceof Error ? error.message : String(error));
}
