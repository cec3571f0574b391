import * as fs from 'node:fs';
import * as vscode from 'vscode';
import { errorMessage } from '../core/errorMessage';
import type { SyncOutcome } from '../core/engine';
import type { SyncProgress, SyncReport } from '../core/sync';
import { Disposable, timeout } from './lifecycle';

/** The states of one folder's index; the overall state is the most pressing of them (see `overallState`). */
export const FolderState = {
  Untrusted: 'untrusted',
  Disabled: 'disabled',
  Refused: 'refused',
  Idle: 'idle',
  Indexing: 'indexing',
  Ready: 'ready',
  Stale: 'stale',
  Error: 'error',
} as const;
export type FolderState = (typeof FolderState)[keyof typeof FolderState];

/** The overall state shown in the status bar and the welcome views: the first of these any folder is in. */
export function overallState(trusted: boolean, states: readonly FolderState[]): FolderState {
  if (!trusted) return FolderState.Untrusted;
  const order: FolderState[] = [
    FolderState.Indexing,
    FolderState.Error,
    FolderState.Refused,
    FolderState.Stale,
    FolderState.Disabled,
    FolderState.Idle,
  ];
  return order.find((state) => states.includes(state)) ?? (states.length > 0 ? FolderState.Ready : FolderState.Idle);
}

/** What one folder's indexer may ask of the engine worker, bound to that folder by the `WorkspaceIndex` facade. */
export interface FolderEngine {
  open(): Promise<{ loadedFromDisk: boolean }>;
  /** The one sync operation: the engine decides between re-indexing `paths` alone and discovery. */
  sync(params: { paths?: string[]; full?: boolean; persist: boolean }): Promise<SyncOutcome>;
  cancel(): Promise<void>;
  close(): Promise<void>;
}

/** An immutable picture of one folder's index at one moment; a new one is made after every change. */
export interface FolderSnapshot {
  readonly key: string;
  readonly folder: vscode.WorkspaceFolder;
  readonly state: FolderState;
  readonly message: string | undefined;
  readonly progress: Readonly<SyncProgress> | undefined;
  /** The report of the last discovery sync (edits re-indexed alone have none). */
  readonly lastReport: Readonly<SyncReport> | undefined;
  /** When the last sync finished, in milliseconds since the epoch. */
  readonly lastSync: number | undefined;
  /** Paths changed on disk since the last sync started: shown as stale until re-indexed. */
  readonly pendingPaths: readonly string[];
  readonly opened: boolean;
  /** Whether the last open found a usable stored index in global storage. */
  readonly loadedFromDisk: boolean | undefined;
  /** Whether re-indexed changes still wait to be written to the database file. */
  readonly pendingWrite: boolean;
  /** File events received (watcher, save, rename), and how many of them were duplicates merged into an earlier one. */
  readonly fileEvents: Readonly<{ received: number; merged: number }>;
}

/** Which paths of a folder changed in the index; `paths` undefined means any of them may have. */
export interface FolderIndexChange {
  readonly key: string;
  readonly paths: readonly string[] | undefined;
}

interface Work {
  reopen: boolean;
  full: boolean;
  discovery: boolean;
}

/** A copy of a sync report that nothing can change, its lists and counts included. */
function frozenReport(report: SyncReport): Readonly<SyncReport> {
  return Object.freeze({
    ...report,
    exclusionsByReason: Object.freeze({ ...report.exclusionsByReason }),
    boundNotes: Object.freeze([...report.boundNotes]) as string[],
    errors: Object.freeze([...report.errors]) as string[],
  });
}

/** The size, mtime and inode of a file, or `missing`: two events for the same write have the same identity. */
export async function fileIdentity(fsPath: string): Promise<string> {
  try {
    const stat = await fs.promises.stat(fsPath);
    return `${stat.size}:${stat.mtimeMs}:${stat.ino}`;
  } catch {
    return 'missing';
  }
}

/** File events arriving within this many milliseconds of each other are synced together. */
const syncDebounceMs = 100;
/** Edits re-indexed alone leave the database unwritten; it is written by a discovery sync once edits pause this long. */
const persistDelayMs = 2000;
/** The identities of this many recently changed paths are remembered to merge duplicate events. */
const rememberedIdentities = 4096;

/**
 * The index of one workspace folder as a state machine: it opens the engine, debounces file
 * events (a save and the watcher's event for the same bytes count once), runs one sync at a time
 * with later requests merged into one rerun, defers the database write while edits continue, and
 * closes the engine (writing it) on shutdown. It sends nothing to the worker itself: everything
 * goes through the `FolderEngine` the facade gives it.
 */
export class FolderIndexer extends Disposable {
  private readonly _onDidChangeStatus = this._register(new vscode.EventEmitter<{ urgent: boolean }>());
  /** Fires on every status change; `urgent` is false for progress and merged events, which listeners may throttle. */
  readonly onDidChangeStatus = this._onDidChangeStatus.event;
  private readonly _onDidChangeIndex = this._register(new vscode.EventEmitter<FolderIndexChange>());
  /** Fires once per sync that changed the index (or opened it), never for progress. */
  readonly onDidChangeIndex = this._onDidChangeIndex.event;

