import type { IndexStore, SnippetRow } from '../store';
import { LiveFiles } from '../liveFile';
import { resyncOne, type SyncContext } from '../sync';
import { estimateTokens } from '../tokens';
import { wordsIn } from '../words';
import {
  collectCandidates,
  containsLiteral,
  exactTierFloor,
  FileIndex,
  requestWordTerms,
  tierScores,
  wholePhraseTier,
  type Candidate,
  type CandidateReason,
} from './candidates';
import { describeTask, readsAsQuestion, reportsDefect, searchWords, type TaskDescriptor } from './descriptor';
import { fuseRankings, fusionCeiling, vectorQueryText } from './hybrid';
import { vectorPool } from './vectors';
import { rankFiles, reportEvidenceCeiling, type RankedFile } from './fileRanking';
import { leadFromTopFile } from './questionLead';
import {
  auxiliaryOutsideSubject,
  fileNamedStopwords,
  pathInScope,
  sentenceInitialWords,
  subjectFileNames,
  subjectNamesFile,
  subjectScope,
} from './subjectScope';
import { scoreFiles } from './fileScore';
import { similarCommitFiles, type HistoryMatch } from '../history/similarCommits';
import { focusSpan, maxWholeSpanLines, weakerEvidenceShape } from './span';
import type { Manifest, ManifestEntry } from './manifest';

export interface RetrieveOptions {
  limit?: number;
  budgetTokens?: number;
  /** Paths the user attached (chat references); they count as exact paths. */
  attachedPaths?: string[];
  /** Hybrid ranking for this request; defaults to the project's `semantic` option. */
  semantic?: boolean;
  /** `files`: also rank whole files with their evidence (`Retrieval.files`); `snippets` (default): snippets only. */
  granularity?: 'snippets' | 'files';
}

/** A snippet whose file was read again and whose SHA-256 matched the index at return time. */
export interface VerifiedSnippet {
  id: string;
  path: string;
  startLine: number;
  endLine: number;
  text: string;
  sha256: string;
  score: number;
  /** `pinned`: a pin the user made, served ahead of every candidate (`curation/context.ts`). */
  reason: CandidateReason | 'pinned';
  matched: string;
  symbol: string | null;
  kind: string | null;
  signature: string | null;
  chunkKind: string;
  tokens: number;
  modified: boolean;
  gitHead: string | null;
  citation: string;
}

/** The fields of a result that `pk search --json` and the MCP `search` tool publish (SPEC §14). */
export function publishedResult(result: VerifiedSnippet) {
  const { path, startLine, endLine, score, symbol, reason, sha256, citation } = result;
  return { path, startLine, endLine, score, symbol, reason, sha256, citation };
}

/** What a caller may add to one retrieval: the learned ranker sees the scored candidates and returns them all, reordered or not. */
export interface RetrieveHooks {
  rerank?: <T extends Scored & { modified: boolean }>(candidates: T[]) => T[];
  /** `describeTask(query, options.attachedPaths)` when the caller built it already: a pasted text costs milliseconds to describe. */
  descriptor?: TaskDescriptor;
}

export interface Retrieval {
  descriptor: TaskDescriptor;
  results: VerifiedSnippet[];
  /** With `granularity: 'files'`: the ranked files (at most `limit`), each live-verified. */
  files?: RankedFile[];
  manifest: Manifest;
}

export function citationOf(snippet: { path: string; startLine: number; endLine: number; sha256: string }): string {
  return `${snippet.path}#L${snippet.startLine}-L${snippet.endLine}@${snippet.sha256}`;
}

export interface Scored extends Candidate {
  score: number;
}

/** Test code: a `test`/`tests`/`spec`/`__tests__` folder, or a test file name of the usual runners. */
const testPath = new RegExp(
  [
    String.raw`(?:^|/)(?:tests?|testing|spec|specs|__tests__|testdata)/`,
    String.raw`(?:^|/)test_[^/]*$`,
    String.raw`_test\.\w+$`,
    String.raw`[._-](?:test|spec)s?\.\w+$`,
    String.raw`(?:^|/)Test[A-Z][^/]*$`,
    String.raw`Tests?\.(?:java|cs|kt)$`,
  ].join('|'),
);
const testWords = /^(?:tests?|testing|tested|spec|specs|unittest|pytest|jest|mocha|vitest|fixture|fixtures|mock|mocks)$/;

/** Paths already classified: a request scores hundreds of candidates, most of them sharing files. */
const testPaths = new Map<string, boolean>();
const maxClassifiedPaths = 16_384;

export function isTestPath(path: string): boolean {
  let test = testPaths.get(path);
  if (test === undefined) {
    if (testPaths.size >= maxClassifiedPaths) testPaths.clear();
    test = testPath.test(path);
    testPaths.set(path, test);
  }
  return test;
}

/** The request is about tests when it says so or names a test file (within `text` when given: words of the descriptor it holds). */
function aboutTests(descriptor: TaskDescriptor, text?: string): boolean {
  const words = text === undefined ? undefined : wordsOf(text);
  const said = (word: string) => words === undefined || words.has(word);
  const within = (name: string) => text === undefined || text.includes(name);
  return (
    descriptor.keywords.some((word) => testWords.test(word) && said(word)) ||
    descriptor.paths.some((path) => isTestPath(path) && within(path)) ||
    descriptor.identifiers.some((word) => /^test_|^Test[A-Z]|Test$/.test(word) && within(word))
  );
}

/**
 * Whether a report's files should be ranked as about tests: only when its first line (the
 * subject, an issue's title) is. A fix's message often says it added a test ("Add a guard test",
 * "Tested with:"), and its answer is still the code it fixed. Localization, files mode, replayed
 * (see `reportEvidenceCeiling`): Acc@1 70.7 → 71.4 on tune, 59.8 → 60.8 on the older commits.
 */
function reportAboutTests(descriptor: TaskDescriptor): boolean {
  // A test file the text names (a frame of a failing test, a path) still makes it about tests.
  return descriptor.paths.some(isTestPath) || aboutTests(descriptor, subjectLine(descriptor));
}

/** The request's first line: a commit's subject, an issue's title. */
function subjectLine(descriptor: TaskDescriptor): string {
  return descriptor.text.trimStart().split('\n', 1)[0];
}

