import { bm25Idf, type FileRow, type IndexStore, type SnippetRow } from '../store';
import { splitIdentifier } from '../tokens';
import { isAscii, wordsIn } from '../words';
import { acronymsOf, codeTermDiscount, codeTermsFor } from './codeTerms';
import { reportsDefect, searchWords, stemTerms, stemWord, stopwords, type TaskDescriptor } from './descriptor';
import type { LiveFile } from '../liveFile';

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

/**
 * An exact phrase that is the whole literal of the request (the typed message, a quoted phrase of
 * two or more words, an error's whole run) ranks here, above an exact simple symbol: "Event loop is
 * closed" is answered by the line that raises it, not by declarations named `loop` or `closed`.
 */
export const wholePhraseTier = 175;

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

function unquote(term: string): string {
  return term.replace(/^"(.*)"$/, '$1').replace(/""/g, '"');
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
/** A plain word of a multi-word request counts as a declaration only when at most this many declare it. */
const maxRareDeclarations = 3;
/** Words a pasted text is searched for: its rarest in this index (of up to this many candidates). */
const maxLongWords = 256;

/**
 * The request's words for a pasted text, rarest in this index first (as BM25 would weigh them),
 * at most 32; words no chunk holds are dropped. Common words' counts are stored; the others are
 * counted by one query.
 */
export function rarestWords(store: IndexStore, words: string[]): string[] {
  const counts = store.search.commonTermCounts(words);
  const total = (perColumn: number[] | undefined) => (perColumn ?? []).reduce((sum, documents) => Math.max(sum, documents), 0);
  // Counts read since the index last changed are kept with the request statistics (`termStatistics` reads them next).
  const cache = store.search.statisticsCache();
  for (const word of words) {
    const cached = counts.has(word) ? undefined : cache.terms.get(ftsQuote(word));
    if (cached) counts.set(word, cached);
  }
  const uncounted = words.filter((word) => !counts.has(word));
  if (uncounted.length > 0) {
    try {
      const found = store.search.termDocumentCounts(uncounted.map(ftsQuote));
      uncounted.forEach((word, index) => {
        counts.set(word, found[index]);
        cache.terms.set(ftsQuote(word), found[index]);
      });
    } catch {
      // A query FTS4 rejects counts nothing: those words keep their order at the end.
    }
  }
  const order = new Map(words.map((word, index) => [word, index]));
  return words
    .filter((word) => !counts.has(word) || total(counts.get(word)) > 0)
    .sort(
      (a, b) =>
        (total(counts.get(a)) || Infinity) - (total(counts.get(b)) || Infinity) || (order.get(a) as number) - (order.get(b) as number),
    )
    .slice(0, 32);
}

/** A literal that, found, answers the request as a whole: the typed message, a quoted phrase of two or more words, an error's whole run. */
function wholeLiteral(phrase: string): boolean {
  return wordsIn(phrase).filter((word) => !stopwords.has(word.toLowerCase())).length >= 2;
}

/** One request word and the full-text terms that find it (the word, plus stem terms for prose words). */
export interface WordTerms {
  word: string;
  terms: string[];
  /** Terms among `terms` that are code terms for the word (`codeTermsFor`), weighed below it. */
  related?: string[];
  /** Terms among `related` that are acronyms of a run of the request's words (`acronymsOf`): each stands for the whole run. */
  acronyms?: string[];
}

/**
 * Terms per word: prose words also get the words of the same stem (`parsed` → `parse`, `parser`);
 * identifiers and literals stay exact. With `codeTerms` (a question's words), a prose word also
 * gets the code terms it stands for (`codeTermsFor`) and the acronyms of the runs of words it is
 * part of (`acronyms`, from `acronymsOf`), listed in `related`.
 */
export function fullTextTerms(
  words: string[],
  prose: ReadonlySet<string> = new Set(),
  codeTerms = false,
  acronyms: ReadonlyMap<string, string[]> = new Map(),
): WordTerms[] {
  return words.map((word) => {
    const terms = [ftsQuote(word), ...(prose.has(word) ? stemTerms(word).map(ftsQuote) : [])];
    const related =
      codeTerms && prose.has(word)
        ? [...new Set([...codeTermsFor(word), ...(acronyms.get(word) ?? [])])].filter((term) => !words.includes(term))
        : [];
    if (related.length === 0) return { word, terms };
    const quoted = related.map(ftsQuote);
    const initials = (acronyms.get(word) ?? []).filter((term) => related.includes(term)).map(ftsQuote);
    const group: WordTerms = { word, terms: [...new Set([...terms, ...quoted])], related: quoted };
    return initials.length > 0 ? { ...group, acronyms: initials } : group;
  });
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
      row = this.store.catalog.file(path) ?? null;
      this.cache.set(path, row);
    }
    return row ?? undefined;
  }

  has(path: string): boolean {
    return this.get(path) !== undefined;
  }

  /** Reads the rows of `paths` not read yet in a few queries (see `FileCatalog.prefetch`) before they are asked for one by one. */
  prefetch(paths: Iterable<string>): void {
    this.store.catalog.prefetch([...paths].filter((path) => !this.cache.has(path)));
  }

  /** Paths ending in `/tail` (at most 32, sorted). */
  endingWith(tail: string): string[] {
    return this.store.catalog.pathsEndingWith(tail);
  }

  /** Paths whose last segments are `base` with any extension (at most 64, sorted). */
  modulePaths(base: string): string[] {
    return this.store.catalog.pathsContainingModule(base);
  }
}