  private state: FolderState = FolderState.Idle;
  private message: string | undefined;
  private progress: SyncProgress | undefined;
  private lastReport: SyncReport | undefined;
  private lastSync: number | undefined;
  private readonly pending = new Set<string>();
  private opened = false;
  private loadedFromDisk: boolean | undefined;
  private pendingWrite = false;
  private readonly fileEvents = { received: 0, merged: 0 };
  /** The size, mtime and inode last seen per changed path: an event with the same identity is a duplicate. */
  private readonly identities = new Map<string, string>();

  private wanted: Work | undefined;
  private debounce: vscode.Disposable | undefined;
  private persistTimer: vscode.Disposable | undefined;
  private running: Promise<void> | undefined;
  private idleWaiters: Array<() => void> = [];
  private stopped = false;
  private snapshotCache: FolderSnapshot | undefined;

  constructor(
    readonly folder: vscode.WorkspaceFolder,
    private readonly engine: FolderEngine,
    private readonly log: vscode.LogOutputChannel,
    private readonly isEnabled: () => boolean,
  ) {
    super();
    this._register(new vscode.Disposable(() => this.clearTimers()));
  }

  get key(): string {
    return this.folder.uri.toString();
  }

  get isOpened(): boolean {
    return this.opened;
  }

  snapshot(): FolderSnapshot {
    this.snapshotCache ??= Object.freeze({
      key: this.key,
      folder: this.folder,
      state: this.state,
      message: this.message,
      progress: this.progress && Object.freeze({ ...this.progress }),
      lastReport: this.lastReport && frozenReport(this.lastReport),
      lastSync: this.lastSync,
      pendingPaths: Object.freeze([...this.pending]),
      opened: this.opened,
      loadedFromDisk: this.loadedFromDisk,
      pendingWrite: this.pendingWrite,
      fileEvents: Object.freeze({ ...this.fileEvents }),
    });
    return this.snapshotCache;
  }

  private statusChanged(urgent: boolean): void {
    this.snapshotCache = undefined;
    this._onDidChangeStatus.fire({ urgent });
  }

  private setState(state: FolderState, message?: string): void {
    this.state = state;
    this.message = message;
    this.statusChanged(true);
  }

  /** Brings the folder in line with trust and its settings: untrusted and disabled folders touch nothing. */
  refresh(trusted: boolean): void {
    if (!trusted) return this.setState(FolderState.Untrusted);
    if (!this.isEnabled()) return this.setState(FolderState.Disabled);
    const waiting: FolderState[] = [FolderState.Untrusted, FolderState.Disabled, FolderState.Idle];
    if (waiting.includes(this.state) || !this.opened) this.schedule({ reopen: true }, 0);
  }

  /** Reopens the engine (new settings) and syncs with discovery. */
  reopen(): void {
    this.schedule({ reopen: true }, 0);
  }

  /** A file event for `relative`, with the identity of its bytes on disk (`missing` once deleted). */
  noteChanged(relative: string, identity: string): void {
    if (this.stopped || this.state === FolderState.Disabled || this.state === FolderState.Refused) return;
    this.fileEvents.received++;
    if (this.identities.get(relative) === identity) {
      // The save and the watcher report the same write; the first one already scheduled its sync.
      this.fileEvents.merged++;
      return this.statusChanged(false);
    }
    this.identities.delete(relative);
    this.identities.set(relative, identity);
    if (this.identities.size > rememberedIdentities) this.identities.delete(this.identities.keys().next().value as string);
    this.pending.add(relative);
    if (this.state === FolderState.Ready) this.state = FolderState.Stale;
    this.statusChanged(true);
    this.schedule({});
  }

  progressed(progress: SyncProgress): void {
    this.progress = progress;
    this.statusChanged(false);
  }

  private merge(work: Partial<Work>): void {
    const wanted = this.wanted ?? { reopen: false, full: false, discovery: false };
    wanted.reopen ||= work.reopen === true;
    wanted.full ||= work.full === true;
    wanted.discovery ||= work.discovery === true;
    this.wanted = wanted;
  }

  /** A debounced sync: requests arriving before it starts merge into it. */
  private schedule(work: Partial<Work>, delayMs = syncDebounceMs): void {
    if (this.stopped) return;
    this.merge(work);
    this.debounce?.dispose();
    this.debounce = timeout(() => {
      this.debounce = undefined;
      void this.run();
    }, delayMs);
  }

  /**
   * Syncs now, taking over a scheduled sync. One sync runs at a time and requests arriving
   * meanwhile merge into one rerun; the promise settles only when nothing is running or queued,
   * so the state it leaves behind is the final one.
   */
  run(work: Partial<Work> = {}): Promise<void> {
    if (this.stopped) return Promise.resolve();
    this.merge(work);
    this.debounce?.dispose();
    this.debounce = undefined;
    if (this.running) return this.running;
    const chain = (async () => {
      try {
        // No await lies between the last check of `wanted` and the `finally`, so a request
        // arriving now either finds the chain running (and is taken by it) or starts a new one.
        while (this.wanted && !this.stopped) {
          const next = this.wanted;
          this.wanted = undefined;
          await this.syncOnce(next);
        }
      } finally {
        this.running = undefined;
        this.statusChanged(true);
        this.notifyIfIdle();
      }
    })();
    this.running = chain;
    return chain;
  }

