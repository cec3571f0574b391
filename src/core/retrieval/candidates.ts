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

/** One request word and the full-text terms that find it (the word, plus stem terms for prose words). */
export interface WordTerms {
  word: string;
  terms: string[];
}

/** Terms per word: prose words also get their stem (`parsed` → `pars*`); identifiers and literals stay exact. */
export function fullTextTerms(words: string[], prose: ReadonlySet<string> = new Set()): WordTerms[] {
  return words.map((word) => ({
    word,
    terms: [ftsQuote(word), ...(prose.has(word) ? stemTerms(word).map((term) => (term.endsWith('*') ? term : ftsQuote(term))) : [])],
  }));
}

/**
 * The project's files as candidates need them: point lookups (cached) and suffix searches, so a
 * query never loads every file row.
 */
export class FileIndex {
  private cache = new Map<string, FileRow | null>();
  constructor(private readonly store: IndexStore) {}

  get(path: string): FileRow | undefined {
    let row = this.cache.get(path);
    if (row === undefined) {
      row = this.store.file(path) ?? null;
      this.cache.set(path, row);
    }
    return row ?? undefined;
  }

  has(path: string): boolean {
    return this.get(path) !== undefined;
  }

  /** Paths ending in `/tail` (at most 32, sorted). */
  endingWith(tail: string): string[] {
    const rows = this.store.database.exec("SELECT path FROM project_files WHERE path LIKE ? ESCAPE '\\' ORDER BY path LIMIT 32", [`%/${tail.replace(/[\\%_]/g, '\\$&')}`]);
    return (rows[0]?.values ?? []).map((row) => row[0] as string).filter((path) => path.endsWith(`/${tail}`));
  }

  /** Paths whose last segments are `base` with any extension (at most 64, sorted). */
  modulePaths(base: string): string[] {
    const escaped = base.replace(/[\\%_]/g, '\\$&');
    const rows = this.store.database.exec("SELECT path FROM project_files WHERE path LIKE ? ESCAPE '\\' OR path LIKE ? ESCAPE '\\' ORDER BY path LIMIT 64", [`%${escaped}.%`, `%${escaped}/%`]);
    return (rows[0]?.values ?? []).map((row) => row[0] as string);
  }
}

