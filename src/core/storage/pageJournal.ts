import { createHash } from 'node:crypto';
import * as path from 'node:path';
import type { Logger } from '../ports';
import type { DatabaseFileIo, WritableFile } from './fileIo';
import type { ByteRange } from './wasmFiles';

/**
 * The rollback journal of a save that writes changed pages in place: `<db>.pkjournal` holds the
 * old bytes of every range the save overwrites and the file's old size, closed by a SHA-256 of
 * all of it. A save: journal written and flushed (with its directory), new pages written into
 * the database file in place (page 1 first), database flushed, journal removed: the removal is
 * the commit. A crash before the journal is whole leaves the database untouched and a journal
 * whose checksum fails (removed); a crash after leaves a whole journal, which puts the old bytes
 * back (`rollBack`, by the next writer under the lock) or is applied to a reader's own copy
 * (`readJournal`), so the file is read as the old content, never a mix.
 *
 * Layout: header `PKJRNL01`, u32 version, u32 entry count, u64 old size, u64 reserved (32
 * bytes); entries (u64 offset, u32 length, bytes); trailer: SHA-256 of everything before it, then
 * `PKJEND01`. Numbers are little-endian.
 */

const headerMagic = Buffer.from('PKJRNL01', 'latin1');
const trailerMagic = Buffer.from('PKJEND01', 'latin1');
const headerBytes = 32;
const entryHeaderBytes = 12;
const trailerBytes = 32 + trailerMagic.length;
const version = 1;
/** No entry of ours is longer (they are `pieceBytes`); a longer one marks a damaged journal. */
const maxEntryBytes = 16 * 1024 * 1024;
/** Journal writes are gathered into buffers of this size: a one-file edit's scattered pages become a few writes. */
const bufferBytes = 1024 * 1024;

export function journalPathOf(dbPath: string): string {
  return `${dbPath}.pkjournal`;
}

/** A source of the new bytes of the file being saved: `read(offset, length)` returns a fresh buffer. */
export interface PageSource {
  readonly size: number;
  read(offset: number, length: number): Uint8Array;
}

class BufferedWriter {
  private readonly buffer = Buffer.allocUnsafe(bufferBytes);
  private used = 0;
  position = 0;
  private readonly hash = createHash('sha256');

  constructor(private readonly file: WritableFile) {}

  async add(bytes: Uint8Array): Promise<void> {
    this.hash.update(bytes);
    if (this.used + bytes.length > this.buffer.length) await this.flush();
    if (bytes.length >= this.buffer.length) {
      await this.file.write(bytes, this.position);
      this.position += bytes.length;
      return;
    }
    this.buffer.set(bytes, this.used);
    this.used += bytes.length;
  }

  async flush(): Promise<void> {
    if (this.used === 0) return;
    await this.file.write(this.buffer.subarray(0, this.used), this.position);
    this.position += this.used;
    this.used = 0;
  }

  digest(): Buffer {
    return this.hash.digest();
  }
}

async function readFully(file: WritableFile, into: Uint8Array, position: number): Promise<number> {
  let done = 0;
  while (done < into.length) {
    const count = await file.read(into.subarray(done), position + done);
    if (count === 0) break;
    done += count;
  }
  return done;
}

/**
 * Writes a save's pages in place, journaled: the old bytes of `ranges` (read from `database`,
 * the open database file, `oldSize` long) go to the journal, which is flushed with its
 * directory; then `pause` (a test hook), then the new bytes from `source` are written, the size
 * set and the file flushed; the journal's removal commits. A failure after the journal is whole
 * puts the old bytes back before it is passed on.
 */