/** Lower-case file stems of the index (`rich/live.py` → `live`), per store and index revision. */
const stemsByStore = new WeakMap<IndexStore, { revision: number; stems: Set<string> }>();

function fileStems(store: IndexStore): Set<string> {
  const cached = stemsByStore.get(store);
  if (cached && cached.revision === store.revision) return cached.stems;
  const stems = new Set(
    store.catalog.pathsUnder('').map((path) =>
      path
        .slice(path.lastIndexOf('/') + 1)
        .split('.', 1)[0]
        .toLowerCase(),
    ),
  );
  stemsByStore.set(store, { revision: store.revision, stems });
  return stems;
}

/**
 * A report's descriptor with the stopwords of its subject that name an indexed file whole as
 * keywords (`fileNamedStopwords`). A question keeps its own: "where does the parser live?".
 */
function withFileNamedStopwords(context: SyncContext, descriptor: TaskDescriptor): TaskDescriptor {
  if (!descriptor.natural && !descriptor.long) return descriptor;
  const subject = subjectLine(descriptor);
  if (!descriptor.long && readsAsQuestion(subject)) return descriptor;
  const stems = fileStems(context.store);
  const namesFile = (word: string) => stems.has(word);
  const added = fileNamedStopwords(subject, descriptor.keywords, namesFile);
  return added.length === 0 ? descriptor : { ...descriptor, keywords: [...descriptor.keywords, ...added], fileNamedWords: added };
}

/** The lower-case words of a text, as the descriptor's keywords are spelled. */
function wordsOf(text: string): Set<string> {
  return new Set(wordsIn(text.toLowerCase()));
}

/** Below the code they test, within a tier (less than a tier gap): test code, unless the request is about tests. */
const testPenalty = 5;
/**
 * A question about behaviour is answered by the code that behaves, while tests and benchmarks
 * (which call that code with the same words) spread over the same full-text range: they drop further.
 */
const questionTestPenalty = 10;
const benchmarkPath = /(?:^|\/)(?:bench|benches|benchmarks?)\//;

/** Points test code loses for this request: none when the request is about tests. */
function testDemotion(descriptor: TaskDescriptor): number {
  if (aboutTests(descriptor)) return 0;
  return descriptor.natural ? questionTestPenalty : testPenalty;
}

/** Paths already classified as tests or benchmarks (`score` asks for every candidate, and candidates share files). */
const demotedPaths = new Map<string, boolean>();

function demotedPath(path: string): boolean {
  let demoted = demotedPaths.get(path);
  if (demoted === undefined) {
    if (demotedPaths.size >= maxClassifiedPaths) demotedPaths.clear();
    demoted = isTestPath(path) || benchmarkPath.test(path);
    demotedPaths.set(path, demoted);
  }
  return demoted;
}

function score(candidate: Candidate, modified: boolean, tracked: boolean, demotion: number): number {
  const cost = Math.min(8, candidate.snippet.tokens / 250);
  const path = candidate.snippet.path;
  const test = demotion > 0 && demotedPath(path) ? demotion : 0;
  return Math.round((candidate.base + (modified ? 10 : 0) + (tracked ? 3 : 0) - cost - test) * 100) / 100;
}

/** Score, modified state, path, line, id: a total order, so equal inputs give equal output. */
function compareScored(a: Scored & { modified: boolean }, b: Scored & { modified: boolean }): number {
  return (
    b.score - a.score ||
    Number(b.modified) - Number(a.modified) ||
    (a.snippet.path < b.snippet.path ? -1 : a.snippet.path > b.snippet.path ? 1 : 0) ||
    a.snippet.startLine - b.snippet.startLine ||
    (a.snippet.id < b.snippet.id ? -1 : a.snippet.id > b.snippet.id ? 1 : 0)
  );
}

function entryFor(candidate: Scored, included: boolean, reason: string, modified: boolean, gitCommit: string | null): ManifestEntry {
  const { snippet } = candidate;
  return {
    included,
    kind: snippet.kind ?? snippet.chunkKind,
    snippetId: snippet.id,
    path: snippet.path,
    fileHash: snippet.fileHash,
    startLine: snippet.startLine,
    endLine: snippet.endLine,
    score: candidate.score,
    tokens: snippet.tokens,
    reason,
    matchedBy: included ? undefined : candidate.reason,
    symbol: snippet.qualifiedName ?? undefined,
    modified,
    gitCommit,
  };
}

const maxRetries = 2;
/**
 * The smallest full-text pool of a pasted text's snippet answer: 16 per result at the default 8.
 * Every stage after the full-text query (reading the pool's rows, scoring them, the file order,
 * the manifest) scales with it; 256 cost a pasted text about a sixth more CPU on the bench, and
 * on the localization tune split at `limit: 8` (140 fix commits, their 8 pasted texts among them)
 * 128 ranks every answer file where 256 did. `granularity: 'files'` keeps 256.
 */
const longPool = 128;
/** Snippets one file contributes before its further ones yield to other files' (a file the request names by path excepted). */
export const maxSnippetsPerFile = 3;
/**
 * Points each snippet past `maxSnippetsPerFile` loses per extra snippet of its file: a within-tier
 * nudge (the tracked bonus is 3), so only a close rival from another file overtakes it, and a
 * file's tenth snippet has lost 21.
 */
const crowdingPenalty = 3;

/**
 * Re-ranks so one file cannot crowd out the rest: past its first `maxSnippetsPerFile`, each
 * further snippet of a file loses `crowdingPenalty` points per snippet beyond them. A file with
 * nothing comparable elsewhere keeps its snippets; a close candidate from another file now goes
 * first. Exact-path candidates (the file the request names) are never penalized or counted.
 */
export function spreadAcrossFiles<T extends Scored & { modified: boolean }>(candidates: T[]): T[] {
  const seen = new Map<string, number>();
  const spread = candidates.map((candidate) => {
    if (candidate.reason === 'exact-path') return candidate;
    const ahead = seen.get(candidate.snippet.path) ?? 0;
    seen.set(candidate.snippet.path, ahead + 1);
    const beyond = ahead + 1 - maxSnippetsPerFile;
    return beyond > 0 ? { ...candidate, score: Math.round((candidate.score - crowdingPenalty * beyond) * 100) / 100 } : candidate;
  });
  return spread.sort(compareScored);
}

