import type { FileRow, IndexStore, SnippetRow } from '../store';
import { splitIdentifier } from '../tokens';
import { searchWords, stemTerms, stemWord, type TaskDescriptor } from './descriptor';

/** Why a candidate was proposed; the manifest shows these codes. */
export type CandidateReason =
  | 'exact-qualified-symbol'
  | 'exact-path'
  | 'exact-symbol'
  | 'exact-basename'
  | 'declared-fallback'
  | 'exact-phrase'
  | 'symbol-text'
  | 'full-text'
  | 'semantic';

/** Score tiers of SPEC §8 (full text spreads over 20..60; `semantic` is only reached in hybrid mode). */
export const tierScores: Record<CandidateReason, number> = {
  'exact-qualified-symbol': 190,
  'exact-path': 180,
  'exact-symbol': 170,
  'exact-basename': 150,
  'declared-fallback': 115,
  'exact-phrase': 90,
  'symbol-text': 65,
  'full-text': 60,
  semantic: 20,
};

/** Candidates at or above this base are exact matches: nothing weaker may displace them. */
export const exactTierFloor = tierScores['exact-basename'];

/** Within a tier, how much the request's full-text relevance may add (always less than a tier gap). */
export const refinementSpan = 4;

export interface Candidate {
  snippet: SnippetRow;
  reason: CandidateReason;
  /** Tier score plus the within-tier refinement, before bonuses and token cost. */
  base: number;
  /** What matched, for the prompt's "Relevance" line (a symbol, path or phrase). */
  matched: string;
  /** For phrase candidates: the literal the live text must contain to keep the tier. */
  literal?: string;
}

function ftsQuote(word: string): string {
  return `"${word.replace(/"/g, '""')}"`;
}