/** Project files a requested path may name: exact, an outer path ending in a project path, or a basename. */
export function resolvePath(requested: string, files: FileIndex): { exact: string[]; near: string[] } {
  if (files.has(requested)) return { exact: [requested], near: [] };
  const segments = requested.replace(/^[A-Za-z]:\//, '').split('/').filter(Boolean);
  // `/usr/lib/python3.11/json/decoder.py`, `C:/work/app/src/a.ts`: the longest project path it ends with.
  for (let start = 1; start < segments.length; start++) {
    const suffix = segments.slice(start).join('/');
    if (files.has(suffix)) return { exact: [suffix], near: [] };
  }
  return { exact: [], near: segments.length > 0 ? files.endingWith(segments.join('/')) : [] };
}

/** Files a dotted module name may be (`json.decoder` → `json/decoder.py`, `a.b` → `a/b/index.ts`). */
function resolveModule(name: string, files: FileIndex): string[] {
  const base = name.replace(/\./g, '/');
  const found: string[] = [];
  for (const path of files.modulePaths(base)) {
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
export function collectCandidates(store: IndexStore, descriptor: TaskDescriptor, poolSize: number, files: FileIndex = new FileIndex(store)): Candidate[] {
  // Full text costs the most (bm25 over every matching chunk), so a pure lookup — paths, symbols,
  // phrases, errors, with no prose words — runs it only when the exact lookups found nothing.
  const words = searchWords(descriptor);
  const prose = new Set(descriptor.keywords);
  const wordTerms = fullTextTerms(words, prose);
  let hits: Array<{ rowid: number; bm25: number }> = [];
  let relevance = new Map<number, number>();
  let statistics: TermStatistics | undefined;
  const runFullText = () => {
    if (wordTerms.length === 0) return;
    statistics = termStatistics(store, wordTerms);
    hits = safeFullText(store, selectiveTerms(statistics).join(' OR '), 100_000);
    const best = hits[0]?.bm25 ?? 0;
    relevance = new Map<number, number>(hits.map((hit) => [hit.rowid, best > 0 ? hit.bm25 / best : 0]));
  };
  const proseFirst = descriptor.keywords.length > 0;
  if (proseFirst) runFullText();
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
    else if (name.length >= 3) addDeclarations(declarationsIgnoringCase(store, name), 'declared-fallback', name);
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
  if (!proseFirst && ![...byId.values()].some((candidate) => candidate.base >= tierScores['exact-phrase'])) runFullText();
  if (hits.length > 0) {
    const weights = statistics?.weights ?? new Map<string, number>();
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

const maxWeightedConcepts = 16;

/** Document counts of the request's full-text terms, and an idf weight per concept (word stem). */
export interface TermStatistics {
  documents: number;
  /** Documents holding each term, per full-text column (`searchColumns` order). */
  termDocuments: Map<string, number[]>;
  weights: Map<string, number>;
  terms: string[];
}

/**
 * One query: FTS4's `matchinfo('ncx')` of any matching row carries the document count and, per
 * term and column, how many documents hold the term. The idf weights let a rare word the request
 * shares with a declaration's name count more than a common one.
 */
export function termStatistics(store: IndexStore, wordTerms: WordTerms[]): TermStatistics {
  const groups = wordTerms.slice(0, maxWeightedConcepts);
  const flat = groups.flatMap((group, index) => group.terms.map((term) => ({ term, index })));
  let info: Uint32Array | undefined;
  try {
    const blob = store.database.exec("SELECT matchinfo(search_index, 'ncx') FROM search_index WHERE search_index MATCH ? LIMIT 1", [flat.map((entry) => entry.term).join(' OR ')])[0]?.values[0]?.[0] as Uint8Array | undefined;
    if (blob) info = new Uint32Array(blob.buffer.slice(blob.byteOffset, blob.byteOffset + blob.byteLength));
  } catch {
    info = undefined;
  }
  const documents = info?.[0] ?? 0;
  const columns = info?.[1] ?? 0;
  const termDocuments = new Map<string, number[]>();
  const frequencies = new Array<number>(groups.length).fill(0);
  flat.forEach((entry, phrase) => {
    const perColumn = Array.from({ length: columns }, (_, column) => info?.[2 + 3 * (phrase * columns + column) + 2] ?? 0);
    termDocuments.set(entry.term, perColumn);
    frequencies[entry.index] = Math.max(frequencies[entry.index], ...perColumn, 0);
  });
  const weights = new Map<string, number>();
  groups.forEach((group, index) => {
    const concept = stemWord(group.word);
    const weight = info ? Math.log(1 + (documents + 1) / (frequencies[index] + 1)) : 1;
    weights.set(concept, Math.max(weights.get(concept) ?? 0, weight));
  });
  return { documents, termDocuments, weights, terms: [...new Set(wordTerms.flatMap((group) => group.terms))] };
}

/** The full-text columns, in the order of the `search_index` table. */
export const searchColumns = ['body', 'path', 'idents'];

/**
 * The terms worth scoring with bm25. A term in more than 5% of the chunks (and more than 2,000)
 * costs the most — every chunk it matches is scored — and adds little, its idf being small. So
 * it is kept only in the columns where it is still selective (`path:warehouse` when few paths
 * but many bodies hold it), and dropped where it is common everywhere; it still counts for name
 * coverage. When nothing selective is left, the three rarest terms stay.
 */
export function selectiveTerms(statistics: TermStatistics): string[] {
  if (statistics.documents === 0) return statistics.terms;
  const cap = Math.max(2000, statistics.documents * 0.05);
  const kept: string[] = [];
  for (const term of statistics.terms) {
    const perColumn = statistics.termDocuments.get(term) ?? [];
    if (perColumn.every((documents) => documents <= cap)) {
      kept.push(term);
      continue;
    }
    perColumn.forEach((documents, column) => {
      // FTS4's standard syntax takes `column:word` or `column:prefix*`, not a quoted term; request words are plain tokens.
      const bare = term.replace(/^"(.*)"$/, '$1');
      if (documents > 0 && documents <= cap && searchColumns[column] && /^[\p{L}\p{N}_]+\*?$/u.test(bare)) kept.push(`${searchColumns[column]}:${bare}`);
    });
  }
  if (kept.length > 0) return kept;
  const total = (term: string) => Math.max(0, ...(statistics.termDocuments.get(term) ?? []));
  return [...statistics.terms].sort((a, b) => total(a) - total(b) || (a < b ? -1 : 1)).slice(0, 3);
}

/**
 * Declarations named `name` in another case. The usual spellings (as typed, lower, UPPER,
 * Capitalized, camelCase) are looked up through the name index instead of scanning every row.
 */
export function declarationsIgnoringCase(store: IndexStore, name: string): SnippetRow[] {
  const lower = name.toLowerCase();
  const variants = new Set([name, lower, name.toUpperCase(), lower.charAt(0).toUpperCase() + lower.slice(1), name.charAt(0).toLowerCase() + name.slice(1), name.charAt(0).toUpperCase() + name.slice(1)]);
  const rows = [...variants].flatMap((variant) => store.declarationSnippets(variant, 'simple'));
  return rows.filter((row) => row.name?.toLowerCase() === lower).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0) || a.startLine - b.startLine || (a.id < b.id ? -1 : 1)).slice(0, 64);
}

function safeFullText(store: IndexStore, expression: string, limit: number): Array<{ rowid: number; bm25: number }> {
  try {
    return store.fullText(expression, limit);
  } catch {
    // A query the FTS parser rejects contributes nothing rather than failing the search.
    return [];
  }
}