/**
 * Finds, ranks and live-verifies snippets for a request. A file whose hash changed since
 * indexing is re-synced and the query rerun (bounded); a deleted or newly unusable file is
 * dropped from the index and reported in the manifest.
 */
export async function retrieve(
  context: SyncContext,
  query: string,
  options: RetrieveOptions = {},
  hooks: RetrieveHooks = {},
): Promise<Retrieval> {
  const limit = options.limit ?? context.options.results;
  const semantic = options.semantic ?? context.options.semantic;
  const budget = options.budgetTokens ?? context.options.budgetTokens;
  const descriptor = withFileNamedStopwords(context, hooks.descriptor ?? describeTask(query, options.attachedPaths));
  const demotion = testDemotion(descriptor);
  const filesWanted = options.granularity === 'files';
  const focusWords = searchWords(descriptor);
  const state = context.store.catalog.state();
  const revisionAtStart = context.store.revision;
  const revision = {
    root: state.root,
    branch: state.branch,
    head: state.head,
    dirty: state.dirty,
    changedPaths: state.changedPaths,
    indexedAt: state.indexedAt ? new Date(state.indexedAt).toISOString() : null,
  };
  const manifest: Manifest = {
    query,
    createdAt: new Date(context.ports.clock.now()).toISOString(),
    status: 'ok',
    revision,
    budgetTokens: budget,
    usedTokens: 0,
    retries: 0,
    ranking: 'lexical',
    entries: [],
  };
  if (!descriptor.actionable) {
    manifest.status = 'not-actionable';
    manifest.note = 'The request holds no path, symbol, phrase or specific keyword to look up.';
    return { descriptor, results: [], manifest };
  }

  const invalidated: ManifestEntry[] = [];
  for (let attempt = 0; ; attempt++) {
    const files = new FileIndex(context.store);
    const scoreAll = (list: Candidate[]) => {
      files.prefetch(new Set(list.map((candidate) => candidate.snippet.path)));
      return list
        .map((candidate) => {
          const file = files.get(candidate.snippet.path);
          const modified = file?.modified ?? false;
          // Field by field rather than a spread: the spread's copies were the largest allocation of a pasted text's scoring.
          const { snippet, reason, base, matched, literal } = candidate;
          return { snippet, reason, base, matched, literal, modified, score: score(candidate, modified, file?.tracked ?? false, demotion) };
        })
        .sort(compareScored);
    };
    const live = new LiveFiles(context);
    // A pasted text or a file-level request draws on a deeper pool: its answer is often a file many chunks support.
    const poolSize = filesWanted ? Math.max(256, limit * 16) : descriptor.long ? Math.max(longPool, limit * 16) : Math.max(64, limit * 8);
    const collected = await collectCandidates(context.store, descriptor, poolSize, files, live);
    let candidates: Array<Scored & { modified: boolean }> = scoreAll(collected);
    if (semantic) {
      const hybrid = await hybridRanking(context, descriptor, candidates, limit);
      manifest.ranking = hybrid.ranking;
      if (hybrid.note) manifest.note = hybrid.note;
      if (hybrid.candidates) candidates = scoreAll(hybrid.candidates);
    }
    // A question or a pasted text: the weaker candidates of the files the request's words spread over go first.
    const nudge = (descriptor.natural || descriptor.long) && context.store.search.documentCount() <= maxNudgedChunks;
    const wholeFile = nudge || filesWanted ? wholeFileScores(context, descriptor) : undefined;
    // The file ranking of a report's snippets reads the candidates before the nudge: it adds the whole-file scores itself.
    const unboosted = candidates;
    const ordersFiles = !filesWanted && reportShaped(descriptor, unboosted);
    // A question on an index small enough for its nudge may take its first snippet from the file ranking (`leadFromTopFile`).
    const leads = nudge && !filesWanted && !ordersFiles && descriptor.natural && !descriptor.long && !wholePhraseAnswered(unboosted);
    // Only a sentence or a pasted text ranks files by history: a lookup's exact answer needs none.
    const consultsHistory = (filesWanted || ordersFiles || leads) && (descriptor.natural || descriptor.long);
    const history = consultsHistory ? historyEvidence(context, descriptor, files) : undefined;
    if (consultsHistory) manifest.history = historyManifest(context, history);
    if (wholeFile && !filesWanted)
      candidates = descriptor.long
        ? boostByFile(candidates, wholeFile, wholeFileBoost)
        : boostByFile(candidates, questionFileScores(descriptor, wholeFile, files), questionFileBoost);
    if (hooks.rerank) candidates = hooks.rerank(candidates);
    const relevant = relevanceCut(candidates, descriptor);
    // A report of a behaviour to change is answered by where to change it: its snippets go in their files' order.
    const fileOrder = ordersFiles ? rankCandidateFiles(descriptor, unboosted, files, wholeFile, history) : undefined;
    const { kept, cut } = fileOrder ? keepRankedFiles(relevant, fileOrder) : relevant;
    const spread = spreadAcrossFiles(kept);
    // Only with similar commits: without them the file ranking repeats what the snippet order already says.
    const leadRanking =
      leads && history && history.files.size > 0 ? rankCandidateFiles(descriptor, unboosted, files, wholeFile, history) : undefined;
    const answer = fileOrder
      ? inFileOrder(spread, fileOrder, (candidate) => candidate.snippet.path)
      : leadRanking
        ? leadFromTopFile(spread, leadRanking)
        : spread;
    const verification = await verifyCandidates(answer, limit, budget, state.head, files, live, focusWords, memberStarts(context));
    if (fileOrder) verification.results = inFileOrder(verification.results, fileOrder, (result) => result.path);
    const rankedFiles = filesWanted
      ? await verifyFiles(rankCandidateFiles(descriptor, candidates, files, wholeFile, history), limit, files, live)
      : undefined;
    for (const changed of rankedFiles?.changedPaths ?? []) {
      if (!verification.changedPaths.includes(changed)) verification.changedPaths.push(changed);
    }
    for (const candidate of cut) {
      const file = files.get(candidate.snippet.path);
      verification.entries.push(entryFor(candidate, false, 'low-relevance', candidate.modified, file?.gitHead ?? state.head));
    }
    if (verification.changedPaths.length > 0 && attempt < maxRetries) {
      for (const changedPath of verification.changedPaths) await resyncOne(context, changedPath);
      invalidated.push(...verification.invalidated);
      manifest.retries = attempt + 1;
      continue;
    }
    manifest.entries = [...invalidated, ...verification.entries];
    manifest.usedTokens = verification.results.reduce((sum, result) => sum + result.tokens, 0);
    if (verification.changedPaths.length > 0) {
      manifest.note = `Files kept changing during retrieval: ${verification.changedPaths.join(', ')}; their snippets were left out.`;
    }
    // Files this retrieval re-indexed are written now; other unsaved changes wait for their sync.
    if (context.store.revision !== revisionAtStart) await context.store.persist();
    return { descriptor, results: verification.results, files: rankedFiles?.files, manifest };
  }
}

