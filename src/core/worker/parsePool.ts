import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { EngineOptions } from '../options';
import type { ParserRecipe } from '../parsing/chunkParser';
import type { Logger } from '../ports';
import type { FileAnalysis, FileAnalyzer } from '../fileAnalysis';

/** What a parse worker is started with (`workerData`). */
export interface ParseWorkerData {
  recipes: ParserRecipe[];
  projectId: string;
  options: EngineOptions;
}

/** One file for a worker: its bytes, read once by the sync, and the hash the index holds for it. */
export interface ParseJob {
  id: number;
  path: string;
  bytes: Uint8Array;
  knownHash: string | undefined;
  force: boolean;
}

/** `heapBytes`: the worker's tree-sitter WebAssembly memory after the file (`treeSitterHeapBytes`). */
export type ParseWorkerReply =
  | { type: 'ready'; version: string }
  | { type: 'done'; id: number; analysis: FileAnalysis; warnings: string[]; heapBytes?: number }
  | { type: 'failed'; id: number; message: string; warnings: string[]; heapBytes?: number };

export interface ParsePoolOptions {
  recipes: ParserRecipe[];
  /** The calling thread's `ParserChain.version`: a worker whose chain differs is not used. */
  chainVersion: string;
  projectId: string;
  options: EngineOptions;
  log: Logger;
  /** Worker threads (default: the cores `os.availableParallelism()` reports, at most 8). */
  size?: number;
  /** The worker's script (default: `parseWorker.js` beside this module, in `dist/` when bundled). */
  script?: string;
  /** Syncs reading fewer files stay inline (default 24): starting a worker costs about as much as parsing that many. */
  minFiles?: number;
  /** Idle workers stop after this long (default 30 s); the next large sync starts them again. */
  idleMs?: number;
  /** Whether `reclaim` takes back files no worker has started (default true; tests turn it off to send every file to the workers). */
  reclaim?: boolean;
  /** A file a worker has not answered for this long is parsed inline and the worker replaced (default 120 s). */
  jobTimeoutMs?: number;
  /**
   * A worker that has not reported ready this long after it was started is replaced (default 120 s).
   * Kept apart from `jobTimeoutMs`: a start loads the runtime and grammars, and on a busy machine takes
   * far longer than one file, so a short job bound must not count slow starts as lost workers.
   */
  startTimeoutMs?: number;
  /**
   * A worker whose tree-sitter memory grew past this many bytes (default 64 MiB, twice what the
   * runtime starts with and every grammar fits in) takes no more files and is replaced once its
   * files are answered: that memory never shrinks, and one dense file of a megabyte grows it to 95 MB.
   */
  recycleHeapBytes?: number;
  /**
   * Each worker's old generation bound in MB (default 256). V8 otherwise sizes it by the machine's
   * memory and lets a worker's heap grow long before collecting it; a worker that passes the bound
   * stops with an out-of-memory error, and its files are parsed inline as for any lost worker.
   */
  maxOldGenerationMb?: number;
}

/** Worker crashes after which the pool stops starting workers and every file is parsed inline. */
const maxCrashes = 3;

/**
 * Each worker's young generation (V8 sizes the default by the machine's memory). A file's analysis makes
 * megabytes of short-lived garbage that a smaller nursery collects as often, without growing the
 * heap: on the 1,000-file bench corpus, two workers alone peaked at 226 MB RSS by default, 197 MB at 16,
 * 181 MB at 8 and 172 MB at 4, for the same CPU seconds (23.0, 22.6, 23.0, 23.5).
 */
const workerYoungGenerationMb = 8;

const defaultRecycleHeapBytes = 64 * 1024 * 1024;

/** Far above what one file's analysis holds, low enough that the heap is collected before it grows large. */
const defaultWorkerOldGenerationMb = 256;

interface PendingJob {
  job: ParseJob;
  resolve: (analysis: FileAnalysis | undefined) => void;
}

interface PoolWorker {
  worker: Worker;
  ready: boolean;
  /** Past `recycleHeapBytes`: it gets no new files and stops when its last one is answered. */
  retiring: boolean;
  jobs: Map<number, PendingJob>;
  timer?: NodeJS.Timeout;
}

/** The bundled worker sits in `dist/` beside the bundle; the compiled one beside this module. */
export function defaultParseWorkerScript(): string | undefined {
  const candidates = [path.join(__dirname, 'parseWorker.js'), path.join(__dirname, 'worker', 'parseWorker.js')];
  return candidates.find((candidate) => fs.existsSync(candidate));
}

