import * as path from 'node:path';
import * as vscode from 'vscode';
import { errorMessage } from '../core/errorMessage';
import type { Health } from '../core/health';
import type { Manifest } from '../core/retrieval/manifest';
import type { RetrieveOptions } from '../core/retrieval/retrieve';
import type { SyncProgress } from '../core/sync';
import type { ToolAnswer, ToolName } from '../core/tools/toolSet';
import type { CurationOp, CurationOps, CurationRequest } from '../core/curation/requests';
import { EngineClient } from '../core/worker/engineClient';
import type { RequestMap, RequestName, TreeDirectory, TreeItem } from '../core/worker/protocol';
import { ChatFeedback, type FeedbackCount } from './chatFeedback';
import { readConfig } from './config';
import { folderContext, type FolderContext, type FolderRetrieval } from './folderContext';
import { fileIdentity, FolderIndexer, type FolderEngine, type FolderSnapshot, type FolderState } from './folderIndexer';
import { databasePath, openFolderIndex } from './indexStorage';
import { StatusPublisher, type IndexChange, type IndexStatus } from './indexStatus';
import { Disposable, settlesWithin } from './lifecycle';
import { pathInFolder } from './locations';
import { RequestJournal, type RequestRecord } from './requestJournal';

export type { FolderContext, FolderRetrieval, QuotedBlock } from './folderContext';
export type { IndexChange, IndexStatus } from './indexStatus';
export type { RequestRecord } from './requestJournal';

/** The health of one folder: the engine's report when its index is open, else its state and why. */
export interface FolderHealth {
  readonly folder: vscode.WorkspaceFolder;
  readonly state: FolderState;
  readonly message: string | undefined;
  readonly health: Health | undefined;
  readonly error: string | undefined;
}

/** `deactivate` waits at most this long for the last database writes (VS Code gives an extension about 5 s). */
const shutdownTimeoutMs = 3000;

/**
 * The one object the views, commands, chat and tools see. It checks Workspace Trust once (and
 * hears when it is granted), keeps one `FolderIndexer` per folder, returns immutable status
 * snapshots, and is the only part of the extension that talks to the engine worker client.
 */
export class WorkspaceIndex extends Disposable {
  private readonly client: EngineClient;
  /** The only place the extension reads Workspace Trust; a session can only go from untrusted to trusted. */
  private trustedFlag = vscode.workspace.isTrusted;
  private readonly indexers = new Map<string, FolderIndexer>();
  private readonly progressListeners = new Set<(folder: vscode.WorkspaceFolder, progress: SyncProgress) => void>();

  private readonly statusPublisher = this._register(
    new StatusPublisher(() => ({ trusted: this.trustedFlag, folders: [...this.indexers.values()].map((indexer) => indexer.snapshot()) })),
  );
  /** State, progress, pending paths: anything shown about the index (throttled for progress). */
  readonly onDidChangeStatus = this.statusPublisher.onDidChangeStatus;
  private readonly _onDidChangeIndex = this._register(new vscode.EventEmitter<IndexChange>());
  /** The indexed content changed: once per sync that changed something. */
  readonly onDidChangeIndex = this._onDidChangeIndex.event;
  private readonly _onDidChangeManifest = this._register(new vscode.EventEmitter<Manifest>());
  readonly onDidChangeManifest = this._onDidChangeManifest.event;
  private readonly _onDidGrantTrust = this._register(new vscode.EventEmitter<void>());
  readonly onDidGrantTrust = this._onDidGrantTrust.event;

  private manifest: Manifest | undefined;
  private readonly journal = new RequestJournal();
  private readonly chatFeedback = new ChatFeedback();
  private shutdownPromise: Promise<void> | undefined;

  constructor(
    private readonly extensionContext: vscode.ExtensionContext,
    private readonly log: vscode.LogOutputChannel,
  ) {
    super();
    this.client = new EngineClient(path.join(extensionContext.extensionPath, 'dist', 'worker.js'), {
      onProgress: (key, progress) => this.progressed(key, progress),
      onLog: (level, message) => log[level === 'info' ? 'info' : level === 'warn' ? 'warn' : 'error'](message),
      onExit: (code) => {
        if (code !== 0 && code !== 1) log.error(`The indexing worker stopped with exit code ${code}.`);
      },
    });
    this._register(
      vscode.workspace.onDidGrantWorkspaceTrust(() => {
        this.trustedFlag = true;
        this.log.info('Workspace trust granted: indexing starts.');
        this._onDidGrantTrust.fire();
        void this.refreshFolders();
      }),
    );
    this._register(vscode.workspace.onDidChangeWorkspaceFolders(() => void this.refreshFolders()));
  }