/**
 * A pasted text, or a sentence that reports a defect and is not a question: an issue, a fix's
 * message. Its answer is where to change it, a file, so its snippets follow the file ranking
 * (`inFileOrder`). A question or a request for code that does something ("split a query string")
 * keeps its snippets in their own order, and so does a request whose whole literal occurs (a
 * message typed as it appears: the line that raises it answers).
 */
function reportShaped(descriptor: TaskDescriptor, candidates: readonly Candidate[]): boolean {
  if (wholePhraseAnswered(candidates)) return false;
  return descriptor.long || reportsDefect(descriptor);
}

/** The file ranking's first files whose best snippet a report's answer keeps, whatever the relevance cut said. */
export const rankedFilesKept = 10;

/**
 * A report's relevance cut, undone for the best candidate of each of the file ranking's first
 * `rankedFilesKept` files: the cut judges snippets against the best one, while the file ranking
 * weighs every snippet of a file and its whole text, so a file it puts first could otherwise be
 * missing from the answer. Those taken back follow the kept ones (`spreadAcrossFiles` sorts them
 * by score) and leave `cut`.
 */
export function keepRankedFiles<T extends { snippet: { path: string } }>(
  relevant: { kept: T[]; cut: T[] },
  ranking: ReadonlyArray<{ path: string }>,
): { kept: T[]; cut: T[] } {
  const present = new Set(relevant.kept.map((candidate) => candidate.snippet.path));
  const wanted = new Set(
    ranking
      .slice(0, rankedFilesKept)
      .map((file) => file.path)
      .filter((path) => !present.has(path)),
  );
  if (wanted.size === 0) return relevant;
  const restored = new Set<T>();
  for (const candidate of relevant.cut) {
    if (!wanted.has(candidate.snippet.path)) continue;
    wanted.delete(candidate.snippet.path);
    restored.add(candidate);
  }
  if (restored.size === 0) return relevant;
  return {
    kept: [...relevant.kept, ...restored],
    cut: relevant.cut.filter((candidate) => !restored.has(candidate)),
  };
}

/** Whether the request's whole literal occurs (a message typed as it appears): the line that holds it answers. */
function wholePhraseAnswered(candidates: readonly Candidate[]): boolean {
  return candidates.some((candidate) => candidate.base >= wholePhraseTier && candidate.reason === 'exact-phrase');
}

/**
 * Candidates (or verified snippets) in the order of their files in `ranking` (what `granularity:
 * 'files'` returns), each file's best before any file's second and so on, so the answer's files
 * come in the file ranking's order, each with its best evidence, and the token budget covers as
 * many ranked files as it can; one file cannot crowd out the rest. Within a file, the given order.
 * Files the ranking lacks go after those it holds.
 */
function inFileOrder<T>(candidates: T[], ranking: Array<{ path: string }>, pathOf: (candidate: T) => string): T[] {
  const rank = new Map(ranking.map((file, index) => [file.path, index]));
  const seen = new Map<string, number>();
  return candidates
    .map((candidate, index) => {
      const path = pathOf(candidate);
      const within = seen.get(path) ?? 0;
      seen.set(path, within + 1);
      return { candidate, round: within, file: rank.get(path) ?? ranking.length, index };
    })
    .sort((a, b) => a.round - b.round || a.file - b.file || a.index - b.index)
    .map((entry) => entry.candidate);
}

/** Whole-file BM25F scores of the request (`scoreFiles`), by path; undefined when FTS4 rejects the query. */
function wholeFileScores(context: SyncContext, descriptor: TaskDescriptor): Map<string, number> | undefined {
  try {
    const scores = scoreFiles(context.store, requestWordTerms(context.store, descriptor), Number.MAX_SAFE_INTEGER);
    return new Map(scores.map((scored) => [scored.path, scored.score]));
  } catch (error) {
    // The snippet evidence alone then ranks, as before whole-file scores existed.
    context.ports.log.warn(`Whole-file scores failed: ${error instanceof Error ? error.message : String(error)}`);
    return undefined;
  }
}

/**
 * Points a weaker candidate (symbol text, full text, semantic) gains from its file's whole-file
 * score relative to the best file's: a within-tier nudge toward the files the request's words
 * spread over, never past literal evidence (a phrase or exact match).
 */
const wholeFileBoost = 8;
/**
 * A question's answer lies in the file its words spread over more often than its best chunk's own
 * words tell (a question names the topic, a chunk holds a few of its words): its weaker candidates
 * gain up to twice as much. Measured on the tune queries, 8 → 16 raised natural MRR on both
 * code bases and larger values did not (see issue 14); the gain stays below literal evidence.
 */
const questionFileBoost = 16;
/** A boosted candidate's base plus its gain stays at most here: its modified-file bonus (10) then cannot lift it past an exact phrase. */
const boostCeiling = tierScores['exact-phrase'] - 10;
/**
 * The whole-file scan costs about 15 µs per matching chunk, so a question's nudge runs only on
 * indexes up to this many chunks (about 1,000 files), where it stays within a few milliseconds; at
 * 5,000 files it would cost a few hundred. `granularity: 'files'` always runs it.
 */
const maxNudgedChunks = 20_000;