/**
 * Worker threads that turn file bytes into rows (`analyzeFile`) while the sync's thread reads
 * files and writes rows in order. Every failure declines instead of throwing: a worker that
 * crashes, stops answering or runs a different parser chain leaves its files to the inline path,
 * with one line on the log, so a sync never waits on a dead worker.
 */
export class ParsePool implements FileAnalyzer {
  readonly size: number;
  readonly minFiles: number;
  analyzed = 0;
  /** Files taken back by `reclaim` and analyzed by the caller. */
  reclaimed = 0;
  /** Workers replaced because their tree-sitter memory passed `recycleHeapBytes`. */
  recycled = 0;
  private readonly script: string | undefined;
  private readonly workers: PoolWorker[] = [];
  private readonly queue: PendingJob[] = [];
  private nextId = 0;
  private crashes = 0;
  private disabled: string | undefined;
  private idleTimer: NodeJS.Timeout | undefined;

  constructor(private readonly settings: ParsePoolOptions) {
    this.size = Math.max(1, Math.floor(settings.size ?? Math.min(8, os.availableParallelism())));
    this.minFiles = settings.minFiles ?? 24;
    this.script = settings.script ?? defaultParseWorkerScript();
    if (!this.script) this.disabled = 'no parse worker script was found';
  }

  /** Whether the pool still takes files (false after repeated crashes, a version mismatch or `dispose`). */
  get available(): boolean {
    return this.disabled === undefined;
  }

  /** Threads currently running (for tests and the bench). */
  get running(): number {
    return this.workers.length;
  }

