/**
 * One file's full-text terms, collected chunk by chunk as `buildRows` makes the chunks: each
 * chunk's words (what FTS4 needs to delete its row later) and the parts of its compound
 * identifiers (its `idents` column), and at the end all of them as the one blob `termCodes.ts`
 * describes. The file numbers each distinct term once, so a chunk's lists are numbers rather
 * than strings, and a word written the same way again costs one map lookup (the per-chunk sets
 * of strings this replaced, and the file vocabulary built again from them, took a fifth of a
 * parse worker's time on the bench corpus).
 */
import { packTermLists } from './termCodes';
import { splitIdentifier, wordsIn } from './words';

/** A word as written in the file: its term, and for a compound (upper case or `_`) of several parts, those parts. */
interface WrittenWord {
  id: number;
  split: readonly string[] | undefined;
  /** The parts' terms, numbered when the compound first adds them: only then are they terms of the file. */
  partIds: number[] | undefined;
}

export class FileTermsBuilder {
  /** Each distinct lower-case term (word or identifier part), by the number it got when first seen. */
  private readonly terms: string[] = [];
  private readonly termIds = new Map<string, number>();
  private readonly written = new Map<string, WrittenWord>();
  /** Per term, the chunk (counted from 1) that last had it as a word, and as an identifier part. */
  private wordChunk = new Int32Array(256);
  private partChunk = new Int32Array(256);
  /** Per chunk, its words' and its parts' term numbers. */
  private readonly lists: Array<{ words: number[]; parts: number[] }> = [];

  /**
   * Adds the next chunk: its own text and the identifiers it declares (its name, its qualified
   * name). Returns its identifier parts that are not already its words, space separated, in the
   * order they were first found: `parseHttpHeader` → `parse http header`.
   */
  addChunk(text: string, extraIdentifiers: readonly string[]): string {
    const chunk = this.lists.length + 1;
    const words: number[] = [];
    const compounds: WrittenWord[] = [];
    for (const word of wordsIn(text)) {
      let entry = this.written.get(word);
      if (entry === undefined) {
        const lower = word.toLowerCase();
        const split = lower !== word || word.includes('_') ? splitIdentifier(word) : undefined;
        entry = { id: this.termId(lower), split: split && split.length > 1 ? split : undefined, partIds: undefined };
        this.written.set(word, entry);
      }
      if (this.wordChunk[entry.id] === chunk) continue;
      this.wordChunk[entry.id] = chunk;
      words.push(entry.id);
      // Of the ways a word is written in a chunk, the first gives the parts (`Foo` then `FOO`: those of
      // `Foo`); a compound of one part is the word itself and adds nothing.
      if (entry.split) compounds.push(entry);
    }
    // Parts are added once per chunk, so a compound that comes again adds nothing.
    const parts: number[] = [];
    for (const entry of compounds) this.addParts((entry.partIds ??= this.termIdsOf(entry.split ?? [])), chunk, parts);
    for (const identifier of extraIdentifiers) {
      const split = splitIdentifier(identifier);
      if (split.length < 2 && this.isWord(identifier.toLowerCase(), chunk)) continue;
      this.addParts(this.termIdsOf(split), chunk, parts);
    }
    this.lists.push({ words, parts });
    return parts.map((id) => this.terms[id]).join(' ');
  }

  /**
   * The file's terms as one deflated blob (the layout is `termCodes.ts`'): the vocabulary in
   * sorted order, then each chunk's words and parts as positions into it, in chunk order.
   */
  pack(): Uint8Array {
    const order = sortedOrder(this.terms);
    const vocabulary = new Array<string>(order.length);
    const rank = new Int32Array(order.length);
    order.forEach((id, index) => {
      vocabulary[index] = this.terms[id];
      rank[id] = index;
    });
    return packTermLists(vocabulary, this.lists, rank);
  }

  private termId(term: string): number {
    let id = this.termIds.get(term);
    if (id === undefined) {
      id = this.terms.length;
      this.terms.push(term);
      this.termIds.set(term, id);
      if (id >= this.wordChunk.length) {
        this.wordChunk = grown(this.wordChunk);
        this.partChunk = grown(this.partChunk);
      }
    }
    return id;
  }

  /** Appends the parts that are neither words of the chunk nor parts it already has. */
  private addParts(partIds: readonly number[], chunk: number, parts: number[]): void {
    for (const id of partIds) {
      if (this.wordChunk[id] === chunk || this.partChunk[id] === chunk) continue;
      this.partChunk[id] = chunk;
      parts.push(id);
    }
  }

  private termIdsOf(terms: readonly string[]): number[] {
    return terms.map((term) => this.termId(term));
  }

