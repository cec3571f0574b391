/**
 * The local deterministic embedding (SPEC §8): 256-dimension signed feature hashing of a chunk's
 * identifier parts, stemmed unigrams and bigrams, and the int8 encoding it is stored in. Pure
 * functions of the text: no store, no files, no network.
 */
import { splitIdentifier, stemWord, stopwords } from '../words';

export const embeddingDimensions = 256;

/** Something that turns text into a vector; the default is the local feature hasher. Tests inject failing ones. */
export interface Embedder {
  readonly provider: string;
  readonly model: string;
  readonly dimensions: number;
  /** `title` carries a chunk's declared name and file name, which weigh more than its body. */
  embed(text: string, title?: string): Float32Array;
}

/** Words every program is full of; they say nothing about what a chunk does. */
const codeNoise = new Set(
  `self this cls def class return returns if else elif for while in is not and or none null nil true
false import from as try except finally raise throw throws catch pass const let var function fn func new public private
protected static void int str bool float string number boolean any object async await yield lambda with del global nonlocal
assert break continue case switch default do end begin then elsif unless module package namespace struct enum impl trait
type interface extends implements super args kwargs arg param params val value len isinstance print get set`.split(/\s+/),
);

/** FNV-1a over UTF-16 code units, 32-bit: stable across runs and platforms. */
function hash32(text: string, seed = 0x811c9dc5): number {
  let hash = seed;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  return hash >>> 0;
}

/** Lower-case terms of `text`: every identifier is split into its parts, parts are stemmed, noise dropped. */
export function embeddingTerms(text: string): string[] {
  const terms: string[] = [];
  for (const match of text.matchAll(/[\p{L}\p{N}_$]+/gu)) for (const term of termsOfWord(match[0])) terms.push(term);
  return terms;
}

const wordCache = new Map<string, readonly string[]>();
const wordCacheLimit = 100_000;
const noTerms: readonly string[] = [];

/** The stemmed, filtered parts of one word, memoized (source text repeats its words a lot). */
function termsOfWord(word: string): readonly string[] {
  const cached = wordCache.get(word);
  if (cached) return cached;
  let terms = noTerms;
  if (word.length <= 64) {
    const parts = /[A-Z_]/.test(word) || /\d/.test(word) ? splitIdentifier(word) : [word.toLowerCase()];
    const kept = parts
      .filter((part) => part.length >= 2 && !/^\d+$/.test(part) && !stopwords.has(part) && !codeNoise.has(part))
      .map(stemWord);
    if (kept.length > 0) terms = kept;
  }
  if (wordCache.size >= wordCacheLimit) wordCache.clear();
  wordCache.set(word, terms);
  return terms;
}

const unigramHashes = new Map<string, number>();

/** Hash of the unigram feature of a term, memoized. */
function unigramHash(term: string): number {
  let hash = unigramHashes.get(term);
  if (hash === undefined) {
    hash = hash32(`u:${term}`);
    if (unigramHashes.size >= wordCacheLimit) unigramHashes.clear();
    unigramHashes.set(term, hash);
  }
  return hash;
}

/** Hash of the bigram feature (a, b), mixed from the two unigram hashes: order matters, stable everywhere. */
function bigramHash(first: number, second: number): number {
  let hash = Math.imul(first ^ 0x9e3779b9, 0x85ebca6b) ^ second;
  hash ^= hash >>> 15;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 13;
  return hash >>> 0;
}

/**
 * The local deterministic embedding: signed feature hashing (one hash picks the dimension, its
 * top bit the sign) of stemmed unigrams and bigrams with sublinear term frequency, the chunk's
 * declared name and file name weighted up, L2-normalized.
 */
export class FeatureHashingEmbedder implements Embedder {
  readonly provider = 'pk-local';
  readonly model = 'feature-hash-v1';
  constructor(readonly dimensions = embeddingDimensions) {}

  embed(text: string, title?: string): Float32Array {
    const counts = new Map<number, number>();
    const count = (feature: number, weight: number) => counts.set(feature, (counts.get(feature) ?? 0) + weight);
    let previousTerm: string | undefined;
    let previousHash = 0;
    for (const term of embeddingTerms(text)) {
      const hash = unigramHash(term);
      count(hash, 1);
      if (previousTerm !== undefined && previousTerm !== term) count(bigramHash(previousHash, hash), 0.5);
      previousTerm = term;
      previousHash = hash;
    }
    if (title) for (const term of embeddingTerms(title)) count(unigramHash(term), 3);
    const vector = new Float32Array(this.dimensions);
    for (const [hash, frequency] of counts) {
      const weight = 1 + Math.log(frequency);
      vector[hash % this.dimensions] += (hash & 0x80000000) !== 0 ? -weight : weight;
    }
    return normalize(vector);
  }
}

export const defaultEmbedder: Embedder = new FeatureHashingEmbedder();

function normalize(vector: Float32Array): Float32Array {
  let norm = 0;
  for (const value of vector) norm += value * value;
  norm = Math.sqrt(norm);
  if (norm > 0) for (let index = 0; index < vector.length; index++) vector[index] /= norm;
  return vector;
}

/** float32 scale (little endian) + one int8 per dimension. */
export function encodeVector(vector: Float32Array): Uint8Array {
  let max = 0;
  for (const value of vector) max = Math.max(max, Math.abs(value));
  const scale = max > 0 ? max / 127 : 0;
  const bytes = new Uint8Array(4 + vector.length);
  new DataView(bytes.buffer).setFloat32(0, scale, true);
  for (let index = 0; index < vector.length; index++) {
    const quantized = scale > 0 ? Math.round(vector[index] / scale) : 0;
    bytes[4 + index] = quantized & 0xff;
  }
  return bytes;
}

export function decodeVector(bytes: Uint8Array, dimensions: number): { scale: number; components: Int8Array } {
  if (bytes.length !== 4 + dimensions) throw new Error(`stored vector has ${bytes.length} bytes, expected ${4 + dimensions}`);
  const scale = new DataView(bytes.buffer, bytes.byteOffset, 4).getFloat32(0, true);
  if (!Number.isFinite(scale)) throw new Error('stored vector has a non-finite scale');
  return { scale, components: new Int8Array(bytes.buffer, bytes.byteOffset + 4, dimensions) };
}
