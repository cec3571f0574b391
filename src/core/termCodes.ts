/**
 * Compact storage of the words each chunk put into the full-text index. FTS4 needs a chunk's
 * words again to delete it; instead of keeping them as text per chunk, each file keeps one
 * sorted vocabulary and each chunk a delta-coded list of varint positions into it, all of a
 * file's in one deflated blob (`packTermLists`).
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';

/** Calls `visit` with each vocabulary position in `codes` (a chunk's delta-coded varints), ascending. */
export function forEachPosition(codes: Uint8Array, visit: (position: number) => void): void {
  let index = 0;
  let delta = 0;
  let shift = 0;
  for (const byte of codes) {
    delta |= (byte & 0x7f) << shift;
    if (byte & 0x80) {
      shift += 7;
      continue;
    }
    index += delta;
    visit(index);
    delta = 0;
    shift = 0;
  }
}

export function decodeWords(codes: Uint8Array, vocabulary: string[]): string {
  const words: string[] = [];
  forEachPosition(codes, (index) => {
    const word = vocabulary[index];
    if (word !== undefined) words.push(word);
  });
  return words.join(' ');
}

/** Decodes FTS4's varint list (docsize and totals blobs: seven bits a byte, the lowest first). */
export function readVarints(blob: Uint8Array): number[] {
  const values: number[] = [];
  let value = 0;
  let shift = 0;
  for (const byte of blob) {
    value += (byte & 0x7f) * 2 ** shift;
    if (byte & 0x80) {
      shift += 7;
    } else {
      values.push(value);
      value = 0;
      shift = 0;
    }
  }
  return values;
}

/** Encodes `values` as the varint list `readVarints` decodes (FTS4's: seven bits a byte, the lowest first). */
export function writeVarints(values: readonly number[]): Uint8Array {
  let size = 0;
  for (const value of values) size += varintSize(value);
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const value of values) offset = writeVarint(bytes, offset, value);
  return bytes;
}

/** One file's full-text terms: its vocabulary and, per chunk (by docid), the positions of its words and identifier parts. */
export interface FileTerms {
  vocabulary: string[];
  chunks: Array<{ docid: number; body: Uint8Array; idents: Uint8Array }>;
}

/** Bytes `value` takes as a varint (LEB128, as `writeVarint` writes it). */
function varintSize(value: number): number {
  let size = 1;
  for (let rest = value; rest >= 0x80; rest = Math.floor(rest / 0x80)) size++;
  return size;
}

function writeVarint(out: Uint8Array, offset: number, value: number): number {
  let at = offset;
  let rest = value;
  while (rest >= 0x80) {
    out[at++] = (rest % 0x80) | 0x80;
    rest = Math.floor(rest / 0x80);
  }
  out[at++] = rest;
  return at;
}

/** Writes one chunk's list: its byte length, then its terms' positions ascending, each as the difference to the one before. */
function writePositions(out: Uint8Array, offset: number, ids: readonly number[], rank: Int32Array, scratch: Int32Array): number {
  const positions = scratch.subarray(0, ids.length);
  for (let index = 0; index < ids.length; index++) positions[index] = rank[ids[index]];
  positions.sort();
  let size = 0;
  let previous = 0;
  for (const position of positions) {
    size += varintSize(position - previous);
    previous = position;
  }
  let at = writeVarint(out, offset, size);
  previous = 0;
  for (const position of positions) {
    at = writeVarint(out, at, position - previous);
    previous = position;
  }
  return at;
}

/**
 * One file's terms as one deflated blob: the vocabulary (sorted, so deflate finds the shared
 * prefixes) followed by each chunk's position lists, in the file's chunk order. A chunk's lists
 * name terms by number (`FileTermsBuilder`'s), each distinct within its list, and `rank` gives
 * each number's place in `vocabulary`. Kept per file rather than per chunk because a file's
 * chunks always leave the index together; on the 1,000-file bench corpus the vocabulary text and
 * the per-chunk rows took 7.3 MB of a 22.9 MB database. It names no docid (a file's chunks get
 * consecutive ones, see `storedFileTerms`), so the parse workers build it with the rest of a
 * file's rows and the writer only prefixes the first docid: building it on the writer's thread
 * took a fifth of a cold index's writes.
 */
export function packTermLists(
  vocabulary: readonly string[],
  chunks: ReadonlyArray<{ words: readonly number[]; parts: readonly number[] }>,
  rank: Int32Array,
): Uint8Array {
  const text = vocabulary.join(' ');
  const textBytes = Buffer.byteLength(text, 'utf8');
  let longest = 0;
  let terms = 0;
  for (const chunk of chunks) {
    longest = Math.max(longest, chunk.words.length, chunk.parts.length);
    terms += chunk.words.length + chunk.parts.length;
  }
  // Every varint here is of a value below 2^32: at most five bytes.
  const out = Buffer.allocUnsafe(10 + textBytes + 10 * chunks.length + 5 * terms);
  let at = writeVarint(out, 0, textBytes);
  at += out.write(text, at, 'utf8');
  at = writeVarint(out, at, chunks.length);
  const scratch = new Int32Array(longest);
  for (const chunk of chunks) {
    at = writePositions(out, at, chunk.words, rank, scratch);
    at = writePositions(out, at, chunk.parts, rank, scratch);
  }
  // A copy of just the bytes: a view of zlib's larger output buffer would be posted whole.
  return new Uint8Array(deflateRawSync(out.subarray(0, at)));
}

/** What `search_vocabulary` stores for a file: the first chunk's docid, then `packTermLists`' blob. */
export function storedFileTerms(firstDocid: number, packed: Uint8Array): Uint8Array {
  const stored = new Uint8Array(varintSize(firstDocid) + packed.length);
  stored.set(packed, writeVarint(stored, 0, firstDocid));
  return stored;
}

/** The terms `storedFileTerms` stored (chunk `i` has docid first + i); throws on a blob it did not write. */
export function unpackFileTerms(stored: Uint8Array): FileTerms {
  let start = 0;
  let firstDocid = 0;
  let scale = 1;
  for (;;) {
    if (start >= stored.length) throw new Error('the stored full-text terms are truncated');
    const byte = stored[start++];
    firstDocid += (byte & 0x7f) * scale;
    if ((byte & 0x80) === 0) break;
    scale *= 0x80;
  }
  const bytes = inflateRawSync(stored.subarray(start));
  let offset = 0;
  const varint = (): number => {
    let value = 0;
    let factor = 1;
    for (;;) {
      if (offset >= bytes.length) throw new Error('the stored full-text terms are truncated');
      const byte = bytes[offset++];
      value += (byte & 0x7f) * factor;
      if ((byte & 0x80) === 0) return value;
      factor *= 0x80;
    }
  };
  const slice = (length: number): Uint8Array => {
    if (offset + length > bytes.length) throw new Error('the stored full-text terms are truncated');
    const part = bytes.subarray(offset, offset + length);
    offset += length;
    return part;
  };
  const vocabularyText = Buffer.from(slice(varint())).toString('utf8');
  const count = varint();
  const chunks: FileTerms['chunks'] = [];
  for (let index = 0; index < count; index++) {
    const body = slice(varint());
    const idents = slice(varint());
    chunks.push({ docid: firstDocid + index, body, idents });
  }
  return { vocabulary: vocabularyText === '' ? [] : vocabularyText.split(' '), chunks };
}
