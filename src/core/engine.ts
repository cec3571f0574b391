import { canonicalRoot } from './discovery';
import { projectIdOf } from './hashing';
import { formatHealth, healthOf, type Health } from './health';
import { resolveOptions, type EngineOptions, type IndexBounds } from './options';
import type { ChunkParser } from './parsing/chunkParser';
import { ParserChain } from './parsing/parserChain';
import { projectSegments } from './containedRead';
import { classifyPath } from './exclusion/pathRules';
import type { EnginePorts } from './ports';
import { quotedDataPreamble } from './retrieval/prompt';
import type { Retrieval, RetrieveOptions } from './retrieval/retrieve';
import { summarizeManifest } from './retrieval/manifest';
import type { Embedder } from './retrieval/vectors';
import { IndexStore, type StoreOpenOptions, type SymbolRow } from './store';
import {
  readIndexable,
  syncKnownFiles,
  syncProject,
  type FileAnalyzer,
  type SyncProgress,
  type SyncReport,
  type SyncContext,
} from './sync';
import { displayText } from './safeText';
import { splitLines } from './tokens';
import { NavigationInputError } from './navigation/inputError';
import { ParsePool, type ParsePoolOptions } from './worker/parsePool';
import { findReferences, type ReferencesInput, type ReferencesResult } from './navigation/references';
import {
  findSymbol,
  outline,
  type FindSymbolInput,
  type FindSymbolResult,
  type OutlineInput,
  type OutlineResult,
} from './navigation/symbols';
import { resyncOne } from './sync';
import { ProjectCuration } from './curation/curation';
import { CurationInputError } from './curation/errors';
import { curatedBlocks, curatedRetrieve, type CuratedRetrieval } from './curation/context';
import { CurationLog, curationLogPathFor, rankerPathFor } from './curation/log';
import type { RankingMode } from './curation/ranker';
import { runCuration, type CurationOp, type CurationOps } from './curation/requests';

export interface OpenEngineOptions {
  root: string;
  /** Where the database is persisted; undefined keeps it in memory only. */
  dbPath?: string;
  options?: Partial<Omit<EngineOptions, 'bounds'>> & { bounds?: Partial<IndexBounds> };
  /** Structural parsers tried before text windows, in order. */
  parsers?: ChunkParser[];
  ports: EnginePorts;
  /** Hybrid mode's embedding function (default: the local feature hasher); tests inject failing ones. */
  embedder?: Embedder;
  /** How long a save waits for another writer's lock on the database (default two minutes). */
  lockTimeoutMs?: number;
  /** Bytes of written database pages kept in memory between saves before they spill to a file beside the database (default 16 MiB). */
  residentBytes?: number;
  /**
   * Large syncs parse in worker threads when every parser can be built there (`ParserChain.recipes`);
   * `false` keeps all parsing on the engine's thread. The defaults suit the CLI and the extension.
   */
  parsePool?:
    | false
    | Partial<
        Pick<
          ParsePoolOptions,
          | 'size'
          | 'script'
          | 'minFiles'
          | 'idleMs'
          | 'jobTimeoutMs'
          | 'startTimeoutMs'
          | 'reclaim'
          | 'recycleHeapBytes'
          | 'maxOldGenerationMb'
        >
      >;
  /** Pins, memory and labels: the log (default beside `dbPath`; none for an in-memory index) and the ranking mode. */
  curation?: { logPath?: string; rankingMode?: RankingMode };
}

/** Syncs again after another writer replaced the database at most this many times before giving up. */
const maxReloads = 5;

/** Raised for bad user input (citations, arguments); its message is one line for the user. */
export class UserInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UserInputError';
  }
}

export interface ParsedCitation {
  path: string;
  startLine: number;
  endLine: number;
  sha256?: string;
}