/** First part of each declaration: the piece with its signature. */
function firstPartPerSymbol(rows: SnippetRow[]): SnippetRow[] {
  const seen = new Set<string>();
  return rows.filter((row) => {
    const key = row.symbolId ?? row.id;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

const maxPerName = 24;
const maxPhraseQueries = 24;

/** The full-text expression of a word list: each word, plus its stem as a prefix when it has one. */
export function fullTextExpression(words: string[]): string {
  const terms: string[] = [];
  for (const word of words) {
    terms.push(ftsQuote(word));
    for (const term of stemTerms(word)) terms.push(term.endsWith('*') ? term : ftsQuote(term));
  }
  return [...new Set(terms)].join(' OR ');
}

/** Project files a requested path may name: exact, an outer path ending in a project path, or a basename. */
export function resolvePath(requested: string, files: ReadonlyMap<string, FileRow>): { exact: string[]; near: string[] } {
  if (files.has(requested)) return { exact: [requested], near: [] };
  const segments = requested.replace(/^[A-Za-z]:\//, '').split('/').filter(Boolean);
  // `/usr/lib/python3.11/json/decoder.py`, `C:/work/app/src/a.ts`: the longest project path it ends with.
  for (let start = 1; start < segments.length; start++) {
    const suffix = segments.slice(start).join('/');
    if (files.has(suffix)) return { exact: [suffix], near: [] };
  }
  const near: string[] = [];
  const tail = `/${segments.join('/')}`;
  for (const path of files.keys()) if (path.endsWith(tail)) near.push(path);
  return { exact: [], near: near.sort().slice(0, 32) };
}

/** Files a dotted module name may be (`json.decoder` → `json/decoder.py`, `a.b` → `a/b/index.ts`). */
function resolveModule(name: string, files: ReadonlyMap<string, FileRow>): string[] {
  const base = name.replace(/\./g, '/');
  const found: string[] = [];
  for (const path of files.keys()) {
    const withoutExtension = path.replace(/\.[^./]+$/, '').replace(/\/(?:__init__|index|mod)$/, '');
    if (withoutExtension === base || withoutExtension.endsWith(`/${base}`)) found.push(path);
  }
  return found.sort().slice(0, 8);
}

/** The chunk that best holds `line`: a declaration named like the frame's function, else the smallest chunk. */
function chunkAtLine(rows: SnippetRow[], line: number, symbol?: string): SnippetRow | undefined {
  const holding = rows.filter((row) => row.startLine <= line && line <= row.endLine);
  if (holding.length === 0) return undefined;
  const span = (row: SnippetRow) => row.endLine - row.startLine;
  return [...holding].sort((a, b) =>
    Number(b.name !== null && b.name === symbol) - Number(a.name !== null && a.name === symbol)
    || Number(b.symbolId !== null) - Number(a.symbolId !== null)
    || span(a) - span(b)
    || a.startLine - b.startLine)[0];
}

/**
 * Collects candidates from exact lookups first, then phrases, symbol text and full text. Each
 * snippet keeps only its strongest reason; within a tier the request's full-text relevance
 * (bm25 relative to the best hit) adds up to `refinementSpan`.
 */
export function collectCandidates(store: IndexStore, descriptor: TaskDescriptor, poolSize: number, files: ReadonlyMap<string, FileRow> = store.files()): Candidate[] {
  const words = searchWords(descriptor);
  const hits = words.length > 0 ? safeFullText(store, fullTextExpression(words), 100_000) : [];
  const best = hits[0]?.bm25 ?? 0;
  const relevance = new Map<number, number>(hits.map((hit) => [hit.rowid, best > 0 ? hit.bm25 / best : 0]));
  const refine = (row: SnippetRow) => refinementSpan * (relevance.get(row.rowid) ?? 0);

  const byId = new Map<string, Candidate>();
  const add = (snippet: SnippetRow, reason: CandidateReason, matched: string, base: number, literal?: string) => {
    const existing = byId.get(snippet.id);
    if (!existing || existing.base < base) byId.set(snippet.id, { snippet, reason, base: Math.round(base * 1000) / 1000, matched, literal });
  };
  const addDeclarations = (rows: SnippetRow[], reason: CandidateReason, matched: string, tier = tierScores[reason]) => {
    const ranked = firstPartPerSymbol(rows).sort((a, b) => refine(b) - refine(a) || a.rowid - b.rowid).slice(0, maxPerName);
    for (const row of ranked) add(row, reason, matched, tier + refine(row));
  };

  // Exact qualified symbols; an outer qualifier the index does not know (`urllib.request.Request.get_method`) is dropped.
  for (const name of descriptor.qualifiedSymbols) {
    const parts = name.split('.');
    for (let start = 0; start <= parts.length - 2; start++) {
      const rows = store.declarationSnippets(parts.slice(start).join('.'), 'qualified');
      if (rows.length === 0) continue;
      addDeclarations(rows, 'exact-qualified-symbol', name);
      break;
    }
  }

  // Paths, with line hints (`a.py:12`, stack frames) choosing the chunk and the request's words ranking the rest.
  const pathWords = new Set(descriptor.paths.flatMap((path) => path.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []));
  const otherWords = words.some((word) => !pathWords.has(word));
  const requestedNames = new Set([...descriptor.symbols, ...descriptor.qualifiedSymbols]);
  const addPath = (path: string, reason: CandidateReason, requested: string) => {
    const rows = store.currentSnippets(path);
    if (rows.length === 0) return;
    const hints = descriptor.lineHints.filter((hint) => hint.path === requested);
    if (hints.length > 0) {
      for (const hint of hints) {
        const row = chunkAtLine(rows, hint.line, hint.symbol);
        // The innermost frame of a stack trace ranks first.
        const frameBonus = hint.frame === undefined ? refinementSpan : refinementSpan * Math.max(0, 1 - hint.frame / 16);
        if (row) add(row, reason, `${path}:${hint.line}`, tierScores[reason] + frameBonus);
      }
      return;
    }
    // `http/server.py send_error`: the file's declarations the request names come first.
    const named = firstPartPerSymbol(rows.filter((row) => (row.name !== null && requestedNames.has(row.name)) || (row.qualifiedName !== null && requestedNames.has(row.qualifiedName)))).slice(0, 4);
    for (const row of named) add(row, reason, path, tierScores[reason] + refinementSpan);
    const matching = otherWords ? rows.filter((row) => relevance.has(row.rowid) && !named.includes(row)).sort((a, b) => refine(b) - refine(a) || a.startLine - b.startLine).slice(0, Math.max(0, 2 - named.length)) : [];
    for (const row of matching) add(row, reason, path, tierScores[reason] + refine(row) * 0.9);
    if (named.length > 0) return;
    for (const row of rows.slice(0, matching.length > 0 ? 1 : 2)) add(row, reason, path, tierScores[reason] + (matching.length > 0 ? 0 : refine(row)));
  };
  for (const requested of descriptor.paths) {
    const { exact, near } = resolvePath(requested, files);
    for (const path of exact) addPath(path, 'exact-path', requested);
    for (const path of near) addPath(path, 'exact-basename', requested);
  }
  for (const name of descriptor.modules) for (const path of resolveModule(name, files)) addPath(path, 'exact-basename', name);

  // Exact simple symbols, then the case-insensitive fallback.
  for (const name of descriptor.symbols) {
    const exact = store.declarationSnippets(name, 'simple');
    if (exact.length > 0) addDeclarations(exact, 'exact-symbol', name);
    else if (name.length >= 3) addDeclarations(store.declarationSnippetsIgnoringCase(name), 'declared-fallback', name);
  }

  // Literal phrases: quoted text, then error messages and their literal runs (longest runs that match).
  let phraseQueries = 0;
  const phraseHits = (phrase: string): SnippetRow[] => {
    const phraseWords = phrase.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [];
    if (phraseWords.length === 0 || phraseQueries >= maxPhraseQueries) return [];
    phraseQueries++;
    const expression = `"${phraseWords.map((word) => word.replace(/"/g, '""')).join(' ')}"`;
    return store.snippetsByRowid(safeFullText(store, expression, poolSize).map((hit) => hit.rowid));
  };
  const addPhrase = (phrase: string, rows: SnippetRow[], weight: number) => {
    for (const row of rows) {
      // A chunk holding a smaller chunk that also has the phrase (a class part around the method) yields to it.
      const container = rows.some((other) => other !== row && other.path === row.path && row.startLine <= other.startLine && other.endLine <= row.endLine && (other.endLine - other.startLine) < (row.endLine - row.startLine));
      add(row, 'exact-phrase', phrase, tierScores['exact-phrase'] + weight * refinementSpan * 0.5 + refine(row) * 0.5 - (container ? refinementSpan * 0.5 : 0), phrase);
    }
  };
  for (const phrase of descriptor.phrases) addPhrase(phrase, phraseHits(phrase), 1);
  for (const fragment of descriptor.errorFragments) {
    const fragmentWords = fragment.split(/\s+/);
    const whole = phraseHits(fragment);
    if (whole.length > 0) {
      addPhrase(fragment, whole, 1);
      continue;
    }
    // Wrapper words ("urlopen error unknown url type") or a cut value may break the run: try shorter
    // runs, longest first (at least three words of a longer fragment); longer runs weigh more.
    const shortest = fragmentWords.length >= 4 ? 3 : 2;
    for (let length = fragmentWords.length - 1; length >= shortest; length--) {
      for (let start = 0; start + length <= fragmentWords.length; start++) {
        const run = fragmentWords.slice(start, start + length).join(' ');
        if (run.length >= 8) addPhrase(run, phraseHits(run), length / fragmentWords.length);
      }
    }
  }

  // Error types are names worth showing, but weaker than where the message is raised.
  for (const type of descriptor.errorTypes) {
    for (const row of firstPartPerSymbol(store.declarationSnippets(type, 'simple')).slice(0, 4)) add(row, 'symbol-text', type, tierScores['symbol-text'] - 1 + refine(row) * 0.25);
  }

  // Full text. A chunk's relevance blends its bm25 (relative to the best hit) with how many of the
  // request's concepts its declared name holds (its parent's name counts half); a chunk whose
  // name holds any is symbol text (up to 65), anything else full text (20..60).
  if (hits.length > 0) {
    const weights = conceptWeights(store, words);
    const top = hits.slice(0, poolSize);
    const rows = store.snippetsByRowid(top.map((hit) => hit.rowid));
    for (const row of rows) {
      const relative = relevance.get(row.rowid) ?? 0;
      const coverage = nameCoverage(row, weights);
      const blended = 0.65 * relative + 0.35 * Math.min(1, coverage.own + coverage.parent / 2);
      if (coverage.own > 0) add(row, 'symbol-text', row.name as string, 20 + 45 * blended);
      else add(row, 'full-text', words.join(' '), 20 + 40 * blended);
    }
  }
  return [...byId.values()];
}

/** Shares of the request's concepts (stems with idf weights) held by a chunk's declared name and by its parent's name. */
export function nameCoverage(row: Pick<SnippetRow, 'name' | 'qualifiedName'>, concepts: ReadonlyMap<string, number>): { own: number; parent: number } {
  if (!row.name || concepts.size === 0) return { own: 0, parent: 0 };
  const own = new Set(splitIdentifier(row.name).map(stemWord));
  const qualifier = row.qualifiedName && row.qualifiedName.length > row.name.length ? row.qualifiedName.slice(0, -row.name.length - 1) : '';
  const parent = new Set(splitIdentifier(qualifier).map(stemWord));
  let total = 0;
  let ownWeight = 0;
  let parentWeight = 0;
  for (const [concept, weight] of concepts) {
    total += weight;
    if (own.has(concept)) ownWeight += weight;
    else if (parent.has(concept)) parentWeight += weight;
  }
  return total > 0 ? { own: ownWeight / total, parent: parentWeight / total } : { own: 0, parent: 0 };
}

const documentFrequencies = new WeakMap<IndexStore, { revision: number; documents: number; byTerm: Map<string, number> }>();
const maxWeightedConcepts = 12;

/**
 * Inverse document frequency of each request concept (its word's stem), so a rare word the
 * request shares with a declaration's name counts more than a common one. Counts are cached
 * until the store changes.
 */
export function conceptWeights(store: IndexStore, words: string[]): Map<string, number> {
  let cache = documentFrequencies.get(store);
  if (!cache || cache.revision !== store.revision) {
    const documents = Number(store.database.exec('SELECT COUNT(*) FROM search_codes')[0]?.values[0]?.[0] ?? 0);
    cache = { revision: store.revision, documents, byTerm: new Map() };
    documentFrequencies.set(store, cache);
  }
  const weights = new Map<string, number>();
  for (const word of words.slice(0, maxWeightedConcepts)) {
    const concept = stemWord(word);
    if (weights.has(concept)) continue;
    let frequency = cache.byTerm.get(word);
    if (frequency === undefined) {
      try {
        frequency = Number(store.database.exec('SELECT COUNT(*) FROM search_index WHERE search_index MATCH ?', [fullTextExpression([word])])[0]?.values[0]?.[0] ?? 0);
      } catch {
        frequency = 0;
      }
      cache.byTerm.set(word, frequency);
    }
    weights.set(concept, Math.log(1 + (cache.documents + 1) / (frequency + 1)));
  }
  return weights;
}

function safeFullText(store: IndexStore, expression: string, limit: number): Array<{ rowid: number; bm25: number }> {
  try {
    return store.fullText(expression, limit);
  } catch {
    // A query the FTS parser rejects contributes nothing rather than failing the search.
    return [];
  }
}