export async function writePagesJournaled(
  io: DatabaseFileIo,
  dbPath: string,
  database: WritableFile,
  source: PageSource,
  ranges: ByteRange[],
  pause: (point: 'journal-written' | 'pages-written') => Promise<void>,
): Promise<void> {
  const oldSize = await database.size();
  const old = ranges
    .filter((range) => range.offset < oldSize)
    .map((range) => ({ offset: range.offset, length: Math.min(range.length, oldSize - range.offset) }));
  await writeJournal(io, dbPath, database, oldSize, old);
  await pause('journal-written');
  // Where the writes got to: a failure undoes only what was (or may have been) written.
  let reached = 0;
  try {
    for (const range of ranges) {
      reached = range.offset + range.length;
      await database.write(source.read(range.offset, range.length), range.offset);
    }
    reached = Number.POSITIVE_INFINITY;
    if ((await database.size()) !== source.size) await database.truncate(source.size);
    await database.sync();
  } catch (error) {
    await rollBackInto(io, dbPath, database, { end: reached, failure: (error as NodeJS.ErrnoException).code }).catch(() => undefined);
    throw error;
  }
  await pause('pages-written');
  await removeJournal(io, dbPath);
}

async function writeJournal(io: DatabaseFileIo, dbPath: string, database: WritableFile, oldSize: number, old: ByteRange[]): Promise<void> {
  const journalPath = journalPathOf(dbPath);
  const file = await io.open(journalPath, 'create');
  let complete = false;
  try {
    const writer = new BufferedWriter(file);
    const header = Buffer.alloc(headerBytes);
    headerMagic.copy(header, 0);
    header.writeUInt32LE(version, 8);
    header.writeUInt32LE(old.length, 12);
    header.writeBigUInt64LE(BigInt(oldSize), 16);
    await writer.add(header);
    const piece = Buffer.allocUnsafe(old.reduce((longest, range) => Math.max(longest, range.length), 0));
    for (const range of old) {
      const entry = Buffer.alloc(entryHeaderBytes);
      entry.writeBigUInt64LE(BigInt(range.offset), 0);
      entry.writeUInt32LE(range.length, 8);
      await writer.add(entry);
      const bytes = piece.subarray(0, range.length);
      if ((await readFully(database, bytes, range.offset)) !== range.length)
        throw new Error(`${dbPath} ended before ${range.offset + range.length}`);
      await writer.add(bytes);
    }
    await writer.flush();
    await file.write(Buffer.concat([writer.digest(), trailerMagic]), writer.position);
    await file.sync();
    complete = true;
  } finally {
    await file.close();
    // A journal that is not whole is never applied; removing it keeps the next save's O_EXCL free.
    if (!complete) await io.remove(journalPath).catch(() => undefined);
  }
  await io.syncDirectory(path.dirname(journalPath));
}

async function removeJournal(io: DatabaseFileIo, dbPath: string): Promise<void> {
  const journalPath = journalPathOf(dbPath);
  await io.remove(journalPath);
  await io.syncDirectory(path.dirname(journalPath));
}

interface JournalEntry {
  offset: number;
  length: number;
  /** Where the entry's bytes start in the journal. */
  at: number;
}

/** A whole journal: the old size and where each range's old bytes are. */
export interface ParsedJournal {
  oldSize: number;
  entries: JournalEntry[];
}

/**
 * Reads and checks a journal: its magic numbers, every entry inside the file and the SHA-256 of
 * all of it, reading in pieces. Undefined when it is missing or not whole (a save that died or
 * is still writing it: the database was not touched yet).
 */