  private isWord(term: string, chunk: number): boolean {
    const id = this.termIds.get(term);
    return id !== undefined && this.wordChunk[id] === chunk;
  }
}

/**
 * The terms' numbers in the order of `[...terms].sort()` (by UTF-16 code units). Terms of ASCII
 * word characters (`0-9`, `_`, `a-z`: every term of an ASCII file) get `wordKey`s of their first
 * seven or more characters; the rest, the first two code units. Numbers are sorted by that key as
 * one float (with the number in the bits below it), and only terms that share a key are compared
 * as strings. More terms than those bits can number are sorted the plain way.
 */
export function sortedOrder(terms: readonly string[], numberBits = 19): Int32Array {
  const count = terms.length;
  // As few bits for the numbers as they need, so the keys hold as many characters as can be.
  const wordBits = Math.max(1, Math.ceil(Math.log2(count + 1)));
  if (wordBits <= Math.min(16, numberBits)) {
    const order = sortedByWordKeys(terms, wordBits);
    if (order) return order;
  }
  // 34 bits of prefix and 19 of number are the 53 a float holds exactly.
  const bits = Math.min(19, numberBits);
  const order = new Int32Array(count);
  if (count >= 2 ** bits) {
    const sorted = terms.map((term, id) => ({ term, id })).sort((a, b) => (a.term < b.term ? -1 : a.term > b.term ? 1 : 0));
    sorted.forEach((entry, index) => (order[index] = entry.id));
    return order;
  }
  const scale = 2 ** bits;
  const keys = new Float64Array(count);
  for (let id = 0; id < count; id++) keys[id] = prefixKey(terms[id]) * scale + id;
  return orderOfKeys(terms, keys, scale);
}

/** Each ASCII word character's place in code-unit order, from 1 (0 is "no character", -1 "not one of them"). */
const wordCharacterRank = new Int8Array(128).fill(-1);
for (let code = 48; code <= 57; code++) wordCharacterRank[code] = code - 47;
wordCharacterRank[95] = 11;
for (let code = 97; code <= 122; code++) wordCharacterRank[code] = code - 85;
const wordCharacters = 38;

/**
 * `sortedOrder` for terms of ASCII word characters alone: the first `length` characters in base
 * 38 (37 characters and none, so a prefix sorts first), `length` as many as fit beside the
 * numbers' `bits` in the 53 a float holds exactly (seven beside 16 bits, eight beside 11).
 * Characters past the key are left to the string comparison of equal keys. Undefined at the
 * first term with another character in its key.
 */
function sortedByWordKeys(terms: readonly string[], bits: number): Int32Array | undefined {
  const count = terms.length;
  const scale = 2 ** bits;
  let length = 0;
  while (wordCharacters ** (length + 1) * scale <= 2 ** 53) length++;
  const keys = new Float64Array(count);
  for (let id = 0; id < count; id++) {
    const term = terms[id];
    let key = 0;
    for (let index = 0; index < length; index++) {
      let rank = 0;
      if (index < term.length) {
        const code = term.charCodeAt(index);
        rank = code < 128 ? wordCharacterRank[code] : -1;
        if (rank < 0) return undefined;
      }
      key = key * wordCharacters + rank;
    }
    keys[id] = key * scale + id;
  }
  return orderOfKeys(terms, keys, scale);
}

/** The numbers of `keys` (key times `scale` plus number) in key order, terms of equal keys compared as strings. */
function orderOfKeys(terms: readonly string[], keys: Float64Array, scale: number): Int32Array {
  const count = keys.length;
  const order = new Int32Array(count);
  keys.sort();
  let start = 0;
  while (start < count) {
    const prefix = Math.floor(keys[start] / scale);
    let end = start + 1;
    while (end < count && Math.floor(keys[end] / scale) === prefix) end++;
    if (end - start === 1) {
      order[start] = keys[start] % scale;
    } else {
      const run: number[] = [];
      for (let index = start; index < end; index++) run.push(keys[index] % scale);
      run.sort((a, b) => (terms[a] < terms[b] ? -1 : terms[a] > terms[b] ? 1 : 0));
      order.set(run, start);
    }
    start = end;
  }
  return order;
}

/** The first two code units, each plus one (zero for none, so a prefix sorts first): 34 bits. */
function prefixKey(term: string): number {
  const first = term.length > 0 ? term.charCodeAt(0) + 1 : 0;
  const second = term.length > 1 ? term.charCodeAt(1) + 1 : 0;
  return first * 65537 + second;
}

function grown(marks: Int32Array): Int32Array<ArrayBuffer> {
  const larger = new Int32Array(marks.length * 2);
  larger.set(marks);
  return larger;
}
