import * as path from 'node:path';
import { discover } from './discovery';
import { sniffContent } from './exclusion/contentRules';
import type { ExclusionReason } from './exclusion/reasons';
import { findSecretlintSecret } from './exclusion/secretlintLayer';
import { readGitState, type GitState } from './gitState';
import { syncHistory, type HistorySyncReport } from './history/historySync';
import { chunkIdOf, sha256Hex, symbolIdOf } from './hashing';
import { languageForPath } from './language';
import { structuralLanguages } from './parsing/treeSitterParser';
import type { AnalysisContext, FileAnalysis, FileRows } from './fileAnalysis';
import { FileTermsBuilder } from './fileTerms';
import { readFileBytes } from './liveFile';
import type { FileStat } from './ports';
import { embedIndexedChunks, fillMissingEmbeddings } from './retrieval/vectors';
import type { FileRow, NewSnippet, StoredExclusion, SymbolRow } from './store';
import type { SyncContext } from './syncContext';
import { estimateLineTokens, lineOwners, ownText, splitLines } from './tokens';

/** References kept per chunk: enough to explain a match, small enough to keep the database lean. */
const maxStoredReferences = 8;

/** Files read ahead per pool worker: enough that a worker never waits for the next one. */
const jobsPerWorker = 3;

/** Syncs reading at least this many files stop the parse workers when their last file is analyzed (`FileAnalyzer.release`). */
const releaseThreshold = 200;

/** How far past the file being written the sync reads ahead (unchanged files cost nothing to skip). */
const maxLookahead = 256;

/**
 * A released sync's grammar with fewer files than this share of its reads is rare: its files are
 * parsed on this thread after the workers stop (`rareGrammarFiles`), so no worker loads it.
 */
const rareGrammarShare = 0.02;

/** At most this share of a sync's reads is left for this thread after the workers stop. */
const rareGrammarBudget = 0.05;

/** A file opened (and, by the pool, maybe analyzed) before its turn, or the error opening it raised. */
type Examined = { opened: OpenedFile; analysis?: FileAnalysis } | { error: unknown };

/**
 * Re-indexed plus removed files from which a sync merges the full-text index afterwards: at
 * least this many and half the files indexed before. The merge rewrites the whole index (a
 * third of a 200-file checkout's sync on a 1,400-file project); a smaller change adds a few
 * small segments, which FTS4 merges on its own as they accumulate (16 to a level).
 */
const optimizeThreshold = 200;

export interface SyncProgress {
  phase: 'discovering' | 'indexing' | 'saving';
  done: number;
  total: number;
}

export interface SyncReport {
  root: string;
  full: boolean;
  discovered: number;
  /** Files whose bytes were read (new, changed size/mtime, or forced). */
  read: number;
  /** Files whose chunks were replaced because their hash changed. */
  reindexed: number;
  unchanged: number;
  removed: number;
  excluded: number;
  exclusionsByReason: Record<string, number>;
  boundNotes: string[];
  durationMs: number;
  errors: string[];
  /** The full-text merge after a large change: its steps, their total and the longest one's time (see `mergeFullText`). */
  fullTextMerge?: MergeFigures;
  /** The history part's update (`history/historySync.ts`): what it read and why it is empty, if it is. */
  history?: HistorySyncReport;
}

export interface MergeFigures {
  steps: number;
  /** Steps that gave back the pages the merge freed, beyond the last one. */
  releaseSteps: number;
  ms: number;
  longestStepMs: number;
}

export type FileOutcome =
  | { kind: 'indexed'; file: FileRow; reindexed: boolean; bytes: number }
  /** `stat`: set when the verdict came from the file's bytes, which it then stands for while they stay the same size and mtime. */
  | { kind: 'excluded'; reason: ExclusionReason; detail?: string; stat?: FileStat }
  | { kind: 'vanished' };