/**
 * The whole-file scores a question's nudge uses: a test file (unless the question is about tests)
 * or a prose file (unless it is about docs or configuration) keeps half of its score, as in the
 * file ranking (`demotedFileWeight`). A test file holds the words of every behaviour it checks, so
 * it was often the best file and lifted its own snippets and none of the code's. Tune questions:
 * jsoup R@1 0.21 -> 0.29 (`HttpConnectionTest` above `redirectMethod`, `UrlBuilder`), Hono MRR up
 * (one 6 -> 5), CPython unchanged (its corpus has no tests).
 */
function questionFileScores(descriptor: TaskDescriptor, wholeFile: ReadonlyMap<string, number>, files: FileIndex): Map<string, number> {
  const demoteTests = !aboutTests(descriptor);
  const demoteProse = !descriptor.keywords.some((word) => proseWords.test(word));
  const weighted = new Map<string, number>();
  for (const [path, value] of wholeFile) {
    const demoted = (demoteTests && isTestPath(path)) || (demoteProse && isProseFile(path, files.get(path)?.language));
    weighted.set(path, demoted ? value * demotedFileWeight : value);
  }
  return weighted;
}

function boostByFile<T extends Scored & { modified: boolean }>(
  candidates: T[],
  wholeFile: ReadonlyMap<string, number>,
  boost: number,
): T[] {
  const best = Math.max(0, ...wholeFile.values());
  if (best <= 0) return candidates;
  return candidates
    .map((candidate) => {
      if (candidate.base >= tierScores['exact-phrase']) return candidate;
      const gain = Math.min((boost * (wholeFile.get(candidate.snippet.path) ?? 0)) / best, Math.max(0, boostCeiling - candidate.base));
      return { ...candidate, score: Math.round((candidate.score + gain) * 100) / 100 };
    })
    .sort(compareScored);
}

/** Languages of documentation and configuration: a request for a fix or a behaviour is answered by code. */
const proseLanguages = new Set(['markdown', 'yaml', 'toml', 'json', 'ini', 'xml']);
/**
 * Files of no known language (`text`) that are prose: no extension (`LICENSE`, `CHANGELOG`), or one
 * of documents and data (`.txt`, `.rst`, a man page's `.1`). Other unknown extensions are code the
 * index has no parser for (`.fish`, `.vim`, `.ps1`, `.just`) and are not demoted.
 */
const proseExtension = /\.(?:txt|text|rst|adoc|asciidoc|org|tex|mdx|[1-9]|cfg|conf|lock|csv|tsv|svg|log)$/i;
const proseWords = /^(?:readme|docs?|documentation|documented|changelog|markdown|manual|config|configuration|settings|yaml|yml|toml|json)$/;
/**
 * For a report, only words about documents in its subject line lift the demotion: formats and
 * settings (`markdown`, `json`, `config`) also name the code that handles them ("Fix typing
 * around Markdown tables" is fixed in `markdown.py`, not in the changelog), and a fix's body often
 * says it updated the docs. Localization, files mode, replayed (see `reportEvidenceCeiling`):
 * Acc@1 70.7 → 72.1 on tune and 65.1 → 66.1 on the older commits, no repository worse.
 */
const reportProseWords = /^(?:readme|docs?|documentation|documented|changelog|manual)$/;
/** The factor a test file (unless the request is about tests) or a prose file (unless it is about prose) keeps of its file score. */
const demotedFileWeight = 0.5;
/**
 * The factor for files in the scope the request's subject names (`fix(etag): ...`, `fish: ...`,
 * `[vim] ...`, see `subjectScope`). Localization tune split, files mode, replayed: Acc@1 +4.3
 * points (Hono, fzf, rich; just and jsoup name no scopes), and no factor from 1.1 to 2 made any
 * repository worse.
 */
const scopeFileWeight = 1.5;
/**
 * The factor for a file whose name the request's subject line spells out ("fix foo_bar handling"
 * and `foo_bar.py` or `fooBar.ts`, see `subjectNamesFile`): a fix's subject often names the module
 * it changes. Measured in docs/measurements.md (fresh sets pipx+delta and Gitleaks, tune split).
 */
export const namedFileWeight = 1.2;
/**
 * The factor for a report's files in documents', examples' and fixtures' folders the subject does
 * not name (`auxiliaryOutsideSubject`), on top of the test and prose factors. Files mode against
 * main in one pass each (docs/measurements.md, branch `localize2`): Gitleaks Acc@5 77.8 -> 78.9 %
 * (`testdata/...` ahead of the fixed file), pipx+delta 87.8 -> 88.3 % (delta's
 * `etc/examples/*.diff`), no instance lower.
 */
export const auxiliaryFileWeight = 0.5;

function isProseFile(path: string, language: string | undefined): boolean {
  if (language === undefined) return false;
  if (proseLanguages.has(language)) return true;
  if (language !== 'text') return false;
  const base = path.slice(path.lastIndexOf('/') + 1).replace(/^\.+/, '');
  return !base.includes('.') || proseExtension.test(base);
}

/**
 * All candidates' files ranked (no relevance cut: a file many weak hits support is a file-level
 * answer), fusing their snippet evidence with a whole-file BM25F (`scoreFiles`). A lookup keeps
 * its exact matches first; for a sentence or a pasted text one snippet's evidence is bounded
 * (`reportEvidenceCeiling`).
 */
