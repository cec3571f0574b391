import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ContextBlocks } from '../core/engine';
import type { Manifest } from '../core/retrieval/manifest';
import type { Retrieval, RetrieveOptions } from '../core/retrieval/retrieve';
import type { SyncProgress, SyncReport } from '../core/sync';
import { EngineClient } from '../core/worker/engineClient';
import { readConfig } from './config';

export type FolderState = 'untrusted' | 'disabled' | 'refused' | 'idle' | 'indexing' | 'ready' | 'stale' | 'error';

export interface FolderStatus {
  key: string;
  folder: vscode.WorkspaceFolder;
  state: FolderState;
  message?: string;
  progress?: SyncProgress;
  lastReport?: SyncReport;
  lastSync?: Date;
  /** Paths changed on disk since the last sync finished: shown as stale until re-indexed. */
  pendingPaths: Set<string>;
  opened: boolean;
  /** Whether the last open found a usable stored index in global storage. */
  loadedFromDisk?: boolean;
}

const syncDebounceMs = 100;
/** At most this many changed paths are re-indexed alone (see `runSync`); more run the incremental sync. */
const maxEditedPaths = 64;
/** After changed paths are synced without writing the database, the incremental sync that writes it runs once edits pause this long. */
const reconcileDelayMs = 2000;

/**
 * Owns the index of every workspace folder: trust gating, opening the stored index, syncing
 * (on start, on file events, on demand) and queries — all through the engine worker, so the
 * extension host thread only passes messages.
 */
export class IndexService implements vscode.Disposable {
  private readonly client: EngineClient;
  private readonly folders = new Map<string, FolderStatus>();
  private readonly timers = new Map<string, { timer: NodeJS.Timeout; full: boolean }>();
  /** Per folder, the chain of syncs now running: it settles only once no further sync is queued. */
  private readonly running = new Map<string, Promise<void>>();
  /** Per folder, a sync requested while one ran, and whether any of those requests wanted a full rescan. */
  private readonly rerun = new Map<string, { full: boolean }>();
  /** Callers of `whenIdle`, resolved when no sync is scheduled or running. */
  private idleWaiters: Array<() => void> = [];
  private readonly disposables: vscode.Disposable[] = [];
  private readonly onDidChangeEmitter = new vscode.EventEmitter<void>();
  readonly onDidChange = this.onDidChangeEmitter.event;
  private readonly onDidChangeManifestEmitter = new vscode.EventEmitter<Manifest>();
  readonly onDidChangeManifest = this.onDidChangeManifestEmitter.event;
  lastManifest: Manifest | undefined;
  private readonly progressListeners = new Set<(key: string, progress: SyncProgress) => void>();

  constructor(
    private readonly extensionContext: vscode.ExtensionContext,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.client = new EngineClient(path.join(extensionContext.extensionPath, 'dist', 'worker.js'), {
      onProgress: (key, progress) => this.onProgress(key, progress),
      onLog: (level, message) => log[level === 'info' ? 'info' : level === 'warn' ? 'warn' : 'error'](message),
      onExit: (code) => {
        if (code !== 0 && code !== 1) log.error(`The indexing worker stopped with exit code ${code}.`);
      },
    });
    this.disposables.push(this.onDidChangeEmitter, this.onDidChangeManifestEmitter);
  }

  /** Whether the engine worker was ever started (the Restricted Mode tests assert it was not). */
  get workerStarted(): boolean {
    return this.client.started;
  }

  async counters() {
    if (!this.client.started) return { fsCalls: 0, gitCalls: 0, engineOpens: 0, workerStarted: false };
    return { ...(await this.client.request('counters', {})), workerStarted: true };
  }

  statuses(): FolderStatus[] {
    return [...this.folders.values()];
  }

  status(folder: vscode.WorkspaceFolder): FolderStatus | undefined {
    return this.folders.get(folder.uri.toString());
  }

  /** The overall state shown in the status bar and the welcome views. */
  overallState(): FolderState {
    if (!vscode.workspace.isTrusted) return 'untrusted';
    const states = this.statuses().map((status) => status.state);
    for (const state of ['indexing', 'error', 'refused', 'stale', 'disabled', 'idle'] as FolderState[])
      if (states.includes(state)) return state;
    return states.length > 0 ? 'ready' : 'idle';
  }

  private changed(): void {
    void vscode.commands.executeCommand('setContext', 'projectKnowledge.state', this.overallState());
    this.onDidChangeEmitter.fire();
  }