// Re-exported for the callers that knew them here; they live in modules of their own.
export { readIndexable, type IndexableRead } from './liveFile';
export type { SyncContext } from './syncContext';
export type { AnalysisContext, FileAnalysis, FileAnalyzer, FileRows } from './fileAnalysis';

/** Chunks one file's text and builds the rows to insert. */
export async function buildRows(
  context: Omit<AnalysisContext, 'warn'>,
  relativePath: string,
  text: string,
  fileHash: string,
  language: string,
): Promise<FileRows> {
  const lines = splitLines(text);
  const { bounds } = context.options;
  const result = await context.parsers.parse(
    { path: relativePath, language, text, lines },
    {
      windowLines: bounds.windowLines,
      overlapLines: bounds.overlapLines,
      // The parser's own budget by size (`parseBudgetMs`) bounds it; 0 adds no tighter one.
      timeoutMs: 0,
    },
  );
  const imports = result.imports && result.imports.length > 0 ? JSON.stringify(result.imports) : null;
  const parserVersion = context.parsers.version;
  const snippets: NewSnippet[] = [];
  const terms = new FileTermsBuilder();
  const symbols = new Map<string, SymbolRow>();
  const seen = new Set<string>();
  const owners = lineOwners(result.chunks, lines.length, (index) => result.chunks[index].symbol?.startLine ?? 0);
  for (const [index, chunk] of result.chunks.entries()) {
    const symbol = chunk.symbol;
    const symbolId = symbol ? symbolIdOf(context.projectId, relativePath, fileHash, symbol) : null;
    const id = chunkIdOf(context.projectId, relativePath, fileHash, chunk.startLine, chunk.endLine, symbolId);
    if (seen.has(id)) continue;
    seen.add(id);
    const indexText = ownText(lines, owners, chunk, index);
    const identifierParts = terms.addChunk(indexText, symbol ? [symbol.name, symbol.qualifiedName.replace(/\./g, ' ')] : []);
    snippets.push({
      id,
      path: relativePath,
      fileHash,
      startLine: chunk.startLine,
      endLine: chunk.endLine,
      tokens: estimateLineTokens(lines, chunk.startLine, chunk.endLine),
      chunkKind: chunk.chunkKind,
      parser: result.parser,
      parserVersion,
      symbolId,
      name: symbol?.name ?? null,
      kind: symbol?.kind ?? null,
      qualifiedName: symbol?.qualifiedName ?? null,
      signature: symbol?.signature ?? null,
      parent: symbol?.parent ?? null,
      symbolStart: symbol?.startLine ?? null,
      symbolEnd: symbol?.endLine ?? null,
      // The file's imports are stored once, on its first chunk, rather than repeated on each.
      imports: snippets.length === 0 ? imports : null,
      refs: chunk.references && chunk.references.length > 0 ? JSON.stringify(chunk.references.slice(0, maxStoredReferences)) : null,
      indexText,
      identifierParts,
    });
    if (symbol && symbolId && !symbols.has(symbolId)) {
      symbols.set(symbolId, {
        symbolId,
        path: relativePath,
        name: symbol.name,
        qualifiedName: symbol.qualifiedName,
        kind: symbol.kind,
        startLine: symbol.startLine,
        endLine: symbol.endLine,
        signature: symbol.signature,
        parent: symbol.parent ?? null,
        fileHash,
      });
    }
  }
  return {
    snippets,
    terms: terms.pack(),
    symbols: [...symbols.values()],
    parser: result.parser,
    parserReason: result.fallbackReason ?? null,
    parserVersion,
  };
}

export interface FileGitInfo {
  tracked: boolean;
  modified: boolean;
  head: string | null;
}

/**
 * Everything one file's bytes go through before a row is written: content sniffing (binary,
 * malformed UTF-8, secrets), the SHA-256, secretlint for content not indexed before, chunking.
 * It depends on nothing but its arguments, so the parse pool's workers run this same function.
 */