export function parseCitation(citation: string): ParsedCitation {
  const match = citation.match(/^(.+?)#L(\d+)(?:-L?(\d+))?(?:@([0-9a-fA-F]{64}))?$/);
  if (!match) throw new UserInputError(`Not a citation: ${citation} (expected PATH#L<start>-L<end>@<sha256>)`);
  const startLine = Number(match[2]);
  const endLine = Number(match[3] ?? match[2]);
  if (startLine < 1 || endLine < startLine) throw new UserInputError(`Invalid line range in citation: ${citation}`);
  return { path: match[1].replace(/\\/g, '/').replace(/^\.\//, ''), startLine, endLine, sha256: match[4]?.toLowerCase() };
}

/** One indexed file of the tree view. */
export interface TreeFile {
  path: string;
  language: string;
  modified: boolean;
  parser: string;
  sha256: string;
}

/** A declaration or snippet of one file (never its source text). */
export interface TreeItem {
  id: string;
  label: string;
  kind: string;
  startLine: number;
  endLine: number;
  sha256: string;
}

/** The cited lines `read` returns, with the indexed file's working-tree state for the quoted block. */
export interface ReadSnippet {
  path: string;
  startLine: number;
  endLine: number;
  sha256: string;
  text: string;
  modified: boolean;
  gitHead: string | null;
}

export interface ContextBlocks {
  preamble: string;
  blocks: string[];
  /**
   * The manifest `snippetId` of each block, in the order of `blocks` (pins, memory, then source):
   * a pin's or a source snippet's id in `retrieval.results`, a memory item's id in `retrieval.memory`.
   */
  blockIds: string[];
  summary: string;
  retrieval: CuratedRetrieval;
}

/** What one `syncChanges` did: the edited paths alone (`quick`) or a discovery sync with its report. */
export interface SyncOutcome {
  path: 'quick' | 'discovery';
  /** Files re-indexed or removed. */
  changed: number;
  report: SyncReport | null;
  /** Whether changes are still waiting to be written to the database (`persist: false`, or nothing asked). */
  unsaved: boolean;
}

/** An operation waiting in the engine's queue; `runEarly` only for one that may run between the steps of a sync's merge. */
interface WaitingOperation {
  runEarly?: () => Promise<void>;
}

/** At most this many edited paths are re-indexed alone; more run discovery, which then costs less than each file alone. */
const maxQuickPaths = 64;

/**
 * One project's index: the only object the CLI and the extension talk to. It serializes its
 * own operations so a sync and a query never interleave on the same database.
 */
export class ProjectEngine {
  private queue: Promise<unknown> = Promise.resolve();
  /** Operations queued and not yet started, in order (see `interleaveWaiting`). */
  private readonly waiting: WaitingOperation[] = [];
  private lastErrors: string[] = [];

  private constructor(
    private readonly project: SyncContext,
    readonly dbPath: string | undefined,
    readonly openNote: string | undefined,
    readonly loadedFromDisk: boolean,
    private readonly storeOptions: StoreOpenOptions,
    private readonly curation: ProjectCuration,
  ) {
    project.interleave = () => this.interleaveWaiting();
  }

  static async open(input: OpenEngineOptions): Promise<ProjectEngine> {
    const root = await canonicalRoot(input.root, input.ports);
    const options = resolveOptions(input.options);
    const storeOptions: StoreOpenOptions = { lockTimeoutMs: input.lockTimeoutMs, residentBytes: input.residentBytes };
    const opened = await IndexStore.open(input.dbPath, root, input.ports, storeOptions);
    const { store, discardedReason, loaded } = opened;
    const projectId = projectIdOf(root);
    const parsers = new ParserChain(input.parsers ?? []);
    const recipes = parsers.recipes();
    const analyzer =
      input.parsePool === false || !recipes
        ? undefined
        : new ParsePool({ ...input.parsePool, recipes, chainVersion: parsers.version, projectId, options, log: input.ports.log });
    const context: SyncContext = { root, projectId, options, ports: input.ports, store, parsers, embedder: input.embedder, analyzer };
    const logPath = input.curation?.logPath ?? (input.dbPath ? curationLogPathFor(input.dbPath) : undefined);
    const log = new CurationLog(logPath, input.ports.log);
    const curation = new ProjectCuration(log, context.projectId, logPath && rankerPathFor(logPath), input.curation?.rankingMode, () =>
      input.ports.clock.now(),
    );
    // The curation tables are a projection of the log: built into every store this engine opens.
    curation.attach(store);
    return new ProjectEngine(context, input.dbPath, discardedReason, loaded, storeOptions, curation);
  }

  /**
   * A sync whose save found the database replaced by another writer (`supersededOnDisk`) is not
   * saved over it: the engine reads that writer's index and syncs the live files into it again,
   * so both writers' work survives (see ARCHITECTURE.md, "The database file").
   */
  private async syncOverOtherWriters(
    full: boolean,
    options: { onProgress?: (progress: SyncProgress) => void; signal?: AbortSignal; persist?: boolean },
  ): Promise<SyncReport> {
    const persist = options.persist !== false;
    for (let reloads = 0; ; reloads++) {
      const report = await syncProject(this.project, full, options.onProgress, options.signal, persist);
      if (!persist || !this.project.store.supersededOnDisk) return report;
      if (reloads === maxReloads) throw new Error(`The index ${this.dbPath} kept being replaced by other writers; this sync is not saved.`);
      this.project.ports.log.info(`Another process wrote ${this.dbPath}; reading it and syncing again.`);
      await this.reopenStore();
    }
  }

  /** Replaces the store with one opened from the database file again (another process wrote it). */
  private async reopenStore(): Promise<void> {
    const { store } = await IndexStore.open(this.dbPath, this.project.root, this.project.ports, this.storeOptions);
    this.project.store.close();
    this.project.store = store;
    this.curation.attach(store);
  }

  get root(): string {
    return this.project.root;
  }

  get options(): EngineOptions {
    return this.project.options;
  }

  /**
   * Runs `work` after the operations before it. A store whose database file another process
   * saved pages into since it was opened stops reading it (`IndexStore.staleOnDisk`): the work
   * that found out is run once more on the file opened again.
   */
  private serialize<T>(work: () => Promise<T>, interleavable = false): Promise<T> {
    const entry: WaitingOperation = {};
    const run = async (): Promise<T> => {
      // An answer given while the store went stale may lack what the failed reads held, so it is not kept either.
      try {
        const result = await work();
        if (this.project.store.staleOnDisk === undefined) return result;
      } catch (error) {
        if (this.project.store.staleOnDisk === undefined) throw error;
      }
      this.project.ports.log.info(`Reading ${this.dbPath} again: ${this.project.store.staleOnDisk}.`);
      await this.reopenStore();
      return work();
    };
    if (!interleavable) {
      this.waiting.push(entry);
      const next = this.queue.then(
        () => (this.leave(entry), run()),
        () => (this.leave(entry), run()),
      );
      this.queue = next.catch(() => undefined);
      return next;
    }
    return new Promise<T>((resolve, reject) => {
      let answered = false;
      // Run early, between the steps of a sync's merge (`interleaveWaiting`): its answer stands
      // unless the store went stale meanwhile, when its turn in the queue runs it again.
      entry.runEarly = async () => {
        try {
          const value = await work();
          if (this.project.store.staleOnDisk !== undefined) return;
          answered = true;
          resolve(value);
        } catch (error) {
          if (this.project.store.staleOnDisk !== undefined) return;
          answered = true;
          reject(error instanceof Error ? error : new Error(String(error)));
        }
      };
      this.waiting.push(entry);
      const turn = async () => {
        this.leave(entry);
        if (!answered) await run().then(resolve, reject);
      };
      this.queue = this.queue.then(turn, turn).catch(() => undefined);
    });
  }

  private leave(entry: WaitingOperation): void {
    const index = this.waiting.indexOf(entry);
    if (index >= 0) this.waiting.splice(index, 1);
  }

  /**
   * Runs, in their order, the operations queued behind the running one that only read (searches,
   * lookups), up to the first that is not (a sync, a close): the running sync calls it between the
   * steps of its full-text merge (`SyncContext.interleave`), where the index is whole and no
   * transaction is open. A store gone stale on disk is left to the queue, which opens it again.
   */
  private async interleaveWaiting(): Promise<void> {
    while (this.project.store.staleOnDisk === undefined) {
      const entry = this.waiting[0];
      if (!entry?.runEarly) return;
      this.leave(entry);
      await entry.runEarly();
    }
  }

  /** A sync; `persist: false` leaves the database unwritten until the next sync or close (see `syncProject`). */
  sync(
    options: { full?: boolean; onProgress?: (progress: SyncProgress) => void; signal?: AbortSignal; persist?: boolean } = {},
  ): Promise<SyncReport> {
    return this.serialize(async () => {
      try {
        const report = await this.syncOverOtherWriters(options.full === true, options);
        this.lastErrors = report.errors.slice(-10);
        return report;
      } catch (error) {
        this.lastErrors.push(error instanceof Error ? error.message : String(error));
        throw error;
      }
    });
  }

  /**
   * The extension's one sync. Edited `paths` the index already holds are re-indexed alone, in
   * milliseconds; no paths, too many, `full`, or a path discovery must judge (new, an ignore file)
   * run the discovery sync. `persist: false` leaves the database unwritten for the next sync or close.
   */
  async syncChanges(options: {
    paths?: string[];
    full?: boolean;
    persist: boolean;
    onProgress?: (progress: SyncProgress) => void;
    signal?: AbortSignal;
  }): Promise<SyncOutcome> {
    const { paths, full, persist } = options;
    if (paths && paths.length > 0 && paths.length <= maxQuickPaths && full !== true) {
      const quick = await this.syncKnownFiles(paths);
      if (quick) {
        const saved = persist && (await this.serialize(() => this.project.store.persist()));
        // A database another writer replaced is merged by the discovery sync, as for any sync.
        if (persist && !saved && this.project.store.supersededOnDisk) return this.discoverySync(options);
        return { path: 'quick', changed: quick.reindexed + quick.removed, report: null, unsaved: this.unsaved };
      }
    }
    return this.discoverySync(options);
  }

  private async discoverySync(options: Parameters<ProjectEngine['syncChanges']>[0]): Promise<SyncOutcome> {
    const report = await this.sync(options);
    return { path: 'discovery', changed: report.reindexed + report.removed, report, unsaved: this.unsaved };
  }

  /** Changes not yet written to the database file (never true for an index kept in memory). */
  private get unsaved(): boolean {
    return this.dbPath !== undefined && this.project.store.needsPersist;
  }

  /** Re-indexes edited files the index already holds, without discovery; undefined when an incremental sync must decide (see `syncKnownFiles`). */
  syncKnownFiles(paths: string[]): Promise<{ reindexed: number; removed: number } | undefined> {
    return this.serialize(() => syncKnownFiles(this.project, paths));
  }

  search(query: string, options: RetrieveOptions = {}): Promise<Retrieval> {
    return this.serialize(() => curatedRetrieve(this.project, this.curation, query, options), true);
  }

  /** The quoted-source blocks a model would receive for `query`, and the manifest summary. */
  async context(query: string, options: RetrieveOptions = {}): Promise<ContextBlocks> {
    const retrieval = await this.serialize(() => curatedRetrieve(this.project, this.curation, query, options), true);
    const { blocks, ids } = curatedBlocks(retrieval);
    return { preamble: quotedDataPreamble, blocks, blockIds: ids, summary: summarizeManifest(retrieval.manifest), retrieval };
  }

  /** Pins, memory, feedback labels and the learned ranker (`curation/requests.ts`); refusals are `UserInputError`s. */
  curate<N extends CurationOp>(op: N, params: CurationOps[N]['params']): Promise<CurationOps[N]['result']> {
    return this.serialize(async () => {
      try {
        return await runCuration(this.project, this.curation, op, params);
      } catch (error) {
        if (error instanceof CurationInputError) throw new UserInputError(error.message);
        throw error;
      }
    });
  }

  symbols(): Promise<SymbolRow[]> {
    return this.serialize(async () => this.project.store.chunks.symbols(), true);
  }

  /**
   * The cited lines of the live file. Only a path the index holds as current is served, and only
   * after the live checks of a sync pass again (contained, regular file, size, text, no secret),
   * with or without a cited hash; a cited hash must equal the live one. Anything else is a
   * one-line refusal naming the reason.
   */
  get(citation: string): Promise<{ path: string; startLine: number; endLine: number; sha256: string; text: string }> {
    return this.serialize(async () => {
      const parsed = parseCitation(citation);
      const shown = displayText(parsed.path);
      this.refuseUnindexed(parsed.path, shown);
      const read = readIndexable(this.project, parsed.path);
      if (read.kind === 'vanished') throw new UserInputError(`The file ${shown} no longer exists.`);
      if (read.kind === 'excluded') {
        throw new UserInputError(`The file ${shown} is not served: ${read.reason}${read.detail ? ` (${displayText(read.detail)})` : ''}.`);
      }
      const { sha256 } = read;
      if (parsed.sha256 && parsed.sha256 !== sha256) {
        throw new UserInputError(`The file ${shown} changed since it was cited (live SHA-256 ${sha256}).`);
      }
      const lines = splitLines(read.text.replace(/^\uFEFF/, ''));
      if (parsed.startLine > lines.length) throw new UserInputError(`${shown} has only ${lines.length} lines.`);
      const endLine = Math.min(parsed.endLine, lines.length);
      return {
        path: parsed.path,
        startLine: parsed.startLine,
        endLine,
        sha256,
        text: lines.slice(parsed.startLine - 1, endLine).join('\n'),
      };
    });
  }

  /** Throws unless the index holds `relativePath` as a current, not excluded file. */
  private refuseUnindexed(relativePath: string, shown: string): void {
    try {
      projectSegments(relativePath);
    } catch {
      throw new UserInputError(`The path ${shown} is outside the project.`);
    }
    const { store } = this.project;
    const segments = relativePath.split('/');
    // A walk without git records a whole excluded folder once, as `dir/`; a linked folder is recorded as `dir` (a symlink).
    const ancestors = segments.slice(0, -1).map((_, index) => segments.slice(0, index + 1).join('/'));
    const recorded = [relativePath, ...ancestors.flatMap((ancestor) => [ancestor, `${ancestor}/`])]
      .map((entry) => store.catalog.exclusion(entry))
      .find((entry) => entry !== undefined);
    if (recorded) throw new UserInputError(`The file ${shown} is excluded from the index (${recorded.reason}).`);
    const rule = classifyPath(relativePath);
    if (rule) throw new UserInputError(`The file ${shown} is never indexed (${rule}).`);
    if (!store.catalog.file(relativePath)) {
      throw new UserInputError(`The file ${shown} is not in the index (ignored, never discovered, or new since the last sync).`);
    }
  }

  /** Indexed files for the tree view, sorted by path. */
  files(): Promise<TreeFile[]> {
    return this.serialize(async () =>
      [...this.project.store.catalog.files().values()]
        .map((file) => ({ path: file.path, language: file.language, modified: file.modified, parser: file.parser, sha256: file.sha256 }))
        .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)),
    );
  }

  /** Declarations of one file (first part of each), or its windows when it has none. */
  fileItems(relativePath: string): Promise<TreeItem[]> {
    return this.serialize(async () => {
      const rows = this.project.store.chunks.currentSnippets(relativePath);
      const declarations = new Map<string, TreeItem>();
      for (const row of rows) {
        if (!row.symbolId || declarations.has(row.symbolId)) continue;
        declarations.set(row.symbolId, {
          id: row.symbolId,
          label: row.qualifiedName ?? row.name ?? '',
          kind: row.kind ?? 'symbol',
          startLine: row.symbolStart ?? row.startLine,
          endLine: row.symbolEnd ?? row.endLine,
          sha256: row.fileHash,
        });
      }
      if (declarations.size > 0)
        return [...declarations.values()].sort((a, b) => a.startLine - b.startLine || (a.label < b.label ? -1 : 1));
      return rows.map((row) => ({
        id: row.id,
        label: `Lines ${row.startLine}-${row.endLine}`,
        kind: 'window',
        startLine: row.startLine,
        endLine: row.endLine,
        sha256: row.fileHash,
      }));
    });
  }

  /** Declarations by exact qualified or simple name (SPEC §14 `find_symbol`), each live-hash verified. */
  findSymbol(input: FindSymbolInput): Promise<FindSymbolResult> {
    return this.serialize(() => asUserInput(() => findSymbol(this.project, input)), true);
  }

  /** The uses of a symbol with their callers, `extracted` or `name-match`, tests apart; every file read live. */
  references(input: ReferencesInput): Promise<ReferencesResult> {
    return this.serialize(() => asUserInput(() => findReferences(this.project, input)), true);
  }

  /** A file's declarations, or a folder's files and top-level declarations, within a token budget. */
  outline(input: OutlineInput): Promise<OutlineResult> {
    return this.serialize(() => asUserInput(() => outline(this.project, input)), true);
  }

  /**
   * `get`, limited to files the index holds as current: a file the index does not hold is
   * refused, and one edited since it was indexed is re-indexed first, so what is read is what
   * search would return.
   */
  async read(citation: string): Promise<ReadSnippet> {
    const snippet = await this.get(citation);
    return this.serialize(async () => {
      let indexed = this.project.store.catalog.file(snippet.path);
      if (!indexed) throw new UserInputError(`The file ${snippet.path} is not in the index.`);
      if (indexed.sha256 !== snippet.sha256) {
        await resyncOne(this.project, snippet.path);
        indexed = this.project.store.catalog.file(snippet.path);
      }
      if (indexed?.sha256 !== snippet.sha256) {
        throw new UserInputError(`The file ${snippet.path} changed while it was read; read it again.`);
      }
      return { ...snippet, modified: indexed.modified, gitHead: indexed.gitHead };
    });
  }

  health(): Promise<Health> {
    return this.serialize(async () => ({
      ...healthOf(this.project.store, this.project.root, this.dbPath, this.lastErrors, false),
      curation: this.curation.health(),
    }));
  }

  formatHealth(health: Health): string {
    return formatHealth(health);
  }

  /**
   * Persists pending changes and frees the database. Changes another writer's newer file
   * supersedes are dropped, not saved over it: they are derived from the live files, which the
   * next sync reads again.
   */
  async close(): Promise<void> {
    await this.serialize(async () => {
      await this.project.store.persist();
      this.project.store.close();
      this.project.parsers.dispose();
      this.project.analyzer?.dispose?.();
    });
  }

  /** For tests and benchmarks: what parses large syncs off this thread (the parse pool), if anything. */
  get analyzer(): FileAnalyzer | undefined {
    return this.project.analyzer;
  }

  /** For tests and benchmarks: the store behind the engine. */
  get store(): IndexStore {
    return this.project.store;
  }
}

/** Runs a navigation query, turning its input errors into the engine's `UserInputError`. */
async function asUserInput<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof NavigationInputError) throw new UserInputError(error.message);
    throw error;
  }
}
