import type { IndexStore } from '../store';
import { splitIdentifier } from '../tokens';
import { termStatistics, type WordTerms } from './candidates';
import { stemWord } from './descriptor';

/**
 * A whole file's relevance to the request as BM25F (Robertson and Zaragoza's simple BM25F): per
 * request concept (a word and its stem variants), the file's term frequencies in four fields are
 * each length-normalized, weighted and summed before one saturation, times a file-level idf.
 *
 * - body: the term's occurrences in all of the file's chunks (a file's lines are each indexed once);
 * - idents: the term as a part of compound identifiers (`parseHeader` → `parse`, `header`);
 * - path: the term among the path's segments;
 * - names: declarations of the file whose name holds the term (`def rotate_log`): declaration-level
 *   evidence, which a stray body word never gives.
 *
 * Whole-file BM25 is what a plain search over the tree computes, and on pasted fix requests it
 * finds the fixed file more often than the best single chunk does: the request's words spread over
 * the file. Computed from the chunk index (`matchinfo('pcy')` per matching chunk, summed by file);
 * the body length is the file's size in bytes against the average file's.
 */
export interface FileScoreParameters {
  k1: number;
  body: { weight: number; b: number };
  idents: { weight: number; b: number };
  path: { weight: number; b: number };
  names: { weight: number };
}

export const fileScoreParameters: FileScoreParameters = {
  k1: 1.2,
  body: { weight: 1, b: 0.75 },
  idents: { weight: 1, b: 0.75 },
  path: { weight: 2, b: 0.3 },
  names: { weight: 2 },
};

/** Terms in more than this share of the chunks (and more than `commonFloor`) are left out: their idf is near zero and their lists are the longest. */
const commonShare = 0.2;
const commonFloor = 4000;
/** The chunks the scan may visit in all (the sum of the kept terms' lists), rarest terms kept first. */
const maxScannedChunks = 60_000;
/** Request words scored (their terms are counted in groups of sixteen, as `termStatistics` takes them). */
const maxWords = 32;

/**
 * A declared name's stems (its lower-cased whole and its identifier parts), kept across requests:
 * they depend on the name alone, and stemming every matching chunk's name again per request was
 * most of a long request's cost. Cleared past `maxCachedNames` so the cache stays bounded.
 */
const nameStems = new Map<string, Set<string>>();
const maxCachedNames = 20_000;

function stemsOf(name: string): Set<string> {
  let stems = nameStems.get(name);
  if (!stems) {
    if (nameStems.size >= maxCachedNames) nameStems.clear();
    stems = new Set([name.toLowerCase(), ...splitIdentifier(name)].map(stemWord));
    nameStems.set(name, stems);
  }
  return stems;
}

/** Column order of `search_index`. */
const bodyColumn = 0;
const pathColumn = 1;
const identsColumn = 2;

export interface FileTotals {
  /** Per concept: body hits, idents hits, path hits (max over chunks), declared names holding it. */
  body: number[];
  idents: number[];
  path: number[];
  names: number[];
}

/**
 * BM25F scores of the files holding the request's words, best first (at most `limit`). Empty when
 * no word is in the index. Bounded: only terms in at most a fifth of the chunks, and at most
 * `maxScannedChunks` chunk visits in all.
 */
export function scoreFiles(
  store: IndexStore,
  wordTerms: WordTerms[],
  limit: number,
  parameters: FileScoreParameters = fileScoreParameters,
): Array<{ path: string; score: number }> {
  const totals = fileTermTotals(store, wordTerms);
  return totals ? bm25fScores(totals, parameters).slice(0, limit) : [];
}

/** The per-file, per-concept field counts BM25F scores (`fileTermTotals`), with what normalizes them. */
export interface FileTermTotals {
  /** The request's concepts (stems), in request order. */
  concepts: string[];
  byFile: Map<string, FileTotals & { bytes: number }>;
  /** Files in the index (at least those matched) and their mean size in bytes. */
  fileCount: number;
  averageBytes: number;
}

/**
 * Sums, per file that holds a request word, each concept's hits per field over the file's current
 * chunks. Undefined when no word is in the index. Bounded: only terms in at most a fifth of the
 * chunks, and at most `maxScannedChunks` chunk visits in all.
 */