export async function analyzeFile(
  context: AnalysisContext,
  relativePath: string,
  bytes: Uint8Array,
  knownHash: string | undefined,
  force: boolean,
): Promise<FileAnalysis> {
  const sniffed = sniffContent(bytes, relativePath);
  if (!sniffed.ok) return { kind: 'excluded', reason: sniffed.reason, detail: sniffed.detail };
  const sha256 = sha256Hex(bytes);
  if (knownHash === sha256 && !force) return { kind: 'same', sha256 };
  // New content: secretlint checks it too, before any row is written (the same hash was checked when first indexed).
  const deeper = await secretlintVerdict(context, relativePath, sniffed.text);
  if (deeper) return deeper;
  const language = languageForPath(relativePath);
  return { kind: 'rows', sha256, language, rows: await buildRows(context, relativePath, sniffed.text, sha256, language) };
}

/** A file whose stat says it must be read, with its bytes, or what became of it without analysis. */
type OpenedFile =
  | { kind: 'bytes'; stat: FileStat; bytes: Uint8Array; existing: FileRow | undefined }
  | { kind: 'unchanged'; existing: FileRow }
  | { kind: 'excluded'; reason: ExclusionReason; detail?: string; stat?: FileStat }
  | { kind: 'vanished' };

/** The stat comparison and the read of `syncFile`; it writes nothing, so the parse pool can run it ahead. */
function openFile(
  context: SyncContext,
  relativePath: string,
  knownStat: FileStat | undefined,
  force: boolean,
  existing = context.store.catalog.file(relativePath),
): OpenedFile {
  if (existing && knownStat && !force && existing.bytes === knownStat.size && existing.mtimeMs === knownStat.mtimeMs) {
    return { kind: 'unchanged', existing };
  }
  const read = readFileBytes(context, relativePath);
  return read.kind === 'bytes' ? { ...read, existing } : read;
}

function inlineAnalysis(context: SyncContext): AnalysisContext {
  return { ...context, warn: (message) => context.ports.log.warn(message) };
}

/** Writes what a file's analysis decided: its rows, a touched file row, or nothing for an exclusion. */
function applyAnalysis(
  context: SyncContext,
  relativePath: string,
  opened: OpenedFile,
  git: FileGitInfo,
  analysis: FileAnalysis | undefined,
): FileOutcome {
  const { store, ports, options } = context;
  if (opened.kind === 'unchanged') {
    const existing = opened.existing;
    if (existing.tracked !== git.tracked || existing.modified !== git.modified) {
      store.touchFile({ ...existing, tracked: git.tracked, modified: git.modified });
    }
    return { kind: 'indexed', file: existing, reindexed: false, bytes: existing.bytes };
  }
  if (opened.kind !== 'bytes') return opened;
  if (!analysis) throw new Error(`no analysis of ${relativePath}`);
  if (analysis.kind === 'excluded') return { ...analysis, stat: opened.stat };
  const { stat, existing } = opened;
  const base = {
    path: relativePath,
    sha256: analysis.sha256,
    bytes: stat.size,
    mtimeMs: stat.mtimeMs,
    language: languageForPath(relativePath),
    tracked: git.tracked,
    modified: git.modified,
    indexedAt: ports.clock.now(),
  };
  if (analysis.kind === 'same' && existing) {
    const file = { ...existing, ...base, gitHead: existing.gitHead, indexedAt: existing.indexedAt };
    store.touchFile(file);
    return { kind: 'indexed', file, reindexed: false, bytes: stat.size };
  }
  if (analysis.kind !== 'rows') throw new Error(`${relativePath}: unchanged content without an indexed row`);
  const { rows } = analysis;
  const file: FileRow = { ...base, gitHead: git.head, parser: rows.parser, parserReason: rows.parserReason };
  store.replaceFile(file, rows);
  if (options.semantic) embedIndexedChunks(context, rows.snippets);
  return { kind: 'indexed', file, reindexed: true, bytes: stat.size };
}