function rankCandidateFiles(
  descriptor: TaskDescriptor,
  candidates: Array<Scored & { modified: boolean }>,
  files: FileIndex,
  scores: ReadonlyMap<string, number> | undefined,
  history?: HistoryMatch,
): ReturnType<typeof rankFiles> {
  const paths = new Set(candidates.map((candidate) => candidate.snippet.path));
  const wholeFile = scores ? new Map([...scores].filter(([path]) => paths.has(path))) : undefined;
  const lookup = !descriptor.natural && !descriptor.long;
  const demoteTests = lookup ? !aboutTests(descriptor) : !reportAboutTests(descriptor);
  const subjectWords = lookup ? undefined : wordsOf(subjectLine(descriptor));
  const demoteProse =
    !descriptor.keywords.some((word) => (subjectWords ? reportProseWords.test(word) && subjectWords.has(word) : proseWords.test(word))) &&
    !descriptor.paths.some((path) => /\.(?:md|txt|ya?ml|toml|json|ini|xml)$/i.test(path));
  const scope = subjectScope(descriptor.text);
  const subjectNames = subjectFileNames(subjectLine(descriptor));
  const weight = (path: string) => {
    const test = demoteTests && isTestPath(path);
    const prose = demoteProse && isProseFile(path, files.get(path)?.language);
    const inScope = scope !== undefined && pathInScope(path, scope);
    const named = subjectNamesFile(subjectNames, path);
    const auxiliary = !lookup && auxiliaryOutsideSubject(subjectNames, path);
    return (
      (test || prose ? demotedFileWeight : 1) *
      (inScope ? scopeFileWeight : 1) *
      (named ? namedFileWeight : 1) *
      (auxiliary ? auxiliaryFileWeight : 1)
    );
  };
  return rankFiles(candidates, {
    wholeFile,
    weight,
    exactFirstFrom: lookup ? exactTierFloor : undefined,
    evidenceCeiling: lookup ? undefined : reportEvidenceCeiling,
    weakNames: lookup ? undefined : sentenceInitialWords(descriptor.text),
    ownerNames: lookup ? undefined : ownersOfUndeclaredMembers(descriptor, candidates),
    identifierNames: lookup ? undefined : new Set(descriptor.identifiers.filter((name) => !/^[A-Za-z][a-z]+$/.test(name))),
    history: lookup || !history ? undefined : { files: history.files, share: historySettings.share },
  });
}

/**
 * How the history evidence counts (`similarCommitFiles`): the `topCommits` earlier commits most
 * like the request, and the share of a file's score they decide (relative to the best file's).
 * Tuned on the localization tune split only (140 fix commits, `--files`, replayed from one run's
 * captured scores): without history Acc@1 / @5 / @10 72.1 / 90.7 / 94.3 %, MRR 0.804; 5 commits
 * at 0.3 73.6 / 93.6 / 95.0 %, MRR 0.820. More commits lowered Acc@1 (10: 71.4, 20: 70.0, 40:
 * 66.4 at 0.25-0.3), as did larger shares (0.5: 67.9), a recency decay and dividing by the square
 * root of the files changed or by the non-test files only; at 5 commits every share from 0.2 to
 * 0.35 gave 72.9-73.6 / 93.6 %. Hono (87.1 -> 80.6 %) and fzf (88.5 -> 80.8) lost first places
 * that jsoup (62.5 -> 78.1) and rich (67.7 -> 71.0) gained: earlier fixes of the same feature
 * often changed the file next to the answer. Acc@5 rose or held in every repository.
 */
export const historySettings = { topCommits: 5, share: 0.3 };

/**
 * The earlier commits most like the request and the files they changed that the index holds
 * now; undefined without history or when no message shares a word with the request.
 */
function historyEvidence(context: SyncContext, descriptor: TaskDescriptor, files: FileIndex): HistoryMatch | undefined {
  try {
    return similarCommitFiles(context.store.history, descriptor.text, (path) => files.has(path), historySettings.topCommits);
  } catch (error) {
    // The ranking then stands on the current files alone.
    context.ports.log.warn(`History evidence failed: ${error instanceof Error ? error.message : String(error)}`);
    return undefined;
  }
}

/** The manifest's record of the similar commits (ids, subjects, similarity, files changed), or why there is no history. */
function historyManifest(context: SyncContext, history: HistoryMatch | undefined): NonNullable<Manifest['history']> {
  const note = context.store.history.note();
  return { similar: history?.similar ?? [], ...(note ? { note } : {}) };
}

/**
 * The owners (`Text`) of the qualified names a request holds (`Text.from_ansi`) that matched no
 * declaration: a report that adds or changes such a member is answered by the owner's file.
 * Localization, files mode, replayed (see `reportEvidenceCeiling`): on the older commits Acc@1
 * 66.1 → 66.7 and Acc@5 90.5 → 91.0, tune unchanged.
 */
function ownersOfUndeclaredMembers(descriptor: TaskDescriptor, candidates: readonly Candidate[]): Set<string> {
  const declared = new Set(
    candidates.filter((candidate) => candidate.reason === 'exact-qualified-symbol').map((candidate) => candidate.matched),
  );
  const owners = new Set<string>();
  for (const name of descriptor.qualifiedSymbols) {
    const parts = name.split('.');
    if (parts.length >= 2 && !declared.has(name)) owners.add(parts[parts.length - 2]);
  }
  return owners;
}

/**
 * The best `limit` of the ranked files, each with its live hash checked like a snippet's. A
 * changed file is reported for re-indexing; an unusable one is left out.
 */
async function verifyFiles(
  ranking: ReturnType<typeof rankFiles>,
  limit: number,
  files: FileIndex,
  live: LiveFiles,
): Promise<{ files: RankedFile[]; changedPaths: string[] }> {
  const verified: RankedFile[] = [];
  const changedPaths: string[] = [];
  for (const ranked of ranking) {
    if (verified.length >= limit) break;
    const liveFile = await live.get(ranked.path);
    const indexed = files.get(ranked.path);
    if (!liveFile.ok || !indexed || liveFile.sha256 !== indexed.sha256) {
      changedPaths.push(ranked.path);
      continue;
    }
    verified.push({ ...ranked, sha256: liveFile.sha256 });
  }
  return { files: verified, changedPaths };
}

/**
 * Fuses the weaker lexical tiers with the bounded cosine pool. Any failure (embedding, stored
 * vectors, fusion) leaves the lexical candidates untouched and says so in the manifest.
 */
async function hybridRanking(
  context: SyncContext,
  descriptor: TaskDescriptor,
  lexical: Candidate[],
  limit: number,
): Promise<{ ranking: Manifest['ranking']; candidates?: Candidate[]; note?: string }> {
  const queryText = vectorQueryText(descriptor);
  if (!queryText) return { ranking: 'lexical' };
  try {
    const weaker = lexical.filter((candidate) => candidate.base < fusionCeiling).map((candidate) => candidate.snippet.rowid);
    const pool = await vectorPool(context, queryText, vectorPoolSize(limit), weaker);
    const { protectedCandidates, fused } = fuseRankings({
      lexical,
      pool,
      poolRows: context.store.chunks.snippetsByRowid(pool.map((hit) => hit.rowid)),
      fromVector: (snippet, cosine) => ({
        snippet,
        reason: 'semantic',
        base: tierScores.semantic,
        matched: `vector similarity ${cosine.toFixed(3)}`,
      }),
    });
    return { ranking: 'hybrid', candidates: [...protectedCandidates, ...fused] };
  } catch (error) {
    context.ports.log.warn(`Hybrid ranking failed; using the lexical ranking: ${error instanceof Error ? error.message : String(error)}`);
    return { ranking: 'lexical-fallback', note: 'Vector ranking was unavailable; results are lexical only.' };
  }
}