  /** Starts indexing when the workspace is trusted; otherwise touches nothing. */
  async start(): Promise<void> {
    this.disposables.push(
      vscode.workspace.onDidGrantWorkspaceTrust(() => {
        this.log.info('Workspace trust granted: indexing starts.');
        void this.refreshFolders();
      }),
      vscode.workspace.onDidChangeWorkspaceFolders(() => void this.refreshFolders()),
    );
    await this.refreshFolders();
  }

  /** Brings the set of indexed folders in line with the workspace, trust and settings. */
  async refreshFolders(): Promise<void> {
    const workspaceFolders = (vscode.workspace.workspaceFolders ?? []).filter((folder) => folder.uri.scheme === 'file');
    const keys = new Set(workspaceFolders.map((folder) => folder.uri.toString()));
    for (const [key, status] of this.folders) {
      if (!keys.has(key)) {
        this.folders.delete(key);
        if (status.opened) await this.client.request('close', { projectKey: key }).catch(() => undefined);
      }
    }
    for (const folder of workspaceFolders) {
      const key = folder.uri.toString();
      let status = this.folders.get(key);
      if (!status) {
        status = { key, folder, state: 'idle', pendingPaths: new Set(), opened: false };
        this.folders.set(key, status);
      }
      if (!vscode.workspace.isTrusted) {
        status.state = 'untrusted';
        continue;
      }
      if (!readConfig(folder).enabled) {
        status.state = 'disabled';
        continue;
      }
      if (status.state === 'untrusted' || status.state === 'disabled' || status.state === 'idle' || !status.opened)
        this.scheduleSync(folder, 0, true);
    }
    this.changed();
  }

  /** The database of one folder: global storage, named by a hash of the canonical root. */
  private async databasePath(folder: vscode.WorkspaceFolder): Promise<string> {
    const canonical = await fs.promises.realpath(folder.uri.fsPath);
    const directory = path.join(this.extensionContext.globalStorageUri.fsPath, 'indexes');
    await fs.promises.mkdir(directory, { recursive: true });
    return path.join(directory, `${createHash('sha256').update(canonical).digest('hex').slice(0, 24)}.sqlite`);
  }

  private async open(status: FolderStatus): Promise<boolean> {
    const { folder, key } = status;
    let dbPath: string | undefined;
    try {
      dbPath = await this.databasePath(folder);
    } catch (error) {
      // A full or read-only global storage must not stop indexing: keep the index in memory.
      this.log.warn(`Global storage is not writable (${String(error)}); the index of ${folder.name} stays in memory.`);
    }
    try {
      const config = readConfig(folder);
      const request = { projectKey: key, root: folder.uri.fsPath, options: config.engine, rankingMode: config.rankingMode };
      const opened = await this.client.request('open', { ...request, dbPath }).catch(async (error: unknown) => {
        // Something that is not our index sits at the storage path: it is left alone, and the
        // index of this folder stays in memory rather than not existing.
        if (!dbPath || (error as { remoteName?: string }).remoteName !== 'DatabaseRefusedError') throw error;
        this.log.warn(`${error instanceof Error ? error.message : String(error)} The index of ${folder.name} stays in memory.`);
        return this.client.request('open', request);
      });
      if (opened.openNote) this.log.warn(opened.openNote);
      this.log.info(`Opened the index of ${folder.name}${opened.loadedFromDisk ? ' from global storage' : ' (new)'}.`);
      status.opened = true;
      status.loadedFromDisk = opened.loadedFromDisk;
      return true;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const refused = error instanceof Error && (error as { remoteName?: string }).remoteName === 'RootRefusedError';
      status.state = refused ? 'refused' : 'error';
      status.message = message;
      this.log.error(`Cannot open the index of ${folder.name}: ${message}`);
      this.changed();
      return false;
    }
  }

  /** Debounced incremental sync of one folder; `reopen` reopens the engine (new settings). */
  scheduleSync(folder: vscode.WorkspaceFolder, delay = syncDebounceMs, reopen = false, full = false): void {
    if (!vscode.workspace.isTrusted) return;
    const key = folder.uri.toString();
    const status = this.folders.get(key);
    if (!status) return;
    if (reopen) status.opened = false;
    const previous = this.timers.get(key);
    clearTimeout(previous?.timer);
    // A rescheduled full rescan stays full: the later, incremental request is part of it.
    const wantsFull = full || previous?.full === true;
    const timer = setTimeout(() => {
      this.timers.delete(key);
      void this.runSync(status, wantsFull);
    }, delay);
    this.timers.set(key, { timer, full: wantsFull });
  }