/**
 * Reads, checks and (re)indexes one file. The bytes read once serve the exclusion checks, the
 * hash and the chunks, so what is indexed is exactly what was hashed.
 */
export async function syncFile(
  context: SyncContext,
  relativePath: string,
  knownStat: FileStat | undefined,
  git: FileGitInfo,
  force: boolean,
): Promise<FileOutcome> {
  const opened = openFile(context, relativePath, knownStat, force);
  const analysis =
    opened.kind === 'bytes'
      ? await analyzeFile(inlineAnalysis(context), relativePath, opened.bytes, opened.existing?.sha256, force)
      : undefined;
  return applyAnalysis(context, relativePath, opened, git, analysis);
}

/**
 * The exclusion secretlint's recommended rules decide for new content, naming the rule and line.
 * Should secretlint fail on some input, the file is left out rather than indexed unchecked.
 */
async function secretlintVerdict(context: AnalysisContext, relativePath: string, text: string): Promise<FileAnalysis | undefined> {
  try {
    const finding = await findSecretlintSecret(text, relativePath);
    return finding ? { kind: 'excluded', reason: 'secret-content', detail: `${finding.rule} on line ${finding.line}` } : undefined;
  } catch (error) {
    context.warn(`secretlint could not check ${relativePath}: ${error instanceof Error ? error.message : String(error)}`);
    return { kind: 'excluded', reason: 'secret-content', detail: 'secretlint could not check the file' };
  }
}

/** Re-indexes one path that changed under the index, or removes it when it is gone or unusable. */
export async function resyncOne(context: SyncContext, relativePath: string): Promise<'reindexed' | 'unchanged' | 'removed'> {
  const previous = context.store.catalog.file(relativePath);
  const outcome = await syncFile(
    context,
    relativePath,
    undefined,
    {
      tracked: previous?.tracked ?? false,
      modified: true,
      head: context.store.catalog.state().head,
    },
    false,
  );
  if (outcome.kind === 'indexed') return outcome.reindexed ? 'reindexed' : 'unchanged';
  context.store.removeFile(relativePath);
  return 'removed';
}

/** Files whose change can alter what discovery admits: those paths need the whole incremental sync. */
function changesRules(relativePath: string): boolean {
  const name = path.posix.basename(relativePath);
  return (
    name === '.gitignore' ||
    name === '.pkignore' ||
    name === '.gitattributes' ||
    relativePath === '.git' ||
    relativePath.startsWith('.git/')
  );
}

/**
 * Re-indexes files the index already holds after an edit (a save, a change on disk) without
 * discovering the whole project, which costs most of an incremental sync (git listing and status,
 * a stat of every file). A file that is gone or no longer indexable (now a symbolic link, too
 * large, binary, secret) is removed; its exclusion is recorded by the next incremental sync.
 * Returns undefined, having changed nothing, when any path is new to the index or an ignore file:
 * discovery must decide those. Nothing is persisted; the next sync (or close) writes the database.
 */
export async function syncKnownFiles(context: SyncContext, paths: string[]): Promise<{ reindexed: number; removed: number } | undefined> {
  const unique = [...new Set(paths)];
  if (unique.some((relativePath) => changesRules(relativePath) || !context.store.catalog.file(relativePath))) return undefined;
  let reindexed = 0;
  let removed = 0;
  for (const relativePath of unique) {
    const outcome = await resyncOne(context, relativePath);
    if (outcome === 'reindexed') reindexed++;
    if (outcome === 'removed') removed++;
  }
  return { reindexed, removed };
}

/**
 * Merges the full-text index in steps (`FullTextIndex.mergeStep`), each followed by a turn of the
 * event loop (a request message arrives only then) and the requests waiting for this sync that
 * may run meanwhile (`SyncContext.interleave`): merged in one statement, a 50,000-file index held
 * this thread for 82 s, and a search asked then waited as long.
 */