export function fileTermTotals(store: IndexStore, wordTerms: WordTerms[]): FileTermTotals | undefined {
  const groups = wordTerms.slice(0, maxWords);
  if (groups.length === 0) return undefined;
  const documents = store.search.documentCount();
  if (documents === 0) return undefined;
  // Chunk counts per term (cached per revision by termStatistics), to drop the common ones and bound the scan.
  const listed = new Map<string, number>();
  for (let start = 0; start < groups.length; start += 16) {
    const statistics = termStatistics(store, groups.slice(start, start + 16));
    for (const [term, perColumn] of statistics.termDocuments) listed.set(term, Math.max(...perColumn));
  }
  const candidates: Array<{ term: string; concept: number; listed: number }> = [];
  const concepts: string[] = [];
  const conceptOf = new Map<string, number>();
  groups.forEach((group) => {
    const stem = stemWord(group.word);
    let concept = conceptOf.get(stem);
    if (concept === undefined) {
      concept = concepts.length;
      concepts.push(stem);
      conceptOf.set(stem, concept);
    }
    for (const term of group.terms) {
      const count = listed.get(term) ?? 0;
      if (count > 0 && count <= Math.max(commonFloor, documents * commonShare) && !candidates.some((kept) => kept.term === term))
        candidates.push({ term, concept, listed: count });
    }
  });
  candidates.sort((a, b) => a.listed - b.listed || (a.term < b.term ? -1 : 1));
  const kept: typeof candidates = [];
  let scanned = 0;
  for (const candidate of candidates) {
    if (scanned + candidate.listed > maxScannedChunks && kept.length > 0) continue;
    kept.push(candidate);
    scanned += candidate.listed;
  }
  if (kept.length === 0) return undefined;

  const phraseCount = kept.length;
  const conceptCount = concepts.length;
  const perRow = new Map<number, Uint32Array>();
  const matched = store.search.scanMatches(kept.map((candidate) => candidate.term).join(' OR '), (_bytes, words, pointer, size, docid) => {
    if (pointer % 4 !== 0 || size < 8) return 0;
    const base = pointer / 4;
    const columns = words[base + 1];
    const hits = new Uint32Array(phraseCount * 3);
    for (let phrase = 0; phrase < phraseCount; phrase++)
      for (let column = 0; column < Math.min(3, columns); column++) hits[phrase * 3 + column] = words[base + 2 + phrase * columns + column];
    perRow.set(docid, hits);
    return 1;
  });
  // Each matching chunk's file and declared name, from the part that owns them (stale chunks are left out).
  const rows = store.chunks.owners(matched);

  const termStems = kept.map((candidate) => stemWord(candidate.term.replace(/^"(.*)"$/, '$1').replace(/""/g, '"')));
  const byFile = new Map<string, FileTotals & { bytes: number }>();
  for (const row of rows) {
    const hits = perRow.get(row.rowid);
    if (!hits) continue;
    const path = row.path;
    let totals = byFile.get(path);
    if (!totals) {
      const zeros = () => new Array<number>(conceptCount).fill(0);
      totals = { body: zeros(), idents: zeros(), path: zeros(), names: zeros(), bytes: store.catalog.bytesOf(path) ?? 0 };
      byFile.set(path, totals);
    }
    const name = row.name;
    const nameParts = name ? stemsOf(name) : undefined;
    const namedConcepts = new Set<number>();
    for (let phrase = 0; phrase < phraseCount; phrase++) {
      const concept = kept[phrase].concept;
      totals.body[concept] += hits[phrase * 3 + bodyColumn];
      totals.idents[concept] += hits[phrase * 3 + identsColumn];
      totals.path[concept] = Math.max(totals.path[concept], hits[phrase * 3 + pathColumn]);
      if (nameParts && (hits[phrase * 3 + bodyColumn] > 0 || hits[phrase * 3 + identsColumn] > 0) && nameParts.has(termStems[phrase]))
        namedConcepts.add(concept);
    }
    for (const concept of namedConcepts) totals.names[concept]++;
  }

  const { files, averageBytes } = store.catalog.sizeStatistics();
  return { concepts, byFile, fileCount: Math.max(files, byFile.size), averageBytes };
}

/** BM25F over `fileTermTotals`, best first (ties by path). */
export function bm25fScores(
  { concepts, byFile, fileCount, averageBytes: average }: FileTermTotals,
  parameters: FileScoreParameters = fileScoreParameters,
): Array<{ path: string; score: number }> {
  const conceptCount = concepts.length;
  const frequency = new Array<number>(conceptCount).fill(0);
  for (const totals of byFile.values())
    for (let concept = 0; concept < conceptCount; concept++)
      if (totals.body[concept] + totals.idents[concept] + totals.path[concept] > 0) frequency[concept]++;
  const idf = frequency.map((df) => (df > 0 ? Math.log(1 + (fileCount - df + 0.5) / (df + 0.5)) : 0));
  const { k1, body, idents, path: pathField, names } = parameters;
  const averagePathWords = 4;
  const scored: Array<{ path: string; score: number }> = [];
  for (const [path, totals] of byFile) {
    const bytes = totals.bytes || average;
    const bodyNorm = 1 - body.b + body.b * (bytes / average);
    const identsNorm = 1 - idents.b + idents.b * (bytes / average);
    const pathWords = path.split(/[/._-]+/).filter(Boolean).length;
    const pathNorm = 1 - pathField.b + pathField.b * (pathWords / averagePathWords);
    let score = 0;
    for (let concept = 0; concept < conceptCount; concept++) {
      if (idf[concept] === 0) continue;
      const weighted =
        (body.weight * totals.body[concept]) / bodyNorm +
        (idents.weight * totals.idents[concept]) / identsNorm +
        (pathField.weight * totals.path[concept]) / pathNorm +
        names.weight * Math.min(3, totals.names[concept]);
      if (weighted > 0) score += (idf[concept] * weighted) / (k1 + weighted);
    }
    if (score > 0) scored.push({ path, score: Math.round(score * 1000) / 1000 });
  }
  scored.sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return scored;
}