  /**
   * Syncs one folder; one sync runs at a time per folder and requests arriving meanwhile coalesce
   * into one rerun (full when any of them asked for a full rescan). The promise settles only when
   * the folder has no sync running or queued, so the state it leaves behind is the final one and
   * a caller never sees the `indexing` of a rerun that started as its own sync finished.
   */
  runSync(status: FolderStatus, full = false): Promise<void> {
    // A scheduled sync is taken over: this one reads every path noted as changed before it starts.
    const scheduled = this.timers.get(status.key);
    if (scheduled) {
      clearTimeout(scheduled.timer);
      this.timers.delete(status.key);
      full ||= scheduled.full;
    }
    const current = this.running.get(status.key);
    if (current) {
      this.rerun.set(status.key, { full: full || this.rerun.get(status.key)?.full === true });
      return current;
    }
    const chain = (async () => {
      try {
        for (let nextFull = full; ;) {
          await this.syncOnce(status, nextFull);
          const again = this.rerun.get(status.key);
          // No await lies between this check and the `finally` below, so a request arriving now
          // either finds the chain still running (and queues a rerun it then runs) or starts a new one.
          if (!again) return;
          this.rerun.delete(status.key);
          nextFull = again.full;
        }
      } finally {
        this.running.delete(status.key);
        this.changed();
        this.notifyIfIdle();
      }
    })();
    this.running.set(status.key, chain);
    return chain;
  }

  /** One sync of one folder; never rejects (failures become the folder's state). */
  private async syncOnce(status: FolderStatus, full: boolean): Promise<void> {
    try {
      if (!vscode.workspace.isTrusted || !readConfig(status.folder).enabled) return;
      // A (re)opened engine may have new settings (exclude globs, bounds): discovery must run.
      const reopened = !status.opened;
      if (reopened && !(await this.open(status))) return;
      status.state = 'indexing';
      status.message = undefined;
      this.changed();
      const pendingAtStart = new Set(status.pendingPaths);
      let report: SyncReport | null = null;
      if (!full && !reopened && pendingAtStart.size > 0 && pendingAtStart.size <= maxEditedPaths) {
        // Edited files the index holds are re-indexed alone, in milliseconds; other paths get the
        // incremental sync without the database write. The sync that writes it (and records git
        // state) follows once edits pause.
        const editStarted = Date.now();
        const edited = await this.client.request('syncPaths', { projectKey: status.key, paths: [...pendingAtStart] });
        // A newer edit already has its run scheduled; that run schedules this sync in turn.
        if (!this.timers.has(status.key)) this.scheduleSync(status.folder, reconcileDelayMs);
        if (!edited.report) {
          for (const pending of pendingAtStart) status.pendingPaths.delete(pending);
          status.lastSync = new Date();
          status.state = status.pendingPaths.size > 0 ? 'stale' : 'ready';
          this.log.info(`Re-indexed ${edited.changed} edited file(s) of ${status.folder.name} in ${Date.now() - editStarted} ms.`);
          return;
        }
        report = edited.report;
      }
      report ??= await this.client.request('sync', { projectKey: status.key, full });
      for (const pending of pendingAtStart) status.pendingPaths.delete(pending);
      status.lastReport = report;
      status.lastSync = new Date();
      status.progress = undefined;
      status.state = status.pendingPaths.size > 0 ? 'stale' : 'ready';
      this.log.info(
        `Synced ${status.folder.name}: ${report.reindexed} indexed, ${report.unchanged} unchanged, ${report.removed} removed, ${report.read} read, ${report.excluded} excluded in ${report.durationMs} ms.`,
      );
      for (const note of report.boundNotes) this.log.warn(note);
      for (const error of report.errors) this.log.error(error);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      status.state = /aborted|AbortError/i.test(message) ? 'stale' : 'error';
      status.message = message;
      this.log.error(`Sync of ${status.folder.name} failed: ${message}`);
    }
  }

  /** Closes every engine (persisting it) and opens it again from global storage, as a window reload does. */
  async reopenAll(): Promise<void> {
    await this.whenIdle();
    for (const status of this.statuses()) {
      if (!status.opened) continue;
      await this.client.request('close', { projectKey: status.key });
      status.opened = false;
      await this.runSync(status);
    }
  }