/**
 * How many weaker (full-text) snippets may follow literal evidence: one after a lookup, three after
 * a sentence, but one after a sentence whose whole literal was found (a message typed as it
 * appears: its answer is the line that raises it; on the tune split this saved 2-3% of the tokens
 * per found answer and lost no answer).
 */
const cutAllowance = 1;
const cutAllowanceNatural = 3;
/** Weaker snippets more than this many points below the best weaker one are left out... */
const cutSpan = 20;
/**
 * For a question, whose weaker candidates are many and close together, the span is narrower: the
 * tail of near-misses costs tokens and rarely holds the answer once its file's best places are in.
 */
const questionCutSpan = 13;
/** ...except that, with no literal evidence at all, the first four always stay ("where is X used?"). */
const cutFloor = 4;

/** The cosine pool's bound: the nearest `max(32, 4 × limit)` chunks, at most 128. */
export function vectorPoolSize(limit: number): number {
  return Math.min(128, Math.max(32, limit * 4));
}

/**
 * Keeps the few snippets that answer the request. When literal evidence exists (an exact tier or
 * an exact phrase), at most a couple of the weaker full-text candidates ride along (three for a
 * sentence-like request, one otherwise); and weaker candidates scoring far below the best weaker
 * one are left out. What is cut is listed in the manifest as `low-relevance`.
 */
export function relevanceCut<T extends Candidate & { score: number }>(
  candidates: T[],
  descriptor: TaskDescriptor,
): { kept: T[]; cut: T[] } {
  // A pasted issue or log supports many candidates weakly; cutting by the best one drops the answer (issue 14).
  if (descriptor.long) return { kept: candidates, cut: [] };
  const strong = candidates.some((candidate) => candidate.base >= tierScores['exact-phrase']);
  // The whole message or quoted phrase, found literally, answers the request: more weaker snippets only cost tokens.
  const answered = candidates.some((candidate) => candidate.reason === 'exact-phrase' && candidate.base >= wholePhraseTier);
  const allowance = strong ? (descriptor.natural && !answered ? cutAllowanceNatural : cutAllowance) : Infinity;
  const bestWeaker = candidates.find((candidate) => candidate.base < tierScores['exact-phrase'])?.score ?? 0;
  const span = descriptor.natural ? questionCutSpan : cutSpan;
  const kept: T[] = [];
  const cut: T[] = [];
  let taken = 0;
  for (const candidate of candidates) {
    if (candidate.base >= tierScores['exact-phrase']) kept.push(candidate);
    else if (taken < allowance && (candidate.score >= bestWeaker - span || (!strong && taken < cutFloor))) {
      kept.push(candidate);
      taken++;
    } else cut.push(candidate);
  }
  return { kept, cut };
}

/**
 * The first line of a chunk's first member (a method of a class: a chunk of another declaration
 * inside it), from the file's indexed chunks, read once per file per attempt.
 */
function memberStarts(context: SyncContext): (snippet: SnippetRow) => number | undefined {
  const byPath = new Map<string, SnippetRow[]>();
  return (snippet) => {
    if (snippet.symbolId === null) return undefined;
    let rows = byPath.get(snippet.path);
    if (!rows) {
      rows = context.store.chunks.currentSnippets(snippet.path);
      byPath.set(snippet.path, rows);
    }
    let first: number | undefined;
    for (const row of rows) {
      const inside = row.startLine > snippet.startLine && row.endLine <= snippet.endLine;
      if (inside && row.symbolId !== null && row.symbolId !== snippet.symbolId && (first === undefined || row.startLine < first))
        first = row.startLine;
    }
    return first;
  };
}

/** Reasons that name the declaration itself: a long container among them (or in a bare path's answer) is answered by its head. */
const declarationReasons = new Set<CandidateReason>(['exact-qualified-symbol', 'exact-symbol', 'declared-fallback']);

/** Reasons whose chunk is cut to its matching lines when long: what matched is words or a line, not a named declaration. */
const focusedReasons = new Set<CandidateReason>(['exact-phrase', 'symbol-text', 'full-text', 'semantic', 'exact-path', 'exact-basename']);
/** Reasons whose evidence is shared words, not a name or a quoted line: their chunks are cut shorter (`weakerEvidenceShape`). */
const weakerReasons = new Set<CandidateReason>(['symbol-text', 'full-text', 'semantic']);
/** Lines kept on each side of the line a path request or stack frame names. */
const lineHintContext = 6;

/** The lines of a candidate to return (1-based, inclusive): the whole chunk, or its focused span (see `focusSpan`). */
function spanOf(
  candidate: Candidate,
  lines: string[],
  words: readonly string[],
  firstMember: (snippet: SnippetRow) => number | undefined,
): { startLine: number; endLine: number } {
  const { snippet } = candidate;
  const whole = { startLine: snippet.startLine, endLine: snippet.endLine };
  // A long class (or other container) is answered by its head (header, docstring, fields): its
  // members are snippets of their own, which the request finds when it names or describes them.
  const long = snippet.endLine - snippet.startLine + 1 > maxWholeSpanLines;
  const barePath = (candidate.reason === 'exact-path' || candidate.reason === 'exact-basename') && !/:\d+$/.test(candidate.matched);
  const member = long && (declarationReasons.has(candidate.reason) || barePath) ? firstMember(snippet) : undefined;
  if (member !== undefined && member > snippet.startLine) return { startLine: snippet.startLine, endLine: member - 1 };
  const shape = weakerReasons.has(candidate.reason) ? weakerEvidenceShape : undefined;
  const wholeLines = shape?.wholeLines ?? maxWholeSpanLines;
  if (!focusedReasons.has(candidate.reason) || snippet.endLine - snippet.startLine + 1 <= wholeLines) return whole;
  if (candidate.reason === 'exact-path' || candidate.reason === 'exact-basename') {
    // `a.py:120` or a stack frame: the named line with some context; a bare path keeps the chunk.
    const line = Number(candidate.matched.match(/:(\d+)$/)?.[1] ?? NaN);
    if (!(line >= snippet.startLine && line <= snippet.endLine)) return whole;
    return { startLine: Math.max(snippet.startLine, line - lineHintContext), endLine: Math.min(snippet.endLine, line + lineHintContext) };
  }
  const focus = focusSpan(lines.slice(snippet.startLine - 1, snippet.endLine), words, candidate.literal, shape);
  return focus ? { startLine: snippet.startLine + focus.from, endLine: snippet.startLine + focus.to } : whole;
}

