/**
 * Compact storage of the words each chunk put into the full-text index. FTS4 needs a chunk's
 * words again to delete it; instead of keeping them as text per chunk, each file keeps one
 * sorted vocabulary and each chunk a delta-coded list of varint positions into it, all of a
 * file's in one deflated blob (`packFileTerms`).
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';

export function buildVocabulary(wordLists: Iterable<string>): string[] {
  const words = new Set<string>();
  for (const list of wordLists) for (const word of list.split(' ')) if (word) words.add(word);
  return [...words].sort();
}

/** Encodes the words of `list` (space separated, all in `vocabulary`) as positions. */
export function encodeWords(list: string, positions: Map<string, number>): Uint8Array {
  const indices = [...new Set(list.split(' ').filter((word) => word.length > 0))]
    .map((word) => positions.get(word))
    .filter((index): index is number => index !== undefined)
    .sort((a, b) => a - b);
  const bytes: number[] = [];
  let previous = 0;
  for (const index of indices) {
    let delta = index - previous;
    previous = index;
    while (delta >= 0x80) {
      bytes.push((delta & 0x7f) | 0x80);
      delta >>>= 7;
    }
    bytes.push(delta);
  }
  return Uint8Array.from(bytes);
}

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

/** Decodes SQLite's varint list (as in FTS4 docsize blobs). */
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

/** One file's full-text terms: its vocabulary and, per chunk (by docid), the positions of its words and identifier parts. */
export interface FileTerms {
  vocabulary: string[];
  chunks: Array<{ docid: number; body: Uint8Array; idents: Uint8Array }>;
}

function pushVarint(bytes: number[], value: number): void {
  let rest = value;
  while (rest >= 0x80) {
    bytes.push((rest % 0x80) | 0x80);
    rest = Math.floor(rest / 0x80);
  }
  bytes.push(rest);
}

/**
 * One file's terms as one deflated blob: the vocabulary (sorted, so deflate finds the shared
 * prefixes) followed by each chunk's docid and position lists. Kept per file rather than per
 * chunk because a file's chunks always leave the index together; on the 1,000-file bench corpus
 * the vocabulary text and the per-chunk rows took 7.3 MB of a 22.9 MB database.
 */
export function packFileTerms(terms: FileTerms): Uint8Array {
  const header: number[] = [];
  const vocabulary = Buffer.from(terms.vocabulary.join(' '), 'utf8');
  pushVarint(header, vocabulary.length);
  const parts: Uint8Array[] = [Uint8Array.from(header), vocabulary];
  const lists: number[] = [];
  pushVarint(lists, terms.chunks.length);
  for (const chunk of terms.chunks) {
    pushVarint(lists, chunk.docid);
    pushVarint(lists, chunk.body.length);
    for (const byte of chunk.body) lists.push(byte);
    pushVarint(lists, chunk.idents.length);
    for (const byte of chunk.idents) lists.push(byte);
  }
  parts.push(Uint8Array.from(lists));
  return Uint8Array.from(deflateRawSync(Buffer.concat(parts)));
}

/** The terms `packFileTerms` stored; throws on a blob it did not write. */
export function unpackFileTerms(packed: Uint8Array): FileTerms {
  const bytes = inflateRawSync(packed);
  let offset = 0;
  const varint = (): number => {
    let value = 0;
    let scale = 1;
    for (;;) {
      if (offset >= bytes.length) throw new Error('the stored full-text terms are truncated');
      const byte = bytes[offset++];
      value += (byte & 0x7f) * scale;
      if ((byte & 0x80) === 0) return value;
      scale *= 0x80;
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
    const docid = varint();
    const body = slice(varint());
    const idents = slice(varint());
    chunks.push({ docid, body, idents });
  }
  return { vocabulary: vocabularyText === '' ? [] : vocabularyText.split(' '), chunks };
}