  /** Full rescan of every folder with cancellable progress. */
  async rebuild(): Promise<void> {
    await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Rebuilding the Project Knowledge index'), cancellable: true },
      async (progress, token) => {
        const cancel = token.onCancellationRequested(() => {
          for (const status of this.statuses()) void this.client.request('cancel', { projectKey: status.key }).catch(() => undefined);
        });
        try {
          const stop = this.onProgressReport((key, update) => {
            if (update.phase === 'indexing' && update.total > 0)
              progress.report({
                message: vscode.l10n.t('{0}: {1} of {2} files', this.folders.get(key)?.folder.name ?? '', update.done, update.total),
              });
          });
          try {
            for (const status of this.statuses()) {
              await this.runSync(status, true);
            }
          } finally {
            stop.dispose();
          }
        } finally {
          cancel.dispose();
        }
      },
    );
  }

  private onProgressReport(listener: (key: string, progress: SyncProgress) => void): vscode.Disposable {
    this.progressListeners.add(listener);
    return new vscode.Disposable(() => this.progressListeners.delete(listener));
  }

  private onProgress(key: string, progress: SyncProgress): void {
    const status = this.folders.get(key);
    if (!status) return;
    status.progress = progress;
    for (const listener of this.progressListeners) listener(key, progress);
    this.changed();
  }

  /** A file event: mark the path stale right away and schedule the sync that re-indexes it. */
  notePathChanged(uri: vscode.Uri): void {
    const folder = vscode.workspace.getWorkspaceFolder(uri);
    if (!folder || !vscode.workspace.isTrusted) return;
    const status = this.folders.get(folder.uri.toString());
    if (!status || status.state === 'disabled' || status.state === 'refused') return;
    const relative = path.relative(folder.uri.fsPath, uri.fsPath).split(path.sep).join('/');
    if (relative.startsWith('..') || relative.split('/')[0] === '.git') return;
    status.pendingPaths.add(relative);
    if (status.state === 'ready') status.state = 'stale';
    this.changed();
    this.scheduleSync(folder);
  }

  /** Waits until no sync is scheduled or running (tests and commands use this). */
  whenIdle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private isIdle(): boolean {
    return this.running.size === 0 && this.timers.size === 0;
  }

  private notifyIfIdle(): void {
    if (!this.isIdle()) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of waiters) resolve();
  }

  /** The folders whose index is open and may be queried (none while untrusted), for the agent tools. */
  queryableFolders(): Array<{ folder: vscode.WorkspaceFolder; projectKey: string }> {
    return this.queryable().map((status) => ({ folder: status.folder, projectKey: status.key }));
  }

  /** The database file the extension keeps for `folder` (the MCP server definition opens the same one). */
  databaseFor(folder: vscode.WorkspaceFolder): Promise<string> {
    return this.databasePath(folder);
  }

  private queryable(): FolderStatus[] {
    if (!vscode.workspace.isTrusted) return [];
    return this.statuses().filter((status) => status.opened);
  }

  /** Searches every indexed folder and merges the results by score. */
  async search(query: string, options: RetrieveOptions = {}): Promise<Array<Retrieval & { folder: vscode.WorkspaceFolder }>> {
    const retrievals: Array<Retrieval & { folder: vscode.WorkspaceFolder }> = [];
    for (const status of this.queryable()) {
      const config = readConfig(status.folder);
      const retrieval = await this.client.request('search', {
        projectKey: status.key,
        query,
        options: { limit: config.results, budgetTokens: config.promptBudget, ...options },
      });
      retrievals.push({ ...retrieval, folder: status.folder });
    }
    const first = retrievals[0];
    if (first) this.publishManifest(first.manifest);
    return retrievals;
  }

  /** Quoted-source blocks from every indexed folder, for the chat participant and the tool. */
  async context(query: string, options: RetrieveOptions = {}): Promise<Array<ContextBlocks & { folder: vscode.WorkspaceFolder }>> {
    const contexts: Array<ContextBlocks & { folder: vscode.WorkspaceFolder }> = [];
    for (const status of this.queryable()) {
      const config = readConfig(status.folder);
      const context = await this.client.request('context', {
        projectKey: status.key,
        query,
        options: { limit: config.results, budgetTokens: config.promptBudget, ...options },
      });
      contexts.push({ ...context, folder: status.folder });
    }
    const first = contexts[0];
    if (first) this.publishManifest(first.retrieval.manifest);
    return contexts;
  }

  /** Helpful/unhelpful chat feedback per request kind (no prompt text is kept). */
  readonly feedback = new Map<string, { helpful: number; unhelpful: number }>();

  publishManifest(manifest: Manifest): void {
    this.lastManifest = manifest;
    this.onDidChangeManifestEmitter.fire(manifest);
  }

  engine(): EngineClient {
    return this.client;
  }

  async dispose(): Promise<void> {
    for (const { timer } of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    this.notifyIfIdle();
    for (const status of this.statuses()) {
      if (status.opened) await this.client.request('close', { projectKey: status.key }).catch(() => undefined);
    }
    await this.client.dispose();
    for (const disposable of this.disposables) disposable.dispose();
  }
}