async function mergeFullText(context: SyncContext, signal: AbortSignal | undefined): Promise<MergeFigures> {
  const { store, ports } = context;
  const figures: MergeFigures = { steps: 0, releaseSteps: 0, ms: 0, longestStepMs: 0 };
  const timed = <T>(work: () => T): T => {
    const started = ports.clock.now();
    const result = work();
    const ms = ports.clock.now() - started;
    figures.ms += ms;
    figures.longestStepMs = Math.max(figures.longestStepMs, ms);
    return result;
  };
  const step = () => {
    figures.steps++;
    return store.search.mergeStep();
  };
  const between = async () => {
    await new Promise<void>((resolve) => setImmediate(resolve));
    await context.interleave?.();
    signal?.throwIfAborted();
  };
  if (timed(() => store.search.beginMerge())) while (timed(step)) await between();
  timed(() => store.search.endMerge());
  // The pages the merge freed are given back in steps too (`FullTextIndex.releaseStep`).
  while (timed(() => store.search.releaseStep())) {
    figures.releaseSteps++;
    await between();
  }
  return figures;
}

/**
 * The candidates a large sync (one that releases the parse pool) leaves to the end, parsed on this
 * thread after the workers stop and written last whether or not it used workers: those of each
 * structural grammar with fewer than `rareGrammarShare` of the files to read, smallest groups
 * first, within `rareGrammarBudget`. Every worker keeps each grammar it loads until it stops, and
 * a large one costs a thread tens of megabytes of compiled code and tables (C++ and C# about 30 MB
 * each on vscode-copilot-chat, for 27 of its 4,206 files), so loading it once, here, when the
 * workers' memory is gone, lowers the sync's peak.
 */
function rareGrammarFiles(
  candidates: readonly { path: string }[],
  needsRead: (index: number) => boolean,
  toRead: number,
  grammarOf: (language: string) => string,
): Set<number> {
  const byGrammar = new Map<string, number[]>();
  for (let index = 0; index < candidates.length; index++) {
    if (!needsRead(index)) continue;
    const language = languageForPath(candidates[index].path);
    if (!structuralLanguages.has(language)) continue;
    // Languages that share a grammar (C parses with C++'s, `grammars/manifest.json`) count as one.
    const grammar = grammarOf(language);
    const group = byGrammar.get(grammar);
    if (group) group.push(index);
    else byGrammar.set(grammar, [index]);
  }
  const rare = [...byGrammar.values()].filter((group) => group.length < toRead * rareGrammarShare).sort((a, b) => a.length - b.length);
  const deferred = new Set<number>();
  for (const group of rare) {
    if (deferred.size + group.length > toRead * rareGrammarBudget) break;
    for (const index of group) deferred.add(index);
  }
  return deferred;
}

/**
 * Full (`force`) or incremental sync of the whole project. With `persist` false the database is
 * left unwritten (the caller syncs again soon, as the extension does after edits, and that sync
 * writes it), so the changes are searchable without waiting for the write.
 */