  private async open(): Promise<boolean> {
    try {
      const opened = await this.engine.open();
      this.opened = true;
      this.loadedFromDisk = opened.loadedFromDisk;
      return true;
    } catch (error) {
      const message = errorMessage(error);
      const refused = (error as { remoteName?: string }).remoteName === 'RootRefusedError';
      this.log.error(`Cannot open the index of ${this.folder.name}: ${message}`);
      this.setState(refused ? FolderState.Refused : FolderState.Error, message);
      return false;
    }
  }

  /** One sync; never rejects (failures become the folder's state). */
  private async syncOnce(work: Work): Promise<void> {
    if (!this.isEnabled()) return this.setState(FolderState.Disabled);
    // A (re)opened engine may have new settings (exclude globs, bounds): discovery must run.
    const reopened = work.reopen || !this.opened;
    if (reopened && !(await this.open())) return;
    const paths = [...this.pending];
    const quick = !reopened && !work.full && !work.discovery && paths.length > 0;
    // A discovery sync writes the database itself, so a deferred write is no longer needed.
    if (!quick) this.clearPersistTimer();
    this.setState(FolderState.Indexing);
    const started = Date.now();
    try {
      const outcome = await this.engine.sync({ paths: quick ? paths : undefined, full: work.full, persist: !quick });
      for (const path of paths) this.pending.delete(path);
      this.lastSync = Date.now();
      this.progress = undefined;
      this.pendingWrite = outcome.unsaved;
      if (outcome.report) this.logReport(outcome.report);
      else this.log.info(`Re-indexed ${outcome.changed} edited file(s) of ${this.folder.name} in ${Date.now() - started} ms.`);
      // Edits re-indexed alone are written once they pause (or at shutdown), not after each save.
      if (outcome.unsaved) this.armPersistTimer();
      this.setState(this.pending.size > 0 ? FolderState.Stale : FolderState.Ready);
      if (reopened || outcome.changed > 0)
        this._onDidChangeIndex.fire({ key: this.key, paths: outcome.path === 'quick' && !reopened ? Object.freeze(paths) : undefined });
    } catch (error) {
      const message = errorMessage(error);
      this.progress = undefined;
      this.log.error(`Sync of ${this.folder.name} failed: ${message}`);
      this.setState(/aborted|AbortError/i.test(message) ? FolderState.Stale : FolderState.Error, message);
    }
  }

  private logReport(report: SyncReport): void {
    this.lastReport = report;
    this.log.info(
      `Synced ${this.folder.name}: ${report.reindexed} indexed, ${report.unchanged} unchanged, ${report.removed} removed, ` +
        `${report.read} read, ${report.excluded} excluded in ${report.durationMs} ms.`,
    );
    for (const note of report.boundNotes) this.log.warn(note);
    for (const error of report.errors) this.log.error(error);
  }

  private armPersistTimer(): void {
    this.persistTimer?.dispose();
    this.persistTimer = timeout(() => {
      this.persistTimer = undefined;
      void this.run({ discovery: true });
    }, persistDelayMs);
  }

  private clearPersistTimer(): void {
    this.persistTimer?.dispose();
    this.persistTimer = undefined;
  }

  private clearTimers(): void {
    this.debounce?.dispose();
    this.debounce = undefined;
    this.clearPersistTimer();
  }

  /** Resolves once no sync is scheduled, deferred or running. */
  whenIdle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private isIdle(): boolean {
    return !this.running && !this.debounce && !this.persistTimer;
  }

  private notifyIfIdle(): void {
    if (!this.isIdle()) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of waiters) resolve();
  }

  /** Cancels a running discovery sync (a rebuild the user stopped). */
  cancel(): Promise<void> {
    return this.running ? this.engine.cancel() : Promise.resolve();
  }

  /** Closes the engine, which writes the database, and opens it again with a discovery sync (a window reload, for tests). */
  async reload(): Promise<void> {
    await this.whenIdle();
    if (!this.opened) return;
    await this.engine.close();
    this.opened = false;
    await this.run({});
  }

  /**
   * Shutdown: nothing new is scheduled, a running discovery sync is cancelled (what it committed
   * stays), and the engine is closed, which writes every change not yet written.
   */
  async close(): Promise<void> {
    this.stopped = true;
    this.wanted = undefined;
    this.clearTimers();
    if (this.running) await this.engine.cancel().catch(() => undefined);
    await this.running;
    this.notifyIfIdle();
    if (!this.opened) return;
    this.opened = false;
    await this.engine.close();
    this.pendingWrite = false;
    this.statusChanged(true);
  }
}
