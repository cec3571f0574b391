/**
 * Compact storage of the words each chunk put into the full-text index. FTS4 needs a chunk's
 * words again to delete it; instead of keeping them as text per chunk, each file keeps one
 * sorted vocabulary and each chunk a delta-coded list of varint positions into it, all of a
 * file's in one deflated blob (`packFileTerms`).
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';

export function decodeWords(codes: Uint8Array, vocabulary: string[]): string {
  const words: string[] = [];
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
    const word = vocabulary[index];
    if (word !== undefined) words.push(word);
    delta = 0;
    shift = 0;
  }
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
  const bytes: number[] = [];
  for (const value of values) pushVarint(bytes, value);
  return Uint8Array.from(bytes);
}

/** One file's full-text terms: its vocabulary and, per chunk (by docid), the positions of its words and identifier parts. */
export interface FileTerms {
  vocabulary: string[];
  chunks: Array<{ docid: number; body: Uint8Array; idents: Uint8Array }>;
}

/** The distinct words and identifier parts of one chunk, as `chunkTermLists` gives them. */
export interface ChunkWordLists {
  words: readonly string[];
  parts: readonly string[];
}

function pushVarint(bytes: number[], value: number): void {
  let rest = value;
  while (rest >= 0x80) {
    bytes.push((rest % 0x80) | 0x80);
    rest = Math.floor(rest / 0x80);
  }
  bytes.push(rest);
}

/** Appends `words` as delta-coded varint positions into the vocabulary (ascending, each once). */
function pushPositions(bytes: number[], words: readonly string[], positions: Map<string, number>): void {
  const indices = new Int32Array(words.length);
  let count = 0;
  for (const word of words) {
    const index = positions.get(word);
    if (index !== undefined) indices[count++] = index;
  }
  const sorted = indices.subarray(0, count).sort();
  const list: number[] = [];
  let previous = -1;
  for (const index of sorted) {
    if (index === previous) continue;
    pushVarint(list, index - Math.max(previous, 0));
    previous = index;
  }
  pushVarint(bytes, list.length);
  for (const byte of list) bytes.push(byte);
}

/**
 * One file's terms as one deflated blob: the vocabulary (sorted, so deflate finds the shared
 * prefixes) followed by each chunk's position lists, in the file's chunk order. Kept per file
 * rather than per chunk because a file's chunks always leave the index together; on the
 * 1,000-file bench corpus the vocabulary text and the per-chunk rows took 7.3 MB of a 22.9 MB
 * database. It names no docid (a file's chunks get consecutive ones, see `storedFileTerms`), so
 * the parse workers build it with the rest of a file's rows and the writer only prefixes the
 * first docid: building it on the writer's thread took a fifth of a cold index's writes.
 */
export function packFileTerms(chunks: readonly ChunkWordLists[]): Uint8Array {
  const words = new Set<string>();
  for (const chunk of chunks) {
    for (const word of chunk.words) words.add(word);
    for (const part of chunk.parts) words.add(part);
  }
  const vocabulary = [...words].sort();
  const positions = new Map<string, number>();
  vocabulary.forEach((word, index) => positions.set(word, index));
  const header: number[] = [];
  const text = Buffer.from(vocabulary.join(' '), 'utf8');
  pushVarint(header, text.length);
  const lists: number[] = [];
  pushVarint(lists, chunks.length);
  for (const chunk of chunks) {
    pushPositions(lists, chunk.words, positions);
    pushPositions(lists, chunk.parts, positions);
  }
  return Uint8Array.from(deflateRawSync(Buffer.concat([Uint8Array.from(header), text, Uint8Array.from(lists)])));
}

/** What `search_vocabulary` stores for a file: the first chunk's docid, then `packFileTerms`' blob. */
export function storedFileTerms(firstDocid: number, packed: Uint8Array): Uint8Array {
  const prefix: number[] = [];
  pushVarint(prefix, firstDocid);
  return Uint8Array.from(Buffer.concat([Uint8Array.from(prefix), packed]));
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
