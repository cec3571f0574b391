/**
 * How a project file is read live, for indexing and for verification: once, contained, checked
 * (`readIndexable`), and at most once per attempt for the readers of one answer (`LiveFiles`).
 * Sync, retrieval, navigation and the vectors share it, so it imports none of them.
 */
import { decodeCheckedPart, decodeCheckedText, sniffContent, startsWithBom } from './exclusion/contentRules';
import type { ExclusionReason } from './exclusion/reasons';
import { sha256Hex } from './hashing';
import { ContainmentError, FileTooLargeError, type FileStat } from './ports';
import type { SyncContext } from './syncContext';
import { splitLines } from './tokens';

/** A file read for indexing or verification: its bytes' text and hash, or why it cannot be used. */
export type IndexableRead =
  | { kind: 'read'; stat: FileStat; text: string; sha256: string }
  | { kind: 'excluded'; reason: ExclusionReason; detail?: string }
  | { kind: 'vanished' };

/** A project file's bytes, read once, or why they cannot be used. */
export type FileBytes =
  | { kind: 'bytes'; stat: FileStat; bytes: Uint8Array }
  | { kind: 'excluded'; reason: ExclusionReason; detail?: string }
  | { kind: 'vanished' };

/**
 * Reads one project file once, in one blocking read (`readFileBlocking`: the engine runs off the
 * editor's thread, and four thread-pool round trips cost more than the read): contained in the
 * root without passing through a link, a regular file, within the size bound.
 */
export function readFileBytes(context: SyncContext, relativePath: string): FileBytes {
  try {
    const { bytes, stat } = context.ports.fs.readFileBlocking(context.root, relativePath, context.options.bounds.maxFileBytes);
    return { kind: 'bytes', bytes, stat };
  } catch (error) {
    if (error instanceof FileTooLargeError) return { kind: 'excluded', reason: 'too-large', detail: `${error.size} bytes` };
    if (error instanceof ContainmentError) return { kind: 'excluded', reason: error.refusal, detail: error.message };
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { kind: 'vanished' };
    if (code === 'ELOOP') return { kind: 'excluded', reason: 'symlink' };
    return { kind: 'excluded', reason: 'unreadable', detail: code ?? String(error) };
  }
}

/** Reads one project file (`readFileBytes`) and checks it: text, no secret. The bytes checked are the bytes hashed. */
export function readIndexable(context: SyncContext, relativePath: string): IndexableRead {
  return checkedRead(context, relativePath, readFileBytes(context, relativePath));
}

/** `readIndexable` of bytes already read. */
function checkedRead(context: SyncContext, relativePath: string, read: FileBytes): IndexableRead {
  if (read.kind !== 'bytes') return read;
  const sha256 = sha256Hex(read.bytes);
  // The same bytes as a current indexed file's passed every content rule, secrets included, when
  // they were indexed (the rules see only the bytes and the path; schema bumps rebuild the index
  // when they widen), so only changed content is checked again. Verification reads such files
  // almost always, and the checks cost several times the decode (about 120 of 180 µs for 12 KB).
  if (context.store.catalog.file(relativePath)?.sha256 === sha256)
    return { kind: 'read', stat: read.stat, text: decodeCheckedText(read.bytes), sha256 };
  const sniffed = sniffContent(read.bytes, relativePath);
  if (!sniffed.ok) return { kind: 'excluded', reason: sniffed.reason, detail: sniffed.detail };
  return { kind: 'read', stat: read.stat, text: sniffed.text, sha256 };
}

export type LiveFile = { ok: true; sha256: string; lines: string[] } | { ok: false; reason: string };

/** Each file read at most once per attempt: phrase checks and verification share the reads. */
export class LiveFiles {
  private reads = new Map<string, Promise<LiveFile>>();
  /** Bytes read for `lineText` and not yet checked by `get`. */
  private bytes = new Map<string, FileBytes>();
  constructor(private readonly context: SyncContext) {}

  get(relativePath: string): Promise<LiveFile> {
    let read = this.reads.get(relativePath);
    if (!read) {
      const bytes = this.bytes.get(relativePath) ?? readFileBytes(this.context, relativePath);
      this.bytes.delete(relativePath);
      read = liveFileOf(checkedRead(this.context, relativePath, bytes));
      this.reads.set(relativePath, read);
    }
    return read;
  }

  /**
   * Lines `startLine` to `endLine` (1-based, inclusive) of the file as read now, joined with
   * `\n`: exactly `get`'s `lines.slice(startLine - 1, endLine).join('\n')` whenever `get` answers
   * `ok`, without its hash, content checks or whole-file decode. A filter that rejects most of the
   * chunks it sees (a message with placeholders) reads them here and asks `get` only for the
   * chunks it keeps, whose hash must still be checked. Undefined when the file could not be read,
   * holds a carriage return (its lines are then split on it too) or was read by `get` already
   * (which then answers at no cost); ask `get`.
   */
  lineText(relativePath: string, startLine: number, endLine: number): string | undefined {
    const read = this.reads.has(relativePath) ? undefined : this.bytesOf(relativePath);
    if (!read || read.kind !== 'bytes' || read.bytes.includes(carriageReturn)) return undefined;
    const bytes = read.bytes;
    let start = startsWithBom(bytes) ? 3 : 0;
    for (let line = 1; line < startLine; line++) {
      const newline = bytes.indexOf(lineFeed, start);
      if (newline < 0) return '';
      start = newline + 1;
    }
    let end = start;
    for (let line = startLine; line <= endLine; line++) {
      const newline = bytes.indexOf(lineFeed, end);
      if (newline < 0) {
        end = bytes.length;
        break;
      }
      end = line === endLine ? newline : newline + 1;
    }
    return decodeCheckedPart(bytes.subarray(start, end));
  }

  private bytesOf(relativePath: string): FileBytes {
    let read = this.bytes.get(relativePath);
    if (!read) {
      read = readFileBytes(this.context, relativePath);
      this.bytes.set(relativePath, read);
    }
    return read;
  }
}

const lineFeed = 0x0a;
const carriageReturn = 0x0d;

/** A file's live hash and lines (`readIndexable`); anything unusable says why, in the manifest's words. */
async function liveFileOf(read: IndexableRead): Promise<LiveFile> {
  if (read.kind === 'read') return { ok: true, sha256: read.sha256, lines: splitLines(read.text) };
  if (read.kind === 'vanished') return { ok: false, reason: 'deleted' };
  if (read.reason === 'secret-content' || read.reason === 'private-key' || read.reason === 'credential-file')
    return { ok: false, reason: 'secret' };
  return { ok: false, reason: read.reason };
}