export async function syncProject(
  context: SyncContext,
  force: boolean,
  onProgress?: (progress: SyncProgress) => void,
  signal?: AbortSignal,
  persist = true,
): Promise<SyncReport> {
  const { ports, store, options } = context;
  const started = ports.clock.now();
  onProgress?.({ phase: 'discovering', done: 0, total: 0 });
  // `git status` walks the tree as discovery's stat pass does: it runs meanwhile (a second of a
  // 50,000-file sync under load), and is used when the listing it came with was the one used.
  const early: { gitRoot?: string; state?: Promise<GitState> } = {};
  const discovery = await discover(context.root, options.bounds, options.excludeGlobs, options.useGit, ports, (root, gitRoot) => {
    early.gitRoot = gitRoot;
    early.state = readGitState(root, gitRoot, ports);
  });
  const gitState =
    early.state && early.gitRoot === discovery.gitRoot ? await early.state : await readGitState(discovery.root, discovery.gitRoot, ports);
  const changed = new Set(gitState.changedPaths);
  const exclusions: StoredExclusion[] = [...discovery.exclusions];
  const boundNotes = [...discovery.boundNotes];
  const errors: string[] = [];
  const previous = store.catalog.files();
  const previousState = store.catalog.state();
  const revisionAtStart = store.revision;
  // Changes not yet written (files re-indexed by `syncKnownFiles` or a search) are written by this sync.
  const unsavedAtStart = store.needsPersist;
  const kept = new Set<string>();
  let read = 0;
  let reindexed = 0;
  let unchanged = 0;
  let totalBytes = 0;
  let acceptedFiles = 0;
  let boundHit: 'files' | 'bytes' | undefined;
  const total = discovery.candidates.length;
  const batchSize = 250;
  // Verdicts read from the bytes of files left out, which stand while a file keeps its size and mtime.
  const excludedBefore = new Map(
    force
      ? []
      : store.catalog.storedExclusions().flatMap((exclusion) => (exclusion.bytes === undefined ? [] : [[exclusion.path, exclusion]])),
  );
  const keptVerdict = (index: number): StoredExclusion | undefined => {
    const { path: candidatePath, stat } = discovery.candidates[index];
    const verdict = excludedBefore.get(candidatePath);
    return verdict && verdict.bytes === stat.size && verdict.mtimeMs === stat.mtimeMs && !previous.has(candidatePath) ? verdict : undefined;
  };
  const needsRead = (index: number): boolean => {
    const { path: candidatePath, stat } = discovery.candidates[index];
    const before = previous.get(candidatePath);
    if (!before) return force || keptVerdict(index) === undefined;
    return force || before.mtimeMs !== stat.mtimeMs || before.bytes !== stat.size;
  };
  // A handful of files parse here faster than worker threads start, so only larger syncs use the pool.
  let toRead = 0;
  for (let index = 0; index < total; index++) if (needsRead(index)) toRead++;
  const analyzer = context.analyzer && toRead >= context.analyzer.minFiles ? context.analyzer : undefined;
  const large = toRead >= releaseThreshold;
  const releases = analyzer !== undefined && large;
  // Files are written out of candidate order only when no bound can be reached, so the same files are
  // kept; and whether or not workers run, so the rows (their ids too) never depend on the pool.
  let candidateBytes = 0;
  for (const candidate of discovery.candidates) candidateBytes += candidate.stat.size;
  const withinBounds = total <= options.bounds.maxFiles && candidateBytes <= options.bounds.maxTotalBytes;
  const deferred =
    large && withinBounds
      ? rareGrammarFiles(discovery.candidates, needsRead, toRead, (language) => context.parsers.grammarOf(language))
      : new Set<number>();
  // Set once the workers have stopped: the deferred files are then read and analyzed here, one at a time.
  let poolDone = false;
  // Each file read may delete its chunks and insert as many again.
  store.search.expectRows(2 * toRead * Math.max(1, store.search.documentCount() / Math.max(1, previous.size)));
  // Files read and sent to the pool before their turn; rows are still written in candidate order.
  const ahead = new Map<number, Promise<Examined>>();
  const examine = async (index: number, pooled: boolean): Promise<Examined> => {
    const candidate = discovery.candidates[index];
    const verdict = keptVerdict(index);
    if (verdict) return { opened: { kind: 'excluded', reason: verdict.reason, detail: verdict.detail, stat: candidate.stat } };
    try {
      // The rows read at the start are the stored ones: each path is written only at its own turn.
      const opened = openFile(context, candidate.path, candidate.stat, force, previous.get(candidate.path));
      if (opened.kind !== 'bytes' || !analyzer || !pooled) return { opened };
      return { opened, analysis: await analyzer.analyze(candidate.path, opened.bytes, opened.existing?.sha256, force) };
    } catch (error) {
      return { error };
    }
  };
  /**
   * Starts the files after `from` while each is sure to pass the bounds whatever the files
   * before it turn out to be, so reading ahead never reads a file the bounds would leave out.
   */
  const fillAhead = (from: number) => {
    if (!analyzer || poolDone) return;
    let files = acceptedFiles;
    let bytes = totalBytes;
    let jobs = 0;
    for (let index = from; index < total && index <= from + maxLookahead; index++) {
      files++;
      bytes += discovery.candidates[index].stat.size;
      if (files > options.bounds.maxFiles || bytes > options.bounds.maxTotalBytes) return;
      if (index === from || deferred.has(index)) continue;
      const reads = needsRead(index);
      if (reads && jobs >= analyzer.size * jobsPerWorker) return;
      if (!ahead.has(index)) ahead.set(index, examine(index, true));
      if (reads) jobs++;
    }
  };
  const indexCandidate = async (index: number) => {
    const candidate = discovery.candidates[index];
    const started = ahead.get(index);
    ahead.delete(index);
    if (acceptedFiles >= options.bounds.maxFiles) {
      boundHit ??= 'files';
      exclusions.push({ path: candidate.path, reason: 'bound-files' });
      return;
    }
    if (totalBytes + candidate.stat.size > options.bounds.maxTotalBytes) {
      boundHit ??= 'bytes';
      exclusions.push({ path: candidate.path, reason: 'bound-total-bytes' });
      return;
    }
    fillAhead(index);
    const git: FileGitInfo = {
      tracked: discovery.usedGit ? candidate.tracked : false,
      modified: discovery.usedGit ? !candidate.tracked || changed.has(candidate.path) : false,
      head: gitState.head,
    };
    let outcome: FileOutcome;
    try {
      const before = previous.get(candidate.path);
      // While the workers start, this thread analyzes the files whose turn comes before any worker took them.
      if (started) analyzer?.reclaim(candidate.path);
      const examined = await (started ?? examine(index, false));
      if ('error' in examined) throw examined.error;
      const { opened } = examined;
      // Whatever the pool did not analyze (a small sync, a crashed worker) is analyzed here, one file at a time.
      const analysis =
        examined.analysis ??
        (opened.kind === 'bytes'
          ? await analyzeFile(inlineAnalysis(context), candidate.path, opened.bytes, opened.existing?.sha256, force)
          : undefined);
      outcome = applyAnalysis(context, candidate.path, opened, git, analysis);
      // A file analyzed here while the pool runs is followed by one turn of the event loop: the
      // workers' messages (their ready signal first) are delivered only then, and without it this
      // thread went on parsing file after file itself, answering nothing, while the workers idled.
      if (analyzer && !examined.analysis) await new Promise<void>((resolve) => setImmediate(resolve));
      if (
        outcome.kind === 'indexed' &&
        (!before || before.mtimeMs !== candidate.stat.mtimeMs || before.bytes !== candidate.stat.size || force)
      )
        read++;
    } catch (error) {
      errors.push(`${candidate.path}: ${error instanceof Error ? error.message : String(error)}`);
      ports.log.error(`indexing ${candidate.path} failed`, error);
      return;
    }
    if (outcome.kind === 'indexed') {
      kept.add(candidate.path);
      acceptedFiles++;
      totalBytes += outcome.bytes;
      if (outcome.reindexed) reindexed++;
      else unchanged++;
    } else if (outcome.kind === 'excluded') {
      const { stat } = outcome;
      exclusions.push({ path: candidate.path, reason: outcome.reason, detail: outcome.detail, bytes: stat?.size, mtimeMs: stat?.mtimeMs });
    }
  };
  // Files are committed in batches (each file still atomic on its own, see IndexStore.batch).
  // Progress counts the deferred files only once they are written, so it reaches the total at the last one.
  let waiting = 0;
  for (let batchStart = 0; batchStart < total; batchStart += batchSize) {
    const batchEnd = Math.min(total, batchStart + batchSize);
    await store.batch(async () => {
      for (let index = batchStart; index < batchEnd; index++) {
        signal?.throwIfAborted();
        if (deferred.has(index)) waiting++;
        else await indexCandidate(index);
        if (index % 50 === 0 || index === total - 1) onProgress?.({ phase: 'indexing', done: index + 1 - waiting, total });
      }
    });
  }
  // A large sync's workers stop before the full-text merge and the save, the sync's own peak of memory,
  // instead of idling through them (each holds its heap and tree-sitter memory; the next large sync starts them again).
  if (releases) analyzer.release?.();
  // The rare grammars' files are parsed here now that the workers' memory is gone (`rareGrammarFiles`).
  poolDone = true;
  const late = [...deferred].sort((a, b) => a - b);
  for (let batchStart = 0; batchStart < late.length; batchStart += batchSize) {
    await store.batch(async () => {
      for (const index of late.slice(batchStart, batchStart + batchSize)) {
        signal?.throwIfAborted();
        await indexCandidate(index);
        waiting--;
        if (waiting % 50 === 0) onProgress?.({ phase: 'indexing', done: total - waiting, total });
      }
    });
  }
  if (boundHit === 'files') boundNotes.push(`Indexed the first ${options.bounds.maxFiles} files (bound maxFiles); the rest were left out.`);
  if (boundHit === 'bytes') boundNotes.push(`Stopped accepting files at ${options.bounds.maxTotalBytes} bytes (bound maxTotalBytes).`);
  let removed = 0;
  await store.batch(async () => {
    for (const stalePath of previous.keys()) {
      if (!kept.has(stalePath)) {
        store.removeFile(stalePath);
        removed++;
      }
    }
    store.replaceExclusions(exclusions);
  });
  // Large changes leave many index segments; merging them keeps the file small and queries fast.
  const fullTextMerge =
    reindexed + removed >= Math.max(optimizeThreshold, previous.size / 2) ? await mergeFullText(context, signal) : undefined;
  // The common words' counts stop being kept during a large change; they are built again here.
  store.search.refreshCommonTerms();
  if (options.semantic) await fillMissingEmbeddings(context);
  // The earlier commits of HEAD: only ancestors of the checkout, so a later fix is never evidence.
  const history = await syncHistory(store.history, { root: discovery.root, gitRoot: discovery.gitRoot, head: gitState.head }, ports);
  const durationMs = ports.clock.now() - started;
  const revisionBeforeState = store.revision;
  store.writeState({
    root: discovery.root,
    gitRoot: discovery.gitRoot ?? null,
    branch: gitState.branch,
    head: gitState.head,
    dirty: gitState.dirty,
    changedPaths: gitState.changedPaths,
    indexedAt: ports.clock.now(),
    syncMs: durationMs,
    usedGit: discovery.usedGit,
    boundNotes,
  });
  onProgress?.({ phase: 'saving', done: total, total });
  // A sync that changed no row and no git state only moved timestamps: writing the whole database
  // again for that would cost more than the sync itself.
  const gitChanged =
    previousState.head !== gitState.head ||
    previousState.branch !== gitState.branch ||
    previousState.dirty !== gitState.dirty ||
    previousState.changedPaths.join('\0') !== gitState.changedPaths.join('\0');
  if (revisionBeforeState !== revisionAtStart || unsavedAtStart || gitChanged || previousState.indexedAt === null || force) {
    if (persist) await store.persist();
  } else if (!unsavedAtStart) {
    store.keepPersisted();
  }
  const exclusionsByReason: Record<string, number> = {};
  for (const exclusion of exclusions) exclusionsByReason[exclusion.reason] = (exclusionsByReason[exclusion.reason] ?? 0) + 1;
  return {
    root: discovery.root,
    full: force,
    discovered: total,
    read,
    reindexed,
    unchanged,
    removed,
    excluded: exclusions.length,
    exclusionsByReason,
    boundNotes,
    durationMs,
    errors,
    ...(fullTextMerge ? { fullTextMerge } : {}),
    history,
  };
}