  analyze(relativePath: string, bytes: Uint8Array, knownHash: string | undefined, force: boolean): Promise<FileAnalysis | undefined> {
    if (this.disabled) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      this.queue.push({ job: { id: ++this.nextId, path: relativePath, bytes, knownHash, force }, resolve });
      this.pump();
    });
  }

  /**
   * Takes back a file no worker has started (all are still starting, or were lost): it resolves
   * `undefined` and the caller analyzes it itself instead of waiting.
   */
  reclaim(relativePath: string): boolean {
    if (this.settings.reclaim === false) return false;
    const index = this.queue.findIndex((pending) => pending.job.path === relativePath);
    if (index < 0) return false;
    const [pending] = this.queue.splice(index, 1);
    this.reclaimed++;
    pending.resolve(undefined);
    return true;
  }

  /**
   * Stops the workers now if none holds a file, as the idle timer would later: a large sync calls it
   * after its last file, so the full-text merge and the save (the sync's highest memory) run without
   * the workers' heaps and tree-sitter memory. The pool stays usable; `analyze` starts workers again.
   */
  release(): void {
    if (this.queue.length === 0 && this.busyJobs() === 0) this.stopAll();
  }

  /** Stops every worker; their files resolve to `undefined` (inline). */
  dispose(): void {
    this.disabled ??= 'the pool was closed';
    this.stopAll();
  }

  private pump(): void {
    clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    while (!this.disabled && this.workers.length < Math.min(this.size, this.queue.length + this.busyJobs())) this.start();
    for (const entry of this.workers) {
      while (entry.ready && !entry.retiring && entry.jobs.size < 2 && this.queue.length > 0)
        this.send(entry, this.queue.shift() as PendingJob);
    }
    if (this.queue.length === 0 && this.busyJobs() === 0 && this.workers.length > 0) {
      this.idleTimer = setTimeout(() => this.stopAll(), this.settings.idleMs ?? 30_000);
      this.idleTimer.unref();
    }
  }

  private busyJobs(): number {
    return this.workers.reduce((sum, entry) => sum + entry.jobs.size, 0);
  }

  private start(): void {
    const { recipes, projectId, options } = this.settings;
    const data: ParseWorkerData = { recipes, projectId, options };
    let worker: Worker;
    try {
      worker = new Worker(this.script as string, {
        workerData: data,
        resourceLimits: {
          maxYoungGenerationSizeMb: workerYoungGenerationMb,
          maxOldGenerationSizeMb: this.settings.maxOldGenerationMb ?? defaultWorkerOldGenerationMb,
        },
      });
    } catch (error) {
      this.disable(`parse workers cannot start (${describe(error)}); parsing on this thread`);
      return;
    }
    const entry: PoolWorker = { worker, ready: false, retiring: false, jobs: new Map() };
    this.workers.push(entry);
    worker.unref();
    worker.on('message', (message: ParseWorkerReply) => this.receive(entry, message));
    worker.on('error', (error) => this.lost(entry, `failed (${describe(error)})`));
    worker.on('exit', (code) => this.lost(entry, `exited with code ${code}`));
    // A worker that never reports ready would hold the queued files forever.
    entry.timer = setTimeout(() => {
      this.lost(entry, 'did not start in time');
      void worker.terminate();
    }, this.settings.startTimeoutMs ?? 120_000);
  }

  private receive(entry: PoolWorker, message: ParseWorkerReply): void {
    if (message.type === 'ready') {
      if (message.version !== this.settings.chainVersion) {
        this.disable(
          `a parse worker's parsers (${message.version}) differ from this thread's (${this.settings.chainVersion}); parsing here`,
        );
        return;
      }
      entry.ready = true;
      this.armTimer(entry);
      this.pump();
      return;
    }
    const pending = entry.jobs.get(message.id);
    if (!pending) return;
    entry.jobs.delete(message.id);
    for (const warning of message.warnings) this.settings.log.warn(warning);
    if (message.type === 'done') {
      this.analyzed++;
      pending.resolve(message.analysis);
    } else {
      this.settings.log.warn(`parse worker could not analyze ${pending.job.path} (${message.message}); parsing it here`);
      pending.resolve(undefined);
    }
    if ((message.heapBytes ?? 0) > (this.settings.recycleHeapBytes ?? defaultRecycleHeapBytes)) entry.retiring = true;
    this.armTimer(entry);
    if (entry.retiring && entry.jobs.size === 0) this.retire(entry);
    this.pump();
  }

  /** Stops a worker whose memory grew too large; `pump` starts a fresh one if files are waiting. */
  private retire(entry: PoolWorker): void {
    const index = this.workers.indexOf(entry);
    if (index < 0) return;
    this.workers.splice(index, 1);
    clearTimeout(entry.timer);
    this.recycled++;
    // Removed from `workers` first, so its exit is not taken for a crash (`lost` ignores it).
    void entry.worker.terminate();
  }

  private send(entry: PoolWorker, pending: PendingJob): void {
    entry.jobs.set(pending.job.id, pending);
    if (entry.jobs.size === 1) entry.worker.ref();
    // Copied, not moved: should the worker fail, the inline path needs the same bytes.
    entry.worker.postMessage(pending.job);
    this.armTimer(entry);
  }

  /** A worker holding files gets `jobTimeoutMs` for the oldest; past it, its files go inline and it is replaced. */
  private armTimer(entry: PoolWorker): void {
    clearTimeout(entry.timer);
    entry.timer = undefined;
    if (entry.jobs.size === 0) {
      entry.worker.unref();
      return;
    }
    entry.timer = setTimeout(() => {
      const first = entry.jobs.values().next().value;
      this.lost(entry, `did not answer for ${first?.job.path ?? 'a file'} in time`);
      void entry.worker.terminate();
    }, this.settings.jobTimeoutMs ?? 120_000);
  }

  /** A worker is gone: its files go inline, it is replaced on demand, and repeated losses disable the pool. */
  private lost(entry: PoolWorker, how: string): void {
    const index = this.workers.indexOf(entry);
    if (index < 0) return;
    this.workers.splice(index, 1);
    clearTimeout(entry.timer);
    const stranded = [...entry.jobs.values()];
    entry.jobs.clear();
    if (stranded.length > 0 || !entry.ready) {
      this.crashes++;
      const files = stranded.map((pending) => pending.job.path).join(', ');
      this.settings.log.warn(`parse worker ${how}${files ? ` while parsing ${files}` : ''}; parsing ${files ? 'them' : 'its files'} here`);
    }
    for (const pending of stranded) pending.resolve(undefined);
    if (this.crashes >= maxCrashes) this.disable(`parse workers failed ${this.crashes} times; parsing on this thread`);
    else if (!this.disabled) this.pump();
  }

  private disable(reason: string): void {
    if (this.disabled) return;
    this.disabled = reason;
    this.settings.log.warn(reason);
    this.stopAll();
  }

  private stopAll(): void {
    clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    const workers = this.workers.splice(0);
    for (const entry of workers) {
      clearTimeout(entry.timer);
      for (const pending of entry.jobs.values()) pending.resolve(undefined);
      entry.jobs.clear();
      void entry.worker.terminate();
    }
    if (this.disabled) for (const pending of this.queue.splice(0)) pending.resolve(undefined);
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message.split('\n')[0] : String(error);
}