export async function parseJournal(io: DatabaseFileIo, dbPath: string): Promise<ParsedJournal | undefined> {
  let file: WritableFile;
  try {
    file = await io.open(journalPathOf(dbPath), 'read');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const size = await file.size();
    if (size < headerBytes + trailerBytes) return undefined;
    const header = Buffer.alloc(headerBytes);
    if ((await readFully(file, header, 0)) !== headerBytes || !header.subarray(0, 8).equals(headerMagic)) return undefined;
    if (header.readUInt32LE(8) !== version) return undefined;
    const count = header.readUInt32LE(12);
    const oldSize = Number(header.readBigUInt64LE(16));
    const hash = createHash('sha256').update(header);
    const entries: JournalEntry[] = [];
    const entryHeader = Buffer.alloc(entryHeaderBytes);
    const piece = Buffer.allocUnsafe(bufferBytes);
    let position = headerBytes;
    for (let index = 0; index < count; index++) {
      if (position + entryHeaderBytes > size - trailerBytes) return undefined;
      if ((await readFully(file, entryHeader, position)) !== entryHeaderBytes) return undefined;
      hash.update(entryHeader);
      const offset = Number(entryHeader.readBigUInt64LE(0));
      const length = entryHeader.readUInt32LE(8);
      position += entryHeaderBytes;
      if (length > maxEntryBytes || position + length > size - trailerBytes || offset + length > oldSize) return undefined;
      entries.push({ offset, length, at: position });
      for (let done = 0; done < length;) {
        const read = await file.read(piece.subarray(0, Math.min(piece.length, length - done)), position + done);
        if (read === 0) return undefined;
        hash.update(piece.subarray(0, read));
        done += read;
      }
      position += length;
    }
    if (position !== size - trailerBytes) return undefined;
    const trailer = Buffer.alloc(trailerBytes);
    if ((await readFully(file, trailer, position)) !== trailerBytes) return undefined;
    if (!trailer.subarray(32).equals(trailerMagic) || !trailer.subarray(0, 32).equals(hash.digest())) return undefined;
    return { oldSize, entries };
  } finally {
    await file.close();
  }
}

/** Calls `sink` with each entry's old bytes, in order. */
export async function readJournal(
  io: DatabaseFileIo,
  dbPath: string,
  journal: ParsedJournal,
  sink: (bytes: Uint8Array, offset: number) => Promise<void>,
): Promise<void> {
  const file = await io.open(journalPathOf(dbPath), 'read');
  try {
    for (const entry of journal.entries) {
      const bytes = Buffer.allocUnsafe(entry.length);
      if ((await readFully(file, bytes, entry.at)) !== entry.length) throw new Error(`the journal of ${dbPath} ended early`);
      await sink(bytes, entry.offset);
    }
  } finally {
    await file.close();
  }
}

/**
 * Where a failed save's writes got to: old bytes past `end` need no undoing, and in the range
 * that failed, a write failing with the save's own error code (a size limit or a full disk) stops
 * where the new bytes stopped too.
 */
interface Undo {
  end: number;
  failure: string | undefined;
}

/** Puts a whole journal's old bytes and size back into the open `database`, flushes it and removes the journal. */
async function rollBackInto(io: DatabaseFileIo, dbPath: string, database: WritableFile, undo?: Undo): Promise<boolean> {
  const journal = await parseJournal(io, dbPath);
  if (journal) {
    await readJournal(io, dbPath, journal, async (bytes, offset) => {
      if (undo && offset >= undo.end) return;
      try {
        await database.write(bytes, offset);
      } catch (error) {
        const last = undo !== undefined && offset + bytes.length >= undo.end;
        if (!last || undo.failure === undefined || (error as NodeJS.ErrnoException).code !== undo.failure) throw error;
      }
    });
    if ((await database.size()) !== journal.oldSize) await database.truncate(journal.oldSize);
    await database.sync();
  }
  await removeJournal(io, dbPath);
  return journal !== undefined;
}

export type Recovery = 'none' | 'discarded' | 'rolled-back';

/**
 * Undoes the save a journal beside `dbPath` belongs to (one that died): a whole journal's old
 * bytes go back into the database file, then the journal is removed; a partial one is removed
 * (its save never touched the file). Called under the writers' lock, by every save before it
 * writes and by an open that can take the lock at once.
 */
export async function rollBack(io: DatabaseFileIo, dbPath: string, log: Logger): Promise<Recovery> {
  const journalPath = journalPathOf(dbPath);
  if (!(await io.exists(journalPath))) return 'none';
  if (!(await io.exists(dbPath))) {
    await removeJournal(io, dbPath);
    return 'discarded';
  }
  const database = await io.open(dbPath, 'update');
  let rolledBack: boolean;
  try {
    rolledBack = await rollBackInto(io, dbPath, database);
  } finally {
    await database.close();
  }
  log.info(
    rolledBack
      ? `Undid the interrupted save of ${dbPath} from its journal: it holds its earlier content again.`
      : `Removed the unfinished journal ${journalPath}: its save had not touched ${dbPath}.`,
  );
  return rolledBack ? 'rolled-back' : 'discarded';
}