  // ---- status -------------------------------------------------------------------------------

  get trusted(): boolean {
    return this.trustedFlag;
  }

  /** Whether the engine worker was ever started (the Restricted Mode tests assert it was not). */
  get workerStarted(): boolean {
    return this.client.started;
  }

  status(): IndexStatus {
    return this.statusPublisher.status();
  }

  /** The snapshot of one folder, by its key (`uri.toString()`). */
  folderStatus(folderKey: string): FolderSnapshot | undefined {
    return this.status().folders.find((folder) => folder.key === folderKey);
  }

  async counters() {
    if (!this.client.started) return { fsCalls: 0, gitCalls: 0, engineOpens: 0, workerStarted: false };
    return { ...(await this.request('counters', {})), workerStarted: true };
  }

  /** The requests sent to the worker, oldest first (the last 1,000). */
  requests(): readonly RequestRecord[] {
    return this.journal.entries();
  }

  // ---- worker requests: the only place that sends any -----------------------------------------

  private request<N extends RequestName>(name: N, params: RequestMap[N]['params']): Promise<RequestMap[N]['result']> {
    this.journal.record(name, params);
    return this.client.request(name, params);
  }

  /** The worker operations one folder's indexer may use, bound to that folder. */
  private folderEngine(folder: vscode.WorkspaceFolder): FolderEngine {
    const projectKey = folder.uri.toString();
    return {
      open: () => this.open(folder),
      sync: (params) => this.request('sync', { projectKey, ...params }),
      cancel: async () => {
        await this.request('cancel', { projectKey }).catch(() => undefined);
      },
      close: async () => {
        await this.request('close', { projectKey });
      },
    };
  }

  /** The database of one folder, in global storage (`indexStorage.ts`). */
  databaseFor(folder: vscode.WorkspaceFolder): Promise<string> {
    return databasePath(this.extensionContext.globalStorageUri, folder);
  }

  private open(folder: vscode.WorkspaceFolder): Promise<{ loadedFromDisk: boolean }> {
    return openFolderIndex(folder, this.databaseFor(folder), (params) => this.request('open', params), this.log);
  }

  private progressed(key: string, progress: SyncProgress): void {
    const indexer = this.indexers.get(key);
    if (!indexer) return;
    indexer.progressed(progress);
    for (const listener of this.progressListeners) listener(indexer.folder, progress);
  }

  // ---- folders and syncs ----------------------------------------------------------------------

  /** Starts indexing when the workspace is trusted; otherwise touches nothing. */
  start(): Promise<void> {
    return this.refreshFolders();
  }

  /** Brings the set of indexed folders in line with the workspace, trust and settings. */
  async refreshFolders(): Promise<void> {
    if (this.shutdownPromise) return;
    const folders = (vscode.workspace.workspaceFolders ?? []).filter((folder) => folder.uri.scheme === 'file');
    const keys = new Set(folders.map((folder) => folder.uri.toString()));
    for (const [key, indexer] of this.indexers) {
      if (keys.has(key)) continue;
      this.indexers.delete(key);
      await indexer.close().catch(() => undefined);
      indexer.dispose();
    }
    for (const folder of folders) {
      let indexer = this.indexers.get(folder.uri.toString());
      if (!indexer) {
        indexer = new FolderIndexer(folder, this.folderEngine(folder), this.log, () => readConfig(folder).enabled);
        this.indexers.set(indexer.key, indexer);
        this._register(indexer);
        this._register(indexer.onDidChangeStatus(({ urgent }) => this.statusPublisher.changed(urgent)));
        this._register(indexer.onDidChangeIndex((change) => this._onDidChangeIndex.fire({ folderKey: change.key, paths: change.paths })));
      }
      indexer.refresh(this.trustedFlag);
    }
    this.statusPublisher.changed(true);
  }

