/**
 * Compact storage of the words each chunk put into the full-text index. FTS4 needs a chunk's
 * words again to delete it; instead of keeping them as text per chunk, each file keeps one
 * sorted vocabulary and each chunk a delta-coded list of varint positions into it.
 */

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
