import { Worker } from 'node:worker_threads';
import type { SyncProgress } from '../sync';
import type { RequestMap, RequestName, WorkerMessage } from './protocol';

/** An error raised inside the worker, rebuilt on the calling side with its name. */
export class EngineError extends Error {
  constructor(
    message: string,
    readonly remoteName: string,
  ) {
    super(message);
    this.name = 'EngineError';
  }
}

export interface EngineClientEvents {
  onProgress?: (projectKey: string, progress: SyncProgress) => void;
  onLog?: (level: 'info' | 'warn' | 'error', message: string) => void;
  onExit?: (code: number) => void;
}

/**
 * The engine worker's young generation (V8 sizes the default by the machine's memory): while
 * indexing, the rows a batch stages survive scavenges and V8 grows its new space up to 32 MB. The
 * cold index of the 1,000-file bench corpus by this worker peaked at 280 and 285 MB by default,
 * 258 and 264 MB at 8, in 21.2 / 22.3 against 19.0 / 20.3 CPU-s (two passes each, load 6-7).
 */
const engineYoungGenerationMb = 8;

/**
 * Talks to the engine worker with typed requests. The worker starts on the first request, so a
 * client that is never used (an untrusted workspace) costs nothing and touches nothing.
 */
export class EngineClient {
  private worker: Worker | undefined;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  private disposed = false;

  constructor(
    private readonly workerScript: string,
    private readonly events: EngineClientEvents = {},
  ) {}

  get started(): boolean {
    return this.worker !== undefined;
  }

  private ensureWorker(): Worker {
    if (this.disposed) throw new Error('The engine client was disposed.');
    if (this.worker) return this.worker;
    const worker = new Worker(this.workerScript, { resourceLimits: { maxYoungGenerationSizeMb: engineYoungGenerationMb } });
    worker.on('message', (message: WorkerMessage) => this.receive(message));
    worker.on('error', (error) => this.failAll(error));
    worker.on('exit', (code) => {
      this.worker = undefined;
      this.failAll(new Error(`The indexing worker stopped (exit code ${code}).`));
      this.events.onExit?.(code);
    });
    this.worker = worker;
    return worker;
  }

  private receive(message: WorkerMessage): void {
    if (message.type === 'progress') {
      this.events.onProgress?.(message.projectKey, message.progress);
    } else if (message.type === 'log') {
      this.events.onLog?.(message.level, message.message);
    } else {
      const waiting = this.pending.get(message.id);
      if (!waiting) return;
      this.pending.delete(message.id);
      if (message.ok) waiting.resolve(message.result);
      else waiting.reject(new EngineError(message.error.message, message.error.name));
    }
  }

  private failAll(error: Error): void {
    for (const waiting of this.pending.values()) waiting.reject(error);
    this.pending.clear();
  }

  request<N extends RequestName>(name: N, params: RequestMap[N]['params']): Promise<RequestMap[N]['result']> {
    const worker = this.ensureWorker();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      worker.postMessage({ type: 'request', id, name, params });
    });
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    const worker = this.worker;
    this.worker = undefined;
    this.failAll(new Error('The engine client was disposed.'));
    if (worker) await worker.terminate();
  }
}