async function verifyCandidates(
  candidates: Array<Scored & { modified: boolean }>,
  limit: number,
  budget: number,
  head: string | null,
  files: FileIndex,
  live: LiveFiles,
  words: readonly string[],
  firstMember: (snippet: SnippetRow) => number | undefined,
) {
  const results: VerifiedSnippet[] = [];
  const entries: ManifestEntry[] = [];
  const invalidated: ManifestEntry[] = [];
  const changedPaths: string[] = [];
  const seenText = new Set<string>();
  let usedTokens = 0;
  for (const candidate of candidates) {
    const { snippet } = candidate;
    const gitCommit = files.get(snippet.path)?.gitHead ?? head;
    if (results.length >= limit) {
      entries.push(entryFor(candidate, false, 'over-limit', candidate.modified, gitCommit));
      continue;
    }

    const liveFile = await live.get(snippet.path);
    if (!liveFile.ok) {
      const entry = entryFor(candidate, false, liveFile.reason, candidate.modified, gitCommit);
      entries.push(entry);
      if (!changedPaths.includes(snippet.path)) {
        changedPaths.push(snippet.path);
        invalidated.push(entry);
      }
      continue;
    }
    if (liveFile.sha256 !== snippet.fileHash) {
      const entry = entryFor(candidate, false, 'stale-hash', candidate.modified, gitCommit);
      entries.push(entry);
      if (!changedPaths.includes(snippet.path)) {
        changedPaths.push(snippet.path);
        invalidated.push(entry);
      }
      continue;
    }
    const chunkText = liveFile.lines.slice(snippet.startLine - 1, snippet.endLine).join('\n');
    if (candidate.literal && !containsLiteral(chunkText, candidate.literal)) {
      // The words matched but not the literal phrase: keep it only at full-text strength.
      candidate.reason = 'full-text';
      candidate.score = Math.min(candidate.score, tierScores['full-text'] - 15);
    }
    const span = spanOf(candidate, liveFile.lines, words, firstMember);
    if (results.some((result) => overlapsByHalf(result, { path: snippet.path, ...span }))) {
      entries.push(entryFor(candidate, false, 'overlap', candidate.modified, gitCommit));
      continue;
    }
    const whole = span.startLine === snippet.startLine && span.endLine === snippet.endLine;
    const text = whole ? chunkText : liveFile.lines.slice(span.startLine - 1, span.endLine).join('\n');
    if (seenText.has(text)) {
      entries.push(entryFor(candidate, false, 'duplicate', candidate.modified, gitCommit));
      continue;
    }
    const tokens = estimateTokens(text);
    if (usedTokens + tokens > budget) {
      entries.push(entryFor(candidate, false, 'over-budget', candidate.modified, gitCommit));
      continue;
    }
    seenText.add(text);
    usedTokens += tokens;

    entries.push({ ...entryFor(candidate, true, candidate.reason, candidate.modified, gitCommit), ...span, tokens });
    results.push(toVerified(candidate, { ...snippet, ...span }, text, tokens, liveFile.sha256, gitCommit));
  }
  // A demoted phrase may now rank below others; keep the returned list in score order.
  results.sort(
    (a, b) =>
      b.score - a.score ||
      Number(b.modified) - Number(a.modified) ||
      (a.path < b.path ? -1 : a.path > b.path ? 1 : 0) ||
      a.startLine - b.startLine ||
      (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
  return { results, entries, changedPaths, invalidated };
}

type LineRange = { path: string; startLine: number; endLine: number };

function overlapsByHalf(a: LineRange, b: LineRange): boolean {
  if (a.path !== b.path) return false;
  const overlap = Math.min(a.endLine, b.endLine) - Math.max(a.startLine, b.startLine) + 1;
  if (overlap <= 0) return false;
  const smaller = Math.min(a.endLine - a.startLine + 1, b.endLine - b.startLine + 1);
  return overlap * 2 >= smaller;
}

function toVerified(
  candidate: Scored & { modified: boolean },
  snippet: SnippetRow,
  text: string,
  tokens: number,
  sha256: string,
  gitHead: string | null,
): VerifiedSnippet {
  return {
    id: snippet.id,
    path: snippet.path,
    startLine: snippet.startLine,
    endLine: snippet.endLine,
    text,
    sha256,
    score: candidate.score,
    reason: candidate.reason,
    matched: candidate.matched,
    symbol: snippet.qualifiedName,
    kind: snippet.kind,
    signature: snippet.signature,
    chunkKind: snippet.chunkKind,
    tokens,
    modified: candidate.modified,
    gitHead,
    citation: citationOf({ path: snippet.path, startLine: snippet.startLine, endLine: snippet.endLine, sha256 }),
  };
}

/** The "Relevance" line of a quoted block. */
export function relevanceOf(result: VerifiedSnippet): string {
  switch (result.reason) {
    case 'exact-qualified-symbol':
    case 'exact-symbol':
    case 'declared-fallback':
      return `declared symbol ${result.symbol ?? result.matched}`;
    case 'exact-path':
    case 'exact-basename':
      return `file ${result.matched}`;
    case 'exact-phrase':
      return `contains the phrase ${JSON.stringify(result.matched)}`;
    case 'symbol-text':
      return `symbol ${result.symbol ?? result.matched} matches the request words`;
    case 'semantic':
      return `similar wording (${result.matched})`;
    case 'pinned':
      return `pinned by the user (${result.matched})`;
    default:
      return `full-text match (score ${result.score})`;
  }
}