  /** A file event (watcher, save, rename): the path is marked stale at once and its debounced sync scheduled. */
  async noteChanged(uri: vscode.Uri): Promise<void> {
    if (!this.trustedFlag || uri.scheme !== 'file') return;
    const folder = vscode.workspace.getWorkspaceFolder(uri);
    const indexer = folder && this.indexers.get(folder.uri.toString());
    if (!folder || !indexer) return;
    const relative = pathInFolder(folder, uri);
    if (relative) indexer.noteChanged(relative, await fileIdentity(uri.fsPath));
  }

  /** Syncs one folder now; settles when the folder has no sync running or queued. */
  syncFolder(folderKey: string, options: { full?: boolean } = {}): Promise<void> {
    if (!this.trustedFlag) return Promise.resolve();
    return this.indexers.get(folderKey)?.run({ full: options.full, discovery: true }) ?? Promise.resolve();
  }

  /** Syncs every folder (the Index Workspace command). */
  async syncAll(): Promise<void> {
    await this.refreshFolders();
    await Promise.all([...this.status().folders].map((folder) => this.syncFolder(folder.key)));
  }

  /** Reopens one folder's engine with its current settings and syncs it (a setting that changes what is indexed). */
  reopen(folder: vscode.WorkspaceFolder): void {
    if (this.trustedFlag) this.indexers.get(folder.uri.toString())?.reopen();
  }

  /** A full rescan of every folder; `onProgress` hears its progress, `token` cancels it. */
  async rebuild(
    onProgress: (folder: vscode.WorkspaceFolder, progress: SyncProgress) => void,
    token: vscode.CancellationToken,
  ): Promise<void> {
    if (!this.trustedFlag) return;
    const cancel = token.onCancellationRequested(() => {
      for (const indexer of this.indexers.values()) void indexer.cancel();
    });
    this.progressListeners.add(onProgress);
    try {
      for (const indexer of this.indexers.values()) await indexer.run({ full: true });
    } finally {
      this.progressListeners.delete(onProgress);
      cancel.dispose();
    }
  }

  /** Closes every engine (writing it) and opens it again from global storage, as a window reload does. */
  async reopenAll(): Promise<void> {
    for (const indexer of this.indexers.values()) await indexer.reload();
  }

  /** Waits until no folder has a sync scheduled, deferred or running. */
  async whenIdle(): Promise<void> {
    await Promise.all([...this.indexers.values()].map((indexer) => indexer.whenIdle()));
  }

  /**
   * What `deactivate` returns: stops scheduling, closes every engine (each close writes the
   * changes not yet written) and waits for that at most `timeoutMs`, then stops the worker.
   */
  shutdown(timeoutMs = shutdownTimeoutMs): Promise<void> {
    this.shutdownPromise ??= (async () => {
      const closed = Promise.all(
        [...this.indexers.values()].map((indexer) =>
          indexer.close().catch((error: unknown) => this.log.error(`Closing the index of ${indexer.folder.name} failed`, error)),
        ),
      );
      if (!(await settlesWithin(closed, timeoutMs)))
        this.log.warn(`The index was not written within ${timeoutMs} ms of shutdown; the next start re-reads what changed.`);
      await this.client.dispose();
    })();
    return this.shutdownPromise;
  }

  override dispose(): void {
    void this.shutdown();
    super.dispose();
  }

  // ---- queries --------------------------------------------------------------------------------

  /** The folders whose index is open and may be queried (none while untrusted). */
  queryableFolders(): Array<{ folder: vscode.WorkspaceFolder; folderKey: string }> {
    if (!this.trustedFlag) return [];
    return [...this.indexers.values()]
      .filter((indexer) => indexer.isOpened)
      .map((indexer) => ({ folder: indexer.folder, folderKey: indexer.key }));
  }

  private retrieveOptions(folder: vscode.WorkspaceFolder, options: RetrieveOptions): RetrieveOptions {
    const config = readConfig(folder);
    return { limit: config.results, budgetTokens: config.promptBudget, ...options };
  }

  /** Whether `folderKey` names a folder whose index is open for queries. */
  private isQueryable(folderKey: string): boolean {
    return this.queryableFolders().some((folder) => folder.folderKey === folderKey);
  }