/** Project files a requested path may name: exact, an outer path ending in a project path, or a basename. */
export function resolvePath(requested: string, files: FileIndex): { exact: string[]; near: string[] } {
  if (files.has(requested)) return { exact: [requested], near: [] };
  const segments = requested
    .replace(/^[A-Za-z]:\//, '')
    .split('/')
    .filter(Boolean);
  // `/usr/lib/python3.11/json/decoder.py`, `C:/work/app/src/a.ts`: the longest project path it ends with.
  for (let start = 1; start < segments.length; start++) {
    const suffix = segments.slice(start).join('/');
    if (files.has(suffix)) return { exact: [suffix], near: [] };
  }
  if (segments.length === 0) return { exact: [], near: [] };
  const whole = files.endingWith(segments.join('/'));
  if (whole.length > 0 || segments.length < 3) return { exact: [], near: whole };
  // `/opt/venv/.../site-packages/orders/ledger.py` for the project's `src/orders/ledger.py`: the
  // longest tail of two or more segments some project path ends with. A lone basename of an
  // absolute path is too weak (every runtime's frames name files the project does not hold).
  for (let start = 1; start <= segments.length - 2; start++) {
    const near = files.endingWith(segments.slice(start).join('/'));
    if (near.length > 0) return { exact: [], near };
  }
  return { exact: [], near: [] };
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
  return [...holding].sort(
    (a, b) =>
      Number(b.name !== null && b.name === symbol) - Number(a.name !== null && a.name === symbol) ||
      Number(b.symbolId !== null) - Number(a.symbolId !== null) ||
      span(a) - span(b) ||
      a.startLine - b.startLine,
  )[0];
}

/**
 * The request's full-text relevance: bm25 of the best matching chunks and of any chunk the exact
 * lookups found, relative to the best hit. It is computed by one query (see `run`).
 */
class RequestRelevance {
  hits: Array<{ rowid: number; bm25: number }> = [];
  statistics: TermStatistics | undefined;
  private scores = new Map<number, number>();
  private best = 0;

  constructor(
    private readonly store: IndexStore,
    private readonly wordTerms: WordTerms[],
    /** bm25's `b` for this request (`defaultLengthNormalization` when undefined). */
    private readonly lengthNormalization?: number,
  ) {}

  /**
   * Scores the chunks worth ranking (`conjunctiveFilter`), the `include`d ones among them too,
   * and keeps the best `poolSize` as hits. With fewer than `minimumHits` from the filter, every
   * match is scored. An included chunk outside the filter (one common word of several) scores 0.
   */
  run(poolSize: number, include: number[] = []): void {
    if (this.wordTerms.length === 0) return;
    const statistics = termStatistics(this.store, this.wordTerms);
    this.statistics = statistics;
    const selected = selectiveTerms(statistics);
    const filter = conjunctiveFilter(selected, statistics);
    const query = (terms: FilterExpression | SelectedTerm[]) => ({
      ...rankedQuery(terms, statistics),
      lengthNormalization: this.lengthNormalization,
    });
    let ranked = filter ? safeRank(this.store, query(filter), poolSize, include) : undefined;
    if (!ranked || ranked.hits.length < minimumHits) ranked = safeRank(this.store, query(selected), poolSize, include);
    for (const [rowid, score] of ranked.included) this.scores.set(rowid, score);
    for (const hit of ranked.hits) this.scores.set(hit.rowid, hit.bm25);
    this.hits = ranked.hits;
    this.best = this.hits[0]?.bm25 ?? 0;
  }

  /** bm25 relative to the best hit, in 0..1 (0 when the chunk does not match). */
  relative(rowid: number): number {
    const score = this.scores.get(rowid) ?? 0;
    return this.best > 0 ? Math.min(1, score / this.best) : 0;
  }

  matches(rowid: number): boolean {
    return (this.scores.get(rowid) ?? 0) > 0;
  }
}

/** The request's full-text words (a pasted text's rarest ones) and their terms, as `collectCandidates` searches them. */
export function requestWordTerms(store: IndexStore, descriptor: TaskDescriptor): WordTerms[] {
  const words = descriptor.long ? rarestWords(store, searchWords(descriptor, maxLongWords)) : searchWords(descriptor);
  return fullTextTerms(words, new Set(descriptor.keywords));
}

/**
 * bm25's `b` for a question (0.75 otherwise): a question asks how something behaves, and the
 * function that does it is longer than the types and helpers that share its words. Measured on the
 * tune queries: 0.75 → 0.5 raised CPython natural recall@1 0.39 → 0.50 with Hono's unchanged; 0.3
 * lowered Hono's recall@8 (issue 14).
 */
const questionLengthNormalization = 0.5;

/** Below this many filtered hits, the filter is dropped and every matching chunk is scored. */
const minimumHits = 8;

/**
 * Collects candidates from exact lookups first, then phrases, symbol text and full text. Each
 * snippet keeps only its strongest reason; within a tier the request's full-text relevance
 * (bm25 relative to the best hit) adds up to `refinementSpan`.
 */
export async function collectCandidates(
  store: IndexStore,
  descriptor: TaskDescriptor,
  poolSize: number,
  files: FileIndex = new FileIndex(store),
  live?: LiveReader,
): Promise<Candidate[]> {
  const words = descriptor.long ? rarestWords(store, searchWords(descriptor, maxLongWords)) : searchWords(descriptor);
  const prose = new Set(descriptor.keywords);
  // A question is answered by a whole function, which bm25's usual length discount ranks below a short type or a one-line helper.
  const lengthNormalization = descriptor.natural && !descriptor.long ? questionLengthNormalization : undefined;
  const questionTerms = descriptor.natural && !descriptor.long;
  const acronyms = questionTerms ? acronymsOf(descriptor.text, words) : undefined;
  const relevance = new RequestRelevance(store, fullTextTerms(words, prose, questionTerms, acronyms), lengthNormalization);
  // Full text costs the most, so a pure lookup (paths, symbols, phrases, errors, with no prose
  // words) runs it only when the exact lookups found nothing. A request with prose words runs it
  // once, after the lookups, scoring the chunks they found too: that score orders them within
  // their tier.
  const proseFirst = descriptor.keywords.length > 0;

  // ---- lookups (no scoring yet) ----
  const qualified: Array<{ name: string; rows: SnippetRow[] }> = [];
  for (const name of descriptor.qualifiedSymbols) {
    // An outer qualifier the index does not know (`urllib.request.Request.get_method`) is dropped.
    const parts = name.split('.');
    for (let start = 0; start <= parts.length - 2; start++) {
      const rows = store.chunks.declarationSnippets(parts.slice(start).join('.'), 'qualified');
      if (rows.length === 0) continue;
      qualified.push({ name, rows });
      break;
    }
  }
  const pathLookups: Array<{ path: string; reason: CandidateReason; requested: string; rows: SnippetRow[] }> = [];
  const lookUpPath = (path: string, reason: CandidateReason, requested: string) => {
    const rows = store.chunks.currentSnippets(path);
    if (rows.length > 0) pathLookups.push({ path, reason, requested, rows });
  };
  for (const requested of descriptor.paths) {
    const { exact, near } = resolvePath(requested, files);
    for (const path of exact) lookUpPath(path, 'exact-path', requested);
    for (const path of near) lookUpPath(path, 'exact-basename', requested);
  }
  for (const name of descriptor.modules) for (const path of resolveModule(name, files)) lookUpPath(path, 'exact-basename', name);
  const symbols: Array<{ name: string; rows: SnippetRow[]; reason: CandidateReason }> = [];
  // `BaseCookie.load` found as such: other declarations named `load` are alternatives, weak evidence
  // that the relevance cut limits (the simple-name lookup stands in for a qualifier the index does
  // not know, `response.begin`, where it stays exact).
  const answeredByQualified = new Set(qualified.map(({ name }) => name.split('.').pop() as string));
  for (const name of descriptor.symbols) {
    const exact = store.chunks.declarationSnippets(name, 'simple');
    if (exact.length > 0) symbols.push({ name, rows: exact, reason: answeredByQualified.has(name) ? 'symbol-text' : 'exact-symbol' });
    else if (name.length >= 3) symbols.push({ name, rows: declarationsIgnoringCase(store, name), reason: 'declared-fallback' });
  }
  // A plain word ("loop", "closed", "completion") is a declaration only where few declare it, and
  // then it is evidence like a name the full text matched (symbol text), not literal evidence: it
  // neither outranks a phrase nor makes the relevance cut drop the full-text candidates.
  for (const name of descriptor.proseSymbols) {
    const rows = firstPartPerSymbol(declarationsIgnoringCase(store, name));
    if (rows.length > 0 && rows.length <= maxRareDeclarations) symbols.push({ name, rows, reason: 'symbol-text' });
  }
  // Literal phrases: quoted text, then error messages and their literal runs (longest runs that match).
  let phraseQueries = 0;
  const phraseHits = async (phrase: string): Promise<SnippetRow[]> => {
    if (phraseQueries >= maxPhraseQueries) return [];
    phraseQueries++;
    return phraseRows(store, phrase, poolSize, live);
  };
  const phrases: Array<{ phrase: string; rows: SnippetRow[]; weight: number; whole?: boolean }> = [];
  if (descriptor.messagePhrase) {
    const message = descriptor.messagePhrase;
    const literal = await phraseHits(message);
    // Not literally there: the source may hold it with placeholders where the request has values.
    // Of a two-word message both words must match literally, the one pair `placeholderRows` would
    // probe is the phrase just looked up, and its query would cost as much again to find nothing.
    const placeholders = literal.length === 0 && live !== undefined && phraseTokens(message).length > 2;
    const rows = placeholders ? await placeholderRows(store, message, live) : literal;
    phrases.push({ phrase: message, rows, weight: 1, whole: true });
  }
  for (const phrase of descriptor.phrases) phrases.push({ phrase, rows: await phraseHits(phrase), weight: 1, whole: wholeLiteral(phrase) });
  for (const fragment of descriptor.errorFragments) {
    const fragmentWords = fragment.split(/\s+/);
    const whole = await phraseHits(fragment);
    if (whole.length > 0) {
      phrases.push({ phrase: fragment, rows: whole, weight: 1, whole: wholeLiteral(fragment) });
      continue;
    }
    // Wrapper words ("urlopen error unknown url type") or a cut value may break the run: try shorter
    // runs, longest first (at least three words of a longer fragment); longer runs weigh more.
    const shortest = fragmentWords.length >= 4 ? 3 : 2;
    for (let length = fragmentWords.length - 1; length >= shortest; length--) {
      for (let start = 0; start + length <= fragmentWords.length; start++) {
        const run = fragmentWords.slice(start, start + length).join(' ');
        if (run.length >= 8) phrases.push({ phrase: run, rows: await phraseHits(run), weight: length / fragmentWords.length });
      }
    }
  }
  // Error types are names worth showing, but weaker than where the message is raised.
  const errorTypes = descriptor.errorTypes.map((type) => ({
    type,
    rows: firstPartPerSymbol(store.chunks.declarationSnippets(type, 'simple')).slice(0, 4),
  }));

  if (proseFirst) {
    const found = [...qualified, ...pathLookups, ...symbols, ...phrases, ...errorTypes].flatMap((lookup) =>
      lookup.rows.map((row) => row.rowid),
    );
    relevance.run(poolSize, found);
  }
  const refine = (row: SnippetRow) => refinementSpan * relevance.relative(row.rowid);

  // ---- candidates ----
  const byId = new Map<string, Candidate>();
  const add = (snippet: SnippetRow, reason: CandidateReason, matched: string, base: number, literal?: string) => {
    const existing = byId.get(snippet.id);
    if (!existing || existing.base < base)
      byId.set(snippet.id, { snippet, reason, base: Math.round(base * 1000) / 1000, matched, literal });
  };
  const addDeclarations = (rows: SnippetRow[], reason: CandidateReason, matched: string, tier = tierScores[reason]) => {
    const ranked = firstPartPerSymbol(rows)
      .sort((a, b) => refine(b) - refine(a) || a.rowid - b.rowid)
      .slice(0, maxPerName);
    for (const row of ranked) add(row, reason, matched, tier + refine(row));
  };

  for (const { name, rows } of qualified) addDeclarations(rows, 'exact-qualified-symbol', name);

  // Paths, with line hints (`a.py:12`, stack frames) choosing the chunk and the request's words ranking the rest.
  const pathWords = new Set(descriptor.paths.flatMap((path) => path.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []));
  const otherWords = words.some((word) => !pathWords.has(word));
  const requestedNames = new Set([...descriptor.symbols, ...descriptor.qualifiedSymbols]);
  for (const { path, reason, requested, rows } of pathLookups) {
    const hints = descriptor.lineHints.filter((hint) => hint.path === requested);
    if (hints.length > 0) {
      for (const hint of hints) {
        const row = chunkAtLine(rows, hint.line, hint.symbol);
        // The innermost frame of a stack trace ranks first.
        const frameBonus = hint.frame === undefined ? refinementSpan : refinementSpan * Math.max(0, 1 - hint.frame / 16);
        if (row) add(row, reason, `${path}:${hint.line}`, tierScores[reason] + frameBonus);
      }
      continue;
    }
    // `http/server.py send_error`: the file's declarations the request names come first.
    const named = firstPartPerSymbol(
      rows.filter(
        (row) =>
          (row.name !== null && requestedNames.has(row.name)) || (row.qualifiedName !== null && requestedNames.has(row.qualifiedName)),
      ),
    ).slice(0, 4);
    for (const row of named) add(row, reason, path, tierScores[reason] + refinementSpan);
    const matching = otherWords
      ? rows
          .filter((row) => relevance.matches(row.rowid) && !named.includes(row))
          .sort((a, b) => refine(b) - refine(a) || a.startLine - b.startLine)
          .slice(0, Math.max(0, 2 - named.length))
      : [];
    for (const row of matching) add(row, reason, path, tierScores[reason] + refine(row) * 0.9);
    if (named.length > 0) continue;
    // A bare path is answered by the file's head; with other words, its best matching chunk leads.
    for (const row of rows.slice(0, matching.length > 0 || !otherWords ? 1 : 2))
      add(row, reason, path, tierScores[reason] + (matching.length > 0 ? 0 : refine(row)));
  }

  // Exact simple symbols, then the case-insensitive fallback.
  for (const { name, rows, reason } of symbols) addDeclarations(rows, reason, name);

  for (const { phrase, rows, weight, whole } of phrases) {
    // The whole message or quoted phrase, found literally, is the answer: above any one-word symbol collision.
    const tier = whole ? wholePhraseTier : tierScores['exact-phrase'];
    for (const row of rows) {
      // A chunk holding a smaller chunk that also has the phrase (a class part around the method) yields to it.
      const container = rows.some(
        (other) =>
          other !== row &&
          other.path === row.path &&
          row.startLine <= other.startLine &&
          other.endLine <= row.endLine &&
          other.endLine - other.startLine < row.endLine - row.startLine,
      );
      const base = tier + weight * refinementSpan * 0.5 + refine(row) * 0.5 - (container ? refinementSpan * 0.5 : 0);
      add(row, 'exact-phrase', phrase, base, phrase);
    }
  }

  for (const { type, rows } of errorTypes)
    for (const row of rows) add(row, 'symbol-text', type, tierScores['symbol-text'] - 1 + refine(row) * 0.25);

  // Full text. A chunk's relevance blends its bm25 (relative to the best hit) with how many of the
  // request's concepts its declared name holds (its parent's name counts half, and for a question
  // its doc comment or docstring about two thirds, a class's half that); a chunk whose name holds any is
  // symbol text (up to 65), anything else full text (20..60).
  if (!proseFirst && ![...byId.values()].some((candidate) => candidate.base >= tierScores['exact-phrase'])) relevance.run(poolSize);
  if (relevance.hits.length > 0) {
    const weights = relevance.statistics?.weights ?? new Map<string, number>();
    const rows = store.chunks.snippetsByRowid(relevance.hits.map((hit) => hit.rowid));
    const demoteShapes = descriptor.natural && !descriptor.keywords.some((word) => shapeWords.test(word));
    // A defect report's answer is the place to change, which may be the class itself.
    const demoteContainers = demoteShapes && !reportsDefect(descriptor);
    const aliases = relevance.statistics?.aliases;
    const concepts = conceptList(weights, aliases);
    // A question's words are often those of the doc comment that says what the code does (see `describedShares`).
    const mostRelevant = [...rows].sort((a, b) => relevance.relative(b.rowid) - relevance.relative(a.rowid) || a.rowid - b.rowid);
    const descriptions =
      descriptor.natural && !descriptor.long && live ? await describedShares(mostRelevant, weights, live, aliases) : undefined;
    // One text for every full-text candidate's `matched`: a pasted text's pool joins its 32 words for each of 256 rows otherwise.
    const matchedWords = words.join(' ');
    const bestCode = Math.max(0, ...(descriptions?.code.values() ?? []));
    const question = descriptor.natural && !descriptor.long;
    for (const row of rows) {
      const coverage = nameCoverage(row, concepts);
      const shape = demoteShapes && row.kind !== null ? kindWeight(row.kind, demoteContainers) : 1;
      const described = (descriptions?.described.get(row.rowid) ?? 0) * (row.kind === 'class' ? classDescriptionWeight : descriptionWeight);
      const relative = relevance.relative(row.rowid);
      const inCode = descriptions?.code.get(row.rowid);
      // A declaration whose name holds none of the question's words has its text as its only evidence: the share its code
      // holds tells the code that does it from a doc comment or a stray line that mentions the words (see `codeShareWeight`).
      const codeShare = coverage.own === 0 ? codeShareWeight : namedCodeShareWeight;
      const evidence = inCode !== undefined && bestCode > 0 ? (1 - codeShare) * relative + codeShare * (inCode / bestCode) : relative;
      const blended = shape * (0.65 * evidence + 0.35 * Math.min(1, coverage.own + coverage.parent / 2 + described));
      if (coverage.own > 0) add(row, 'symbol-text', row.name as string, 20 + symbolTextCeiling(coverage.own, question) * blended);
      else add(row, 'full-text', matchedWords, 20 + 40 * blended);
    }
  }
  return [...byId.values()];
}

/**
 * The symbol-text tier's ceiling above full text's (20 + 45 × relevance against 20 + 40 ×) is for
 * a name that holds a real part of the request. For a question, a name holding one minor word of it
 * (`Tag` for "...found from its meta tag?", `stream` for "...written to the stream?") is no more
 * evidence than a body holding that word, so the extra five points grow with the name's share of
 * the question's concept weight, in full from `fullNameShare` on. Measured on the tune questions
 * (share 1/4; 1/2 to 1/8 the same but for one Hono question either way): jsoup natural
 * recall@1 0.29 → 0.38, recall@8 0.50 → 0.54; CPython's and Hono's recall@1 and @8 unchanged.
 */
const fullNameShare = 0.25;

export function symbolTextCeiling(nameShare: number, question: boolean): number {
  return question ? 40 + 5 * Math.min(1, nameShare / fullNameShare) : 45;
}

/**
 * How far a question's full-text candidate (its name holds none of the question's words) leans on
 * the share of the question's concepts its code holds (`codeText`, relative to the best such share
 * among the declarations read) instead of its bm25, which also counts its doc comment (scored on its
 * own, `descriptionWeight`) and rewards a short chunk that repeats one word. Only the declarations
 * whose text is read for their doc comment (`maxDescribed`) have it. Measured on the tune questions
 * with `fullNameShare`: Hono natural recall@8 0.60 → 0.68 (0.2: 0.64; 0.4: 0.68 with jsoup's
 * recall@1 0.38 → 0.33), CPython recall@1 0.56 → 0.61, jsoup's 0.38 kept. Given to every candidate,
 * names holding the words too, it cost recall@1 on all three sets; leaving comment lines in the
 * body out of the code as well gained one Hono question at @8 and lost one jsoup question at @1.
 */
const codeShareWeight = 0.3;

/**
 * The same share for a declaration whose name holds some of the question's words, smaller: the
 * name is evidence of its own, and the code share only tells apart declarations whose names and
 * bm25 are close (just's `Search.global_justfile_paths`, whose code lists the home and config
 * directories, over a README section about them). Measured on the tune questions
 * with the acronyms and `containerWeight` (0 before): 0.1 / 0.15 / 0.2 / 0.3 gave just recall@1
 * 0.43 → 0.48 at each; Hono recall@8 0.72 → 0.72 / 0.76 / 0.76 / 0.76; jsoup MRR 0.45 → 0.45 /
 * 0.45 / 0.44 / 0.45; CPython recall@1 0.61 but 0.56 at 0.3.
 */
const namedCodeShareWeight = 0.15;

/**
 * What a declaration's describing text (`describingText`) adds to its name coverage, per share of
 * the request's concepts it holds: a little more than a parent's name (half). Measured on the tune
 * questions: Hono natural recall@1 0.20 → 0.28 at 0.5 (with the code terms 0.32, 0.36 at 0.65;
 * 0.35 and 1.0 lose one each), CPython's unchanged at 0.50 but its recall@8 0.94 until a class's
 * docstring counted half (it describes the class, and a question asks what a function does:
 * `MozillaCookieJar` over `MozillaCookieJar.save`), then 0.56.
 */
const descriptionWeight = 0.65;
const classDescriptionWeight = descriptionWeight / 2;

/** Python's docstring opening: a string literal of triple quotes, maybe prefixed. */
const docstringStart = /^[rRuUbB]{0,2}(?:"""|''')/;
/** Lines a docstring may start after the declaration's first line (a long signature), and its longest read. */
const docstringReach = 8;
const maxDocLines = 40;

/**
 * The text that describes a declaration in prose: its doc comment (the comment lines the chunk
 * holds above the declaration, JSDoc, `///`, `#`) or its docstring (the string literal first in
 * a Python body), with its signature.
 */
export function describingText(row: Pick<SnippetRow, 'startLine' | 'endLine' | 'symbolStart' | 'signature'>, lines: string[]): string {
  const parts: string[] = [row.signature ?? ''];
  const start = row.symbolStart ?? row.startLine;
  // A later part of a long declaration holds neither its doc comment nor its docstring.
  if (start < row.startLine) return parts[0];
  if (start > row.startLine) parts.push(lines.slice(Math.max(row.startLine, start - maxDocLines) - 1, start - 1).join('\n'));
  // The docstring is the first statement after the signature, which ends at a line ending with `:`.
  const last = Math.min(row.endLine, start + docstringReach);
  let opened = start;
  while (opened <= last && !/:\s*(?:#.*)?$/.test(lines[opened - 1] ?? '')) opened++;
  let first = opened + 1;
  while (first <= row.endLine && (lines[first - 1] ?? '').trim() === '') first++;
  const text = first <= row.endLine ? (lines[first - 1] ?? '').trim() : '';
  if (!docstringStart.test(text)) return parts.join('\n');
  const quote = text.includes('"""') ? '"""' : "'''";
  const docstring = [text];
  const closedOnFirst = text.indexOf(quote) !== text.lastIndexOf(quote);
  for (let next = first + 1; !closedOnFirst && next <= Math.min(row.endLine, first + maxDocLines); next++) {
    const more = lines[next - 1] ?? '';
    docstring.push(more);
    if (more.includes(quote)) break;
  }
  parts.push(docstring.join('\n'));
  return parts.join('\n');
}

/** The stems of a text's words and of their identifier parts. */
function textStems(text: string): Set<string> {
  const stems = new Set<string>();
  // A declaration's code repeats its words: each distinct one is stemmed once, through the memoized part and name stems.
  for (const word of new Set(wordsIn(text))) {
    stems.add(partStem(word.toLowerCase()));
    for (const stem of nameStems(word)) stems.add(stem);
  }
  return stems;
}

/**
 * Declarations whose describing text is read, the most relevant first: each may be another file
 * to read, and one far down the full-text ranking does not reach the top with it.
 */
const maxDescribed = 32;

/**
 * For each of the first `maxDescribed` declarations among `rows`, the share of the request's concepts (idf-weighted) that its
 * describing text (`describingText`) holds: a field of its own, as a doc comment states what the
 * code does in the words a question uses, where the body's words are stray evidence; and the
 * share its code (`codeText`) holds, read from the same live text.
 */
async function describedShares(
  rows: SnippetRow[],
  weights: ReadonlyMap<string, number>,
  live: LiveReader,
  aliases: ReadonlyMap<string, string[]> = new Map(),
): Promise<{ described: Map<number, number>; code: Map<number, number> }> {
  const shares = new Map<number, number>();
  const code = new Map<number, number>();
  let total = 0;
  for (const weight of weights.values()) total += weight;
  if (total === 0) return { described: shares, code };
  const declarations = rows.filter((row) => row.symbolId !== null).slice(0, maxDescribed);
  const files = await Promise.all(
    [...new Set(declarations.map((row) => row.path))].map(async (path) => [path, await live.get(path)] as const),
  );
  const texts = new Map(files);
  for (const row of declarations) {
    const file = texts.get(row.path);
    if (!file?.ok || file.sha256 !== row.fileHash) continue;
    const stems = textStems(describingText(row, file.lines));
    const codeStems = textStems(codeText(row, file.lines));
    let held = 0;
    let inCode = 0;
    for (const [concept, weight] of weights) {
      const holds = (set: Set<string>) => set.has(concept) || (aliases.get(concept) ?? []).some((alias) => set.has(alias));
      if (holds(stems)) held += weight;
      if (holds(codeStems)) inCode += weight;
    }
    shares.set(row.rowid, held / total);
    code.set(row.rowid, inCode / total);
  }
  return { described: shares, code };
}

/**
 * A chunk's code: its lines from the declaration's first line to its end, without the doc comment
 * above it (a field of its own, `describingText`). A doc comment says what the code is for in a
 * question's words; what the declaration itself holds is the evidence that it does it. The later
 * part of a long declaration is all code.
 */
export function codeText(row: Pick<SnippetRow, 'startLine' | 'endLine' | 'symbolStart'>, lines: string[]): string {
  return lines.slice(Math.max(row.startLine, row.symbolStart ?? row.startLine) - 1, row.endLine).join('\n');
}

/**
 * Declarations that only describe a shape (a TypeScript interface or type alias): a question asks
 * how something behaves, and the code that does it is the answer; their short chunks otherwise
 * win bm25's length normalization over the function they describe (`RequestIdOptions` over
 * `requestId`). Unless the question is about types or options, their relevance is scaled down.
 */
const shapeKinds = new Set(['interface', 'type']);
const shapeWords = /^(?:types?|typed|typings?|interfaces?|options?|shapes?|schemas?|generics?)$/;
const shapeWeight = 0.85;

/**
 * Declarations that hold others (a class, struct, enum, trait, impl block, module): a question asks
 * how something behaves, and the method that does it is the answer, while the container's chunk
 * (its head, or a part of a long body) holds the same words spread over all its members
 * (`BaseHTTPRequestHandler` over its `parse_request`, `Dependency` over the resolver). Unless the
 * question is about types or options, their relevance is scaled down. Measured on the tune
 * questions with the acronyms (`acronymsOf`), weights 0.9 / 0.8 / 0.7 / 0.6: recall@1 unchanged on
 * all four sets; just recall@8 0.67 at 0.9, 0.71 from 0.8 on; MRR CPython 0.75 → 0.76 / 0.76 /
 * 0.77 / 0.78, just 0.50 → 0.50 / 0.51 / 0.52 / 0.52; tokens per found answer down (jsoup natural
 * 2,067 → 1,775 at 0.7, CPython 873 → 845).
 */
const containerKinds = new Set(['class', 'struct', 'enum', 'trait', 'impl', 'namespace', 'module']);
const containerWeight = 0.7;

/**
 * The weight of a question's full-text relevance for a declaration of `kind` (see `shapeWeight`,
 * `containerWeight`); `containers` is false for a sentence that reports a defect (`reportsDefect`),
 * whose answer is where to change it, a class as much as a method.
 */
function kindWeight(kind: string, containers: boolean): number {
  if (shapeKinds.has(kind)) return shapeWeight;
  return containers && containerKinds.has(kind) ? containerWeight : 1;
}

/** Reads a project file's live text (once per retrieval); see `LiveFiles`. */
export interface LiveReader {
  get(relativePath: string): Promise<LiveFile>;
  /** The lines as read now, without the hash (see `LiveFiles.lineText`); undefined: ask `get`. */
  lineText?(relativePath: string, startLine: number, endLine: number): string | undefined;
}

/** Words FTS4 indexes for a text: lower case, letters, digits and `_` (its unicode61 tokenizer, roughly). */
function phraseTokens(text: string): string[] {
  return wordsIn(text.toLowerCase());
}

/**
 * The words of `literal`, in order, anywhere in `text` — across line breaks, comment markers and
 * quotes, and with format placeholders in `text` standing for some of them (`matchesWithPlaceholders`).
 */
export function containsLiteral(text: string, literal: string): boolean {
  if (text.toLowerCase().includes(literal.toLowerCase())) return true;
  const words = (value: string) => ` ${phraseTokens(value).join(' ')} `;
  return words(text).includes(words(literal)) || (placeholderPresent.test(text) && matchesWithPlaceholders(text, literal));
}

/**
 * Chunks holding a phrase's probe are checked against the live text when there are at most this
 * many, in at most `phraseFileBound` files. A file read costs a few tenths of a millisecond
 * whatever the index's size; another probe costs by the length of its words' lists: a few
 * milliseconds at 5,000 files (80,000 chunks), tens at 50,000, and FTS4's own phrase query over a
 * hundred there. So the files checked grow with the index: one per 12,500 chunks, 8 to 64.
 */
const maxPhraseChunks = 64;
function phraseFileBound(store: IndexStore): number {
  return Math.min(64, Math.max(8, Math.round(store.search.documentCount() / 12_500)));
}

/**
 * Chunks that hold `phrase`. FTS4 answers a phrase query by reading the position lists of every
 * word in it, and the short common ones (`to`, `for`, `the`) have the longest lists. So the
 * chunks holding a smaller query are found first, and when they are few, each is checked against
 * its live text (which verification reads anyway) or its path. The smaller queries, in order:
 * the two rarest words when their lists are far shorter than the longest run's, the phrase's
 * longest run without stopwords (`compute legacy release` in `unable to compute legacy release
 * for release gateway`: adjacent words are far more selective than the same words anywhere),
 * that run with the next longest, then its three longest words, then all of them.
 * With too many chunks for every probe, or no live reader, FTS4 runs the phrase query itself.
 * A chunk whose file changed since indexing is kept: verification re-indexes it and asks again.
 */
async function phraseRows(store: IndexStore, phrase: string, poolSize: number, live: LiveReader | undefined): Promise<SnippetRow[]> {
  const words = phraseTokens(phrase);
  if (words.length === 0) return [];
  const exact = () => store.chunks.snippetsByRowid(safeFullText(store, ftsQuote(words.join(' ')), poolSize).map((hit) => hit.rowid));
  const content = [...new Set(words)].filter((word) => !stopwords.has(word)).sort((a, b) => b.length - a.length || (a < b ? -1 : 1));
  const runs = contentRuns(words);
  if (!live || words.length < 3 || content.length < 2 || (runs.length === 1 && runs[0].length === words.length)) return exact();
  // Chunks listing each word (common words only are counted; a rarer one lists fewer than 1,000).
  const counts = store.search.commonTermCounts(content);
  const listed = (word: string) => (counts.get(word) ?? []).reduce((sum, documents) => sum + documents, 0);
  const fileBound = phraseFileBound(store);
  let rows: SnippetRow[] = [];
  for (const probe of phraseProbes(runs, content, listed)) {
    let rowids: number[];
    try {
      rowids = store.search.matchingRowids(probe, maxPhraseChunks + 1);
    } catch {
      return exact();
    }
    // No chunk holds the probe (words the phrase holds, or a part of it): none holds the phrase.
    if (rowids.length === 0) return [];
    rows = rowids.length <= maxPhraseChunks ? store.chunks.snippetsByRowid(rowids) : [];
    if (rows.length > 0 && new Set(rows.map((row) => row.path)).size <= fileBound) break;
    rows = [];
  }
  if (rows.length === 0) return exact();
  const texts = await Promise.all(rows.map((row) => live.get(row.path)));
  return rows
    .filter((row, index) => {
      const file = texts[index];
      if (!file.ok || file.sha256 !== row.fileHash) return true;
      return (
        containsLiteral(file.lines.slice(row.startLine - 1, row.endLine).join('\n'), phrase) ||
        containsLiteral(row.path.replace(/[/._-]+/g, ' '), phrase)
      );
    })
    .slice(0, poolSize);
}

/** Format placeholders: printf (`%s`, `%-5d`, `%(name)s`), Python/Rust/C# braces (`{}`, `{0}`, `{name!r}`, `{:?}`), `${x}`, Go's `%v`. */
const placeholderPattern = new RegExp(
  [
    String.raw`%\([\w.]+\)[-#0 +]*\d*(?:\.\d+)?[a-zA-Z]`,
    String.raw`%[-#0 +]*\d*(?:\.\d+)?[sdrifxXeEgGcaovqTpbu]`,
    String.raw`\$?\{[\w.:!?\[\]<>^=+#-]*\}`,
  ].join('|'),
  'g',
);
const placeholderPresent = new RegExp(placeholderPattern.source);
const placeholderMarker = '\u0000';

const wordOrMarker = new RegExp(`[\\p{L}\\p{N}_]+|${placeholderMarker}`, 'gu');
/** `wordOrMarker` on ASCII text (see `wordsIn`). */
const asciiWordOrMarker = new RegExp(`[a-z0-9_]+|${placeholderMarker}`, 'g');

/** Words of a source text with each format placeholder as one marker word. */
function wordsWithPlaceholders(text: string): string[] {
  const marked = text.replace(placeholderPattern, ` ${placeholderMarker} `).toLowerCase();
  return marked.match(isAscii(marked) ? asciiWordOrMarker : wordOrMarker) ?? [];
}

/**
 * Whether `message` occurs in `text` with some of its words standing where the source has a
 * placeholder (one to three words each: `gopher`, `example.org`); at least two of the message's
 * words must match literally.
 */
export function matchesWithPlaceholders(text: string, message: string): boolean {
  const wanted = phraseTokens(message);
  const source = wordsWithPlaceholders(text);
  if (wanted.length < 2) return false;
  const match = (word: number, at: number, literal: number): boolean => {
    if (word === wanted.length) return literal >= 2;
    if (at === source.length) return false;
    if (source[at] === placeholderMarker) {
      for (let taken = 1; taken <= 3 && word + taken <= wanted.length; taken++) if (match(word + taken, at + 1, literal)) return true;
      return false;
    }
    return source[at] === wanted[word] && match(word + 1, at + 1, literal + 1);
  };
  for (let start = 0; start < source.length; start++) {
    if ((source[start] === wanted[0] || source[start] === placeholderMarker) && match(0, start, 0)) return true;
  }
  return false;
}

/**
 * Chunks holding `message` with placeholders for some of its words. Candidates are the chunks
 * holding any two adjacent content words of it (one query); when that is not selective (more than
 * `maxPhraseChunks`), none are checked. Each is checked against its live text.
 */
async function placeholderRows(store: IndexStore, message: string, live: LiveReader): Promise<SnippetRow[]> {
  const words = phraseTokens(message);
  const pairs: string[] = [];
  for (let index = 0; index + 1 < words.length; index++) {
    if (!stopwords.has(words[index]) && !stopwords.has(words[index + 1])) pairs.push(ftsQuote(`${words[index]} ${words[index + 1]}`));
  }
  if (pairs.length === 0) return [];
  let rowids: number[];
  try {
    rowids = store.search.matchingRowids([...new Set(pairs)].join(' OR '), maxPhraseChunks + 1);
  } catch {
    return [];
  }
  if (rowids.length === 0 || rowids.length > maxPhraseChunks) return [];
  // Most chunks hold a pair but not the message: their lines are read without a hash and checked
  // first. A chunk that passes is checked again on the hashed text, so what is kept is the same.
  const rows = store.chunks.snippetsByRowid(rowids).filter((row) => {
    const text = live.lineText?.(row.path, row.startLine, row.endLine);
    return text === undefined || matchesWithPlaceholders(text, message);
  });
  const texts = await Promise.all(rows.map((row) => live.get(row.path)));
  return rows.filter((row, index) => {
    const file = texts[index];
    if (!file.ok || file.sha256 !== row.fileHash) return false;
    return matchesWithPlaceholders(file.lines.slice(row.startLine - 1, row.endLine).join('\n'), message);
  });
}

/** The runs of adjacent words without a stopword, longest first (then by letters), that have two words or more. */
export function contentRuns(words: string[]): string[][] {
  const runs: string[][] = [];
  let run: string[] = [];
  for (const word of [...words, '']) {
    if (word && !stopwords.has(word)) {
      run.push(word);
      continue;
    }
    if (run.length >= 2) runs.push(run);
    run = [];
  }
  const letters = (run: string[]) => run.reduce((sum, word) => sum + word.length, 0);
  return runs.sort((a, b) => b.length - a.length || letters(b) - letters(a));
}

/** The MATCH expressions `phraseRows` tries, most selective first (see there). */
export function phraseProbes(runs: string[][], content: string[], listed: (word: string) => number = () => 0): string[] {
  const quoted = runs.map((run) => ftsQuote(run.join(' ')));
  const probes: string[] = [];
  // The two rarest words, anywhere, first when their lists are under a quarter of the run's: a run
  // of common words (`compute throttled node` at 50,000 files) costs what all its lists cost.
  const rarest = [...content].sort((a, b) => listed(a) - listed(b) || b.length - a.length || (a < b ? -1 : 1)).slice(0, 2);
  const cost = (words: string[]) => words.reduce((sum, word) => sum + listed(word), 0);
  if (rarest.length === 2 && runs.length > 0 && cost(rarest) * 4 < cost(runs[0])) probes.push(rarest.map(ftsQuote).join(' '));
  if (quoted.length > 0) probes.push(quoted[0]);
  if (quoted.length > 1) probes.push(`${quoted[0]} ${quoted[1]}`);
  if (content.length > 3) probes.push(content.slice(0, 3).map(ftsQuote).join(' '));
  probes.push(content.map(ftsQuote).join(' '));
  return probes;
}

/** The stems of names already split, by name: a request scores hundreds of rows, and declarations share names. */
const stemsByName = new Map<string, ReadonlySet<string>>();
const maxStemmedNames = 16_384;
/**
 * Stems of identifier parts, by part: a pasted text's pool of 256 rows holds hundreds of names
 * not seen before, but their parts (`get`, `handler`, `binding`) repeat across the project.
 */
const stemsByPart = new Map<string, string>();
const maxStemmedParts = 32_768;

function partStem(part: string): string {
  let stem = stemsByPart.get(part);
  if (stem === undefined) {
    if (stemsByPart.size >= maxStemmedParts) stemsByPart.clear();
    stem = stemWord(part);
    stemsByPart.set(part, stem);
  }
  return stem;
}

/** The stems of an identifier's parts (`parseHttpHeader` → parse, http, header), memoized. */
function nameStems(name: string): ReadonlySet<string> {
  let stems = stemsByName.get(name);
  if (!stems) {
    if (stemsByName.size >= maxStemmedNames) stemsByName.clear();
    stems = new Set(splitIdentifier(name).map(partStem));
    stemsByName.set(name, stems);
  }
  return stems;
}

/** A request's concepts as `nameCoverage` checks them: each one's weight and the stems that hold it (itself, then its aliases). */
export interface ConceptList {
  total: number;
  concepts: Array<{ weight: number; stems: string[] }>;
}

/** The concepts of `weights` (and their `aliases`) in their order, made once per request rather than once per row. */
export function conceptList(concepts: ReadonlyMap<string, number>, aliases: ReadonlyMap<string, string[]> = new Map()): ConceptList {
  const list: ConceptList = { total: 0, concepts: [] };
  for (const [concept, weight] of concepts) {
    list.total += weight;
    list.concepts.push({ weight, stems: [concept, ...(aliases.get(concept) ?? [])] });
  }
  return list;
}

/** Shares of the request's concepts (stems with idf weights) held by a chunk's declared name and by its parent's name. */
export function nameCoverage(
  row: Pick<SnippetRow, 'name' | 'qualifiedName'>,
  concepts: ReadonlyMap<string, number> | ConceptList,
  aliases: ReadonlyMap<string, string[]> = new Map(),
): { own: number; parent: number } {
  const list = concepts instanceof Map ? conceptList(concepts, aliases) : (concepts as ConceptList);
  if (!row.name || list.concepts.length === 0) return { own: 0, parent: 0 };
  const own = nameStems(row.name);
  const qualifier = row.qualifiedName && row.qualifiedName.length > row.name.length ? row.qualifiedName.slice(0, -row.name.length - 1) : '';
  const parent = nameStems(qualifier);
  let ownWeight = 0;
  let parentWeight = 0;
  // Plain loops: a pasted text's pool calls this for 256 rows of up to 16 concepts, and two closures per concept were a
  // tenth of the request's allocations.
  for (const { weight, stems } of list.concepts) {
    if (holdsAny(own, stems)) ownWeight += weight;
    else if (holdsAny(parent, stems)) parentWeight += weight;
  }
  return list.total > 0 ? { own: ownWeight / list.total, parent: parentWeight / list.total } : { own: 0, parent: 0 };
}

function holdsAny(set: ReadonlySet<string>, stems: readonly string[]): boolean {
  for (const stem of stems) if (set.has(stem)) return true;
  return false;
}

const maxWeightedConcepts = 16;

/** Document counts of the request's full-text terms, and an idf weight per concept (word stem). */
export interface TermStatistics {
  documents: number;
  /** Documents holding each term, per full-text column (`searchColumns` order). */
  termDocuments: Map<string, number[]>;
  weights: Map<string, number>;
  terms: string[];
  /** For each term, the request words (indices into the word list) it stands for. */
  termWords: Map<string, number[]>;
  /** Code terms of a question's words (`WordTerms.related`): their idf is discounted. */
  related?: ReadonlySet<string>;
  /** Acronyms among `related` (`WordTerms.acronyms`). */
  acronyms?: ReadonlySet<string>;
  /** Per concept, the stems of its code terms: a name holding one holds the concept. */
  aliases?: ReadonlyMap<string, string[]>;
}

/**
 * Document counts of the request's terms, per column: common words' from `CommonTermCounts`, the
 * others from one `matchinfo('ncx')` query (`IndexStore.termDocumentCounts`) for the terms not
 * counted since the index last changed. The idf weights let a rare word the request shares with
 * a declaration's name count more than a common one.
 */
export function termStatistics(store: IndexStore, wordTerms: WordTerms[]): TermStatistics {
  const groups = wordTerms.slice(0, maxWeightedConcepts);
  const cache = store.search.statisticsCache();
  let missing = [...new Set(groups.flatMap((group) => group.terms))].filter((term) => !cache.terms.has(term));
  // Common words are counted already (see CommonTermCounts); only the others walk their lists.
  if (missing.length > 0) {
    const stored = store.search.commonTermCounts(missing.map(unquote));
    for (const term of missing) {
      const perColumn = stored.get(unquote(term));
      if (perColumn) cache.terms.set(term, perColumn);
    }
    missing = missing.filter((term) => !cache.terms.has(term));
  }
  if (missing.length > 0) {
    try {
      const counts = store.search.termDocumentCounts(missing);
      missing.forEach((term, index) => cache.terms.set(term, counts[index]));
    } catch {
      // A query FTS4 rejects counts nothing (the terms stay uncounted, so they weigh as unknown).
    }
  }
  cache.documents ??= store.search.documentCount();
  const documents = cache.documents;
  const termDocuments = new Map<string, number[]>();
  const related = new Set<string>();
  const acronyms = new Set<string>();
  const frequencies = groups.map((group) => {
    let most = 0;
    for (const term of group.terms) {
      const perColumn = cache.terms.get(term);
      if (!perColumn) continue;
      termDocuments.set(term, perColumn);
      // A code term is evidence of the word, not a measure of how common the word is.
      if (group.related?.includes(term)) {
        related.add(term);
        if (group.acronyms?.includes(term)) acronyms.add(term);
      } else most = Math.max(most, ...perColumn);
    }
    return most;
  });
  const weights = new Map<string, number>();
  const aliases = new Map<string, string[]>();
  groups.forEach((group, index) => {
    const concept = stemWord(group.word);
    const weight = documents > 0 ? Math.log(1 + (documents + 1) / (frequencies[index] + 1)) : 1;
    weights.set(concept, Math.max(weights.get(concept) ?? 0, weight));
    if (group.related) aliases.set(concept, [...(aliases.get(concept) ?? []), ...group.related.map((term) => stemWord(unquote(term)))]);
  });
  const termWords = new Map<string, number[]>();
  wordTerms.forEach((group, index) => {
    for (const term of group.terms) termWords.set(term, [...(termWords.get(term) ?? []), index]);
  });
  return { documents, termDocuments, weights, terms: [...termWords.keys()], termWords, related, acronyms, aliases };
}

/** The full-text columns, in the order of the `search_index` table. */
export const searchColumns = ['body', 'path', 'idents'];

/** A full-text term as the MATCH expression uses it: the whole term, or the term in one column. */
export interface SelectedTerm {
  expression: string;
  term: string;
  column?: number;
}

/**
 * The terms worth scoring with bm25. A term in more than 5% of the chunks (and more than 2,000)
 * costs the most — every chunk it matches is scored — and adds little, its idf being small. So
 * it is kept only in the columns where it is still selective (`path:warehouse` when few paths
 * but many bodies hold it), and dropped where it is common everywhere; it still counts for name
 * coverage. Terms no chunk holds are left out. When nothing selective is left, the three rarest
 * terms stay. And past `maxListedChunks`, column-bound terms go, longest lists first.
 */
export function selectiveTerms(statistics: TermStatistics): SelectedTerm[] {
  const whole = (term: string): SelectedTerm => ({ expression: term, term });
  if (statistics.documents === 0) return statistics.terms.map(whole);
  const cap = Math.max(2000, statistics.documents * 0.05);
  const kept: SelectedTerm[] = [];
  for (const term of statistics.terms) {
    const perColumn = statistics.termDocuments.get(term) ?? [];
    // A word no chunk holds (most stem variants) would only cost a lookup.
    if (perColumn.length > 0 && perColumn.every((documents) => documents === 0)) continue;
    if (perColumn.every((documents) => documents <= cap)) {
      kept.push(whole(term));
      continue;
    }
    perColumn.forEach((documents, column) => {
      // FTS4's standard syntax takes `column:word` or `column:prefix*`, not a quoted term; request words are plain tokens.
      const bare = term.replace(/^"(.*)"$/, '$1');
      if (documents > 0 && documents <= cap && searchColumns[column] && /^[\p{L}\p{N}_]+\*?$/u.test(bare))
        kept.push({ expression: `${searchColumns[column]}:${bare}`, term, column });
    });
  }
  if (kept.length > 0) return withinReadBudget(kept, statistics);
  const total = (term: string) => termDocumentsIn(statistics, whole(term));
  return statistics.terms
    .filter((term) => total(term) > 0)
    .sort((a, b) => total(a) - total(b) || (a < b ? -1 : 1))
    .slice(0, 3)
    .map(whole);
}

/**
 * FTS4 reads a term's whole list whichever column the expression keeps, so `path:client` costs
 * what `client` costs: 20-30 ms for a word in half of 800,000 chunks. Past this many listed
 * chunks in all, the column-bound terms with the longest lists are left out (they weigh least).
 */
const maxListedChunks = 150_000;

/** `kept` without its costliest column-bound terms while all the lists together exceed `maxListedChunks`. */
function withinReadBudget(kept: SelectedTerm[], statistics: TermStatistics): SelectedTerm[] {
  const listed = (term: string) => (statistics.termDocuments.get(term) ?? []).reduce((sum, documents) => sum + documents, 0);
  const terms = [...new Set(kept.map((selected) => selected.term))];
  let total = terms.reduce((sum, term) => sum + listed(term), 0);
  const columnBound = terms
    .filter((term) => kept.every((selected) => selected.term !== term || selected.column !== undefined))
    .sort((a, b) => listed(b) - listed(a) || (a < b ? -1 : 1));
  const dropped = new Set<string>();
  for (const term of columnBound) {
    if (total <= maxListedChunks || dropped.size + 1 >= terms.length) break;
    dropped.add(term);
    total -= listed(term);
  }
  return dropped.size > 0 ? kept.filter((selected) => !dropped.has(selected.term)) : kept;
}

/** Words found in at most this share of the chunks (or this many) are rare: each of their chunks is scored. */
const rareShare = 0.005;
const rareFloor = 300;
/** At most this many common words (the rarest) take part in the filter. */
const maxPairedWords = 4;

/**
 * Which matching chunks are worth scoring, as the MATCH expression that ranks them; undefined
 * means all. Scoring costs a docsize lookup per chunk, and a request of several common words
 * matches thousands. A chunk that holds only one common word of a multi-word request rarely
 * ranks near a chunk holding two, so only chunks with a rare word, or with the rarest common
 * word and another (of the rarest four), are scored. `RequestRelevance.run` scores everything
 * when that leaves too few.
 */
export function conjunctiveFilter(selected: SelectedTerm[], statistics: TermStatistics): FilterExpression | undefined {
  const groups = new Map<number, SelectedTerm[]>();
  for (const term of selected)
    for (const word of statistics.termWords.get(term.term) ?? []) groups.set(word, [...(groups.get(word) ?? []), term]);
  if (groups.size < 2 || statistics.documents === 0) return undefined;
  const estimate = (terms: SelectedTerm[]) => terms.reduce((sum, term) => sum + termDocumentsIn(statistics, term), 0);
  const cap = Math.max(rareFloor, statistics.documents * rareShare);
  const words = [...groups.entries()]
    .map(([word, terms]) => ({ word, terms, documents: estimate(terms) }))
    .sort((a, b) => a.documents - b.documents || a.word - b.word);
  const rare = words.filter((word) => word.documents <= cap);
  const common = words.filter((word) => word.documents > cap).slice(0, maxPairedWords);
  if (common.length === 0) return undefined;
  const group = (terms: SelectedTerm[]) => `(${terms.map((term) => term.expression).join(' OR ')})`;
  const parts = rare.map((word) => group(word.terms));
  const phrases = rare.flatMap((word) => word.terms);
  if (common.length >= 2) {
    // The rarest common word with any other: each word appears once, so FTS4 reads each list once.
    const others = common.slice(1).flatMap((word) => word.terms);
    parts.push(`(${group(common[0].terms)} AND ${group(others)})`);
    phrases.push(...common[0].terms, ...others);
  }
  if (parts.length === 0) return undefined;
  // matchinfo lists phrases in the order they appear in the expression text.
  return { expression: parts.join(' OR '), phrases };
}

/** A MATCH expression and its phrases in matchinfo order (a term may appear more than once). */
export interface FilterExpression {
  expression: string;
  phrases: SelectedTerm[];
}

/** Documents holding a selected term (in its column, or in the column where it is most frequent). */
function termDocumentsIn(statistics: TermStatistics, term: SelectedTerm): number {
  const perColumn = statistics.termDocuments.get(term.term) ?? [];
  return term.column !== undefined ? (perColumn[term.column] ?? 0) : Math.max(0, ...perColumn);
}

/**
 * The bm25 query for `rankFullText`: idf per phrase and column from the statistics; a repeated
 * term counts once, a column-bound term only in its column, and the phrases of one request word
 * (its inflections) form one group.
 */
export function rankedQuery(
  query: FilterExpression | SelectedTerm[],
  statistics: TermStatistics,
): { expression: string; idf: number[]; groups?: number[] } {
  const { expression, phrases } = Array.isArray(query)
    ? { expression: query.map((term) => term.expression).join(' OR '), phrases: query }
    : query;
  const columns = searchColumns.length;
  const seen = new Set<string>();
  const usable: boolean[] = [];
  const documentsOf: number[] = [];
  for (const phrase of phrases) {
    const first = !seen.has(phrase.expression);
    seen.add(phrase.expression);
    const perColumn = statistics.termDocuments.get(phrase.term);
    for (let column = 0; column < columns; column++) {
      usable.push(first && (phrase.column === undefined || phrase.column === column));
      // Without statistics (a term past the first sixteen words), a term counts as if one chunk in a hundred held it.
      documentsOf.push(perColumn ? (perColumn[column] ?? 0) : Math.ceil(statistics.documents / 100));
    }
  }
  // A request word and its inflections (`matched`: `match`, `matches`, `matching`) are one term to
  // bm25: their hits in a chunk are summed and saturated once (`bm25GroupedWithIdf`), so a chunk
  // holding three forms of one word does not outscore one holding three of the request's words.
  const groups = phrases.map((phrase, index) => statistics.termWords.get(phrase.term)?.[0] ?? statistics.termWords.size + index);
  const grouped = new Set(groups).size < new Set(phrases.map((phrase) => phrase.term)).size;
  // An acronym stands for its whole run of words (`bom` for `byte order mark`): its idf counts once per word of the run.
  const runWeight = (term: string) => (statistics.acronyms?.has(term) ? (statistics.termWords.get(term)?.length ?? 1) : 1);
  const discount = phrases.map((phrase) => (statistics.related?.has(phrase.term) ? codeTermDiscount * runWeight(phrase.term) : 1));
  const idf = documentsOf.map((documents, at) =>
    usable[at] && documents > 0 ? bm25Idf(statistics.documents, documents) * discount[Math.floor(at / columns)] : 0,
  );
  return grouped ? { expression, idf, groups } : { expression, idf };
}

/**
 * Declarations named `name` in another case. The usual spellings (as typed, lower, UPPER,
 * Capitalized, camelCase) are looked up through the name index instead of scanning every row.
 */
export function declarationsIgnoringCase(store: IndexStore, name: string): SnippetRow[] {
  const lower = name.toLowerCase();
  const variants = new Set([
    name,
    lower,
    name.toUpperCase(),
    lower.charAt(0).toUpperCase() + lower.slice(1),
    name.charAt(0).toLowerCase() + name.slice(1),
    name.charAt(0).toUpperCase() + name.slice(1),
  ]);
  const rows = store.chunks.declarationSnippetsNamed([...variants]);
  return rows
    .filter((row) => row.name?.toLowerCase() === lower)
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0) || a.startLine - b.startLine || (a.id < b.id ? -1 : 1))
    .slice(0, 64);
}

function safeRank(
  store: IndexStore,
  query: Parameters<IndexStore['search']['rankFullText']>[0],
  limit: number,
  include: number[],
): ReturnType<IndexStore['search']['rankFullText']> {
  try {
    return store.search.rankFullText(query, limit, include);
  } catch {
    return { hits: [], included: new Map() };
  }
}

function safeFullText(store: IndexStore, expression: string, limit: number): Array<{ rowid: number; bm25: number }> {
  try {
    return store.search.fullText(expression, limit);
  } catch {
    // A query the FTS parser rejects contributes nothing rather than failing the search.
    return [];
  }
}