  /** Searches every indexed folder; the first folder's manifest becomes the last manifest unless `publish` is false. */
  async search(query: string, options: RetrieveOptions = {}, publish = true): Promise<FolderRetrieval[]> {
    const retrievals: FolderRetrieval[] = [];
    for (const { folder, folderKey } of this.queryableFolders()) {
      const retrieval = await this.request('search', { projectKey: folderKey, query, options: this.retrieveOptions(folder, options) });
      retrievals.push({ ...retrieval, folder });
    }
    if (retrievals[0] && publish) this.publishManifest(retrievals[0].manifest);
    return retrievals;
  }

  /** The worker's quoted blocks for every indexed folder, each paired with its snippet by id. */
  async context(query: string, options: RetrieveOptions = {}, publish = true): Promise<FolderContext[]> {
    const contexts: FolderContext[] = [];
    for (const { folder, folderKey } of this.queryableFolders()) {
      const context = await this.request('context', { projectKey: folderKey, query, options: this.retrieveOptions(folder, options) });
      contexts.push(folderContext(folder, context));
    }
    if (contexts[0] && publish) this.publishManifest(contexts[0].retrieval.manifest);
    return contexts;
  }

  /** One directory of one folder's index for the tree view (nothing while untrusted or not open). */
  async listDirectory(folderKey: string, directory: string): Promise<TreeDirectory> {
    if (!this.isQueryable(folderKey)) return { directories: [], files: [] };
    return this.request('directory', { projectKey: folderKey, path: directory });
  }

  /** The declarations (or windows) of one indexed file. */
  async items(folderKey: string, relativePath: string): Promise<TreeItem[]> {
    if (!this.isQueryable(folderKey)) return [];
    return this.request('fileItems', { projectKey: folderKey, path: relativePath });
  }

  /** One agent tool in one folder, its raw input checked in the worker (the same `runTool` as `pk mcp`). */
  tool(folderKey: string, name: ToolName, input: unknown): Promise<ToolAnswer> {
    if (!this.isQueryable(folderKey)) return Promise.reject(new Error('This folder has no open index.'));
    return this.request('tool', { projectKey: folderKey, name, input });
  }

  /**
   * One curation request (pins, memory, labels, the ranker) in one folder; the worker writes the
   * project's curation log. Refusals (a conflicting claim, an unknown id) reject with their message.
   */
  curate<N extends CurationOp>(folderKey: string, op: N, params: CurationOps[N]['params']): Promise<CurationOps[N]['result']> {
    if (!this.isQueryable(folderKey)) return Promise.reject(new Error(vscode.l10n.t('This folder has no open index.')));
    return this.request('curate', { projectKey: folderKey, request: { op, params } as CurationRequest });
  }

  /** The health of every folder: the one place a health report is built (commands, chat and the manifest view show it). */
  async health(): Promise<FolderHealth[]> {
    if (!this.trustedFlag) return [];
    const reports: FolderHealth[] = [];
    for (const folder of this.status().folders) {
      const base = { folder: folder.folder, state: folder.state, message: folder.message, health: undefined, error: undefined };
      if (!folder.opened) {
        reports.push(Object.freeze(base));
        continue;
      }
      try {
        const health = await this.request('health', { projectKey: folder.key });
        if (folder.pendingPaths.length > 0)
          health.warnings.push(vscode.l10n.t('{0} changed files are waiting to be re-indexed.', folder.pendingPaths.length));
        reports.push(Object.freeze({ ...base, health }));
      } catch (error) {
        reports.push(Object.freeze({ ...base, error: errorMessage(error) }));
      }
    }
    return reports;
  }

  get lastManifest(): Manifest | undefined {
    return this.manifest;
  }

  publishManifest(manifest: Manifest): void {
    this.manifest = manifest;
    this._onDidChangeManifest.fire(manifest);
  }

  /** Helpful/unhelpful chat feedback per request kind (no prompt text is kept). */
  recordFeedback(kind: string, helpful: boolean): void {
    this.chatFeedback.record(kind, helpful);
  }

  feedback(): ReadonlyArray<readonly [string, FeedbackCount]> {
    return this.chatFeedback.entries();
  }

  /**
   * Closes a folder's engine in the worker without telling its indexer, as a crashed worker would
   * leave it: the chat tests check that answers then go on without project context.
   */
  async loseEngineForTests(folderKey: string): Promise<void> {
    await this.request('close', { projectKey: folderKey });
  }
}
