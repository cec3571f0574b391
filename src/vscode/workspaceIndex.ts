import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Health } from '../core/health';
import type { Manifest } from '../core/retrieval/manifest';
import type { Retrieval, RetrieveOptions, VerifiedSnippet } from '../core/retrieval/retrieve';
import type { SyncProgress } from '../core/sync';
import type { ToolAnswer, ToolName } from '../core/tools/toolSet';
import type { CurationOp, CurationOps, CurationRequest } from '../core/curation/requests';
import { EngineClient } from '../core/worker/engineClient';
import type { RequestMap, RequestName, TreeDirectory, TreeItem } from '../core/worker/protocol';
import { readConfig } from './config';
import { FolderIndexer, overallState, type FolderEngine, type FolderSnapshot, type FolderState } from './folderIndexer';
import { Disposable, timeout } from './lifecycle';

/** An immutable picture of the whole workspace index; a new one is made after every change. */
export interface IndexStatus {
  readonly trusted: boolean;
  readonly state: FolderState;
  readonly folders: readonly FolderSnapshot[];
}

/** Which paths of which folder changed in the index; `paths` undefined means any of the folder's may have. */
export interface IndexChange {
  readonly folderKey: string;
  readonly paths: readonly string[] | undefined;
}

/** One request sent to the worker, for the tests that count them (no query text is kept). */
export interface RequestRecord {
  readonly seq: number;
  readonly name: RequestName;
  readonly projectKey: string | undefined;
  readonly paths: readonly string[] | undefined;
  readonly path: string | undefined;
}

/** The health of one folder: the engine's report when its index is open, else its state and why. */
export interface FolderHealth {
  readonly folder: vscode.WorkspaceFolder;
  readonly state: FolderState;
  readonly message: string | undefined;
  readonly health: Health | undefined;
  readonly error: string | undefined;
}

/**
 * One quoted block as the worker made it, paired by its manifest id: a pin or source block with
 * the snippet it quotes, or a memory block (the user's claim, which quotes no file).
 */
export type QuotedBlock =
  | { readonly kind: 'snippet'; readonly snippetId: string; readonly text: string; readonly result: VerifiedSnippet }
  | { readonly kind: 'memory'; readonly snippetId: string; readonly text: string };

/** What the worker would give a model for one folder: its preamble, blocks and manifest summary. */
export interface FolderContext {
  readonly folder: vscode.WorkspaceFolder;
  readonly preamble: string;
  readonly blocks: readonly QuotedBlock[];
  readonly summary: string;
  readonly retrieval: Retrieval;
}

export type FolderRetrieval = Retrieval & { folder: vscode.WorkspaceFolder };

/** `deactivate` waits at most this long for the last database writes (VS Code gives an extension about 5 s). */
const shutdownTimeoutMs = 3000;
/** Status events from progress and merged file events are sent at most once per this many milliseconds. */
const statusThrottleMs = 100;
/** The request journal keeps this many records. */
const journalLength = 1000;

/** The size, mtime and inode of a file, or `missing`: two events for the same write have the same identity. */
async function fileIdentity(fsPath: string): Promise<string> {
  try {
    const stat = await fs.promises.stat(fsPath);
    return `${stat.size}:${stat.mtimeMs}:${stat.ino}`;
  } catch {
    return 'missing';
  }
}

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

  private readonly _onDidChangeStatus = this._register(new vscode.EventEmitter<IndexStatus>());
  /** State, progress, pending paths: anything shown about the index (throttled for progress). */
  readonly onDidChangeStatus = this._onDidChangeStatus.event;
  private readonly _onDidChangeIndex = this._register(new vscode.EventEmitter<IndexChange>());
  /** The indexed content changed: once per sync that changed something. */
  readonly onDidChangeIndex = this._onDidChangeIndex.event;
  private readonly _onDidChangeManifest = this._register(new vscode.EventEmitter<Manifest>());
  readonly onDidChangeManifest = this._onDidChangeManifest.event;
  private readonly _onDidGrantTrust = this._register(new vscode.EventEmitter<void>());
  readonly onDidGrantTrust = this._onDidGrantTrust.event;

  private statusCache: IndexStatus | undefined;
  private statusTimer: vscode.Disposable | undefined;
  private lastContextState: FolderState | undefined;
  private manifest: Manifest | undefined;
  private readonly journal: RequestRecord[] = [];
  private sequence = 0;
  private readonly feedbackCounts = new Map<string, { helpful: number; unhelpful: number }>();
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
      new vscode.Disposable(() => {
        this.statusTimer?.dispose();
      }),
    );
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
    if (!this.statusCache) {
      const folders = Object.freeze([...this.indexers.values()].map((indexer) => indexer.snapshot()));
      this.statusCache = Object.freeze({
        trusted: this.trustedFlag,
        state: overallState(
          this.trustedFlag,
          folders.map((folder) => folder.state),
        ),
        folders,
      });
    }
    return this.statusCache;
  }

  /** The snapshot of one folder, by its key (`uri.toString()`). */
  folderStatus(folderKey: string): FolderSnapshot | undefined {
    return this.status().folders.find((folder) => folder.key === folderKey);
  }

  private statusChanged(urgent: boolean): void {
    this.statusCache = undefined;
    if (urgent) {
      this.statusTimer?.dispose();
      this.statusTimer = undefined;
      this.fireStatus();
    } else {
      this.statusTimer ??= timeout(() => {
        this.statusTimer = undefined;
        this.fireStatus();
      }, statusThrottleMs);
    }
  }

  private fireStatus(): void {
    const status = this.status();
    if (status.state !== this.lastContextState) {
      this.lastContextState = status.state;
      void vscode.commands.executeCommand('setContext', 'projectKnowledge.state', status.state);
    }
    this._onDidChangeStatus.fire(status);
  }

  async counters() {
    if (!this.client.started) return { fsCalls: 0, gitCalls: 0, engineOpens: 0, workerStarted: false };
    return { ...(await this.request('counters', {})), workerStarted: true };
  }

  /** The requests sent to the worker, oldest first (the last 1,000). */
  requests(): readonly RequestRecord[] {
    return Object.freeze([...this.journal]);
  }

  // ---- worker requests: the only place that sends any -----------------------------------------

  private request<N extends RequestName>(name: N, params: RequestMap[N]['params']): Promise<RequestMap[N]['result']> {
    const fields = params as { projectKey?: string; paths?: string[]; path?: string };
    this.journal.push(
      Object.freeze({
        seq: ++this.sequence,
        name,
        projectKey: fields.projectKey,
        paths: fields.paths && Object.freeze([...fields.paths]),
        path: fields.path,
      }),
    );
    if (this.journal.length > journalLength) this.journal.shift();
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

  /** The database of one folder: global storage, named by a hash of the canonical root. */
  async databaseFor(folder: vscode.WorkspaceFolder): Promise<string> {
    const canonical = await fs.promises.realpath(folder.uri.fsPath);
    const directory = path.join(this.extensionContext.globalStorageUri.fsPath, 'indexes');
    await fs.promises.mkdir(directory, { recursive: true });
    return path.join(directory, `${createHash('sha256').update(canonical).digest('hex').slice(0, 24)}.sqlite`);
  }

  private async open(folder: vscode.WorkspaceFolder): Promise<{ loadedFromDisk: boolean }> {
    let dbPath: string | undefined;
    try {
      dbPath = await this.databaseFor(folder);
    } catch (error) {
      // A full or read-only global storage must not stop indexing: keep the index in memory.
      this.log.warn(`Global storage is not writable (${String(error)}); the index of ${folder.name} stays in memory.`);
    }
    const config = readConfig(folder);
    const request = { projectKey: folder.uri.toString(), root: folder.uri.fsPath, options: config.engine, rankingMode: config.rankingMode };
    const opened = await this.request('open', { ...request, dbPath }).catch(async (error: unknown) => {
      // Something that is not our index sits at the storage path: it is left alone, and the
      // index of this folder stays in memory rather than not existing.
      if (!dbPath || (error as { remoteName?: string }).remoteName !== 'DatabaseRefusedError') throw error;
      this.log.warn(`${error instanceof Error ? error.message : String(error)} The index of ${folder.name} stays in memory.`);
      return this.request('open', request);
    });
    if (opened.openNote) this.log.warn(opened.openNote);
    this.log.info(`Opened the index of ${folder.name}${opened.loadedFromDisk ? ' from global storage' : ' (new)'}.`);
    return { loadedFromDisk: opened.loadedFromDisk };
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
        this._register(indexer.onDidChangeStatus(({ urgent }) => this.statusChanged(urgent)));
        this._register(indexer.onDidChangeIndex((change) => this._onDidChangeIndex.fire({ folderKey: change.key, paths: change.paths })));
      }
      indexer.refresh(this.trustedFlag);
    }
    this.statusChanged(true);
  }

  /** A file event (watcher, save, rename): the path is marked stale at once and its debounced sync scheduled. */
  async noteChanged(uri: vscode.Uri): Promise<void> {
    if (!this.trustedFlag || uri.scheme !== 'file') return;
    const folder = vscode.workspace.getWorkspaceFolder(uri);
    const indexer = folder && this.indexers.get(folder.uri.toString());
    if (!folder || !indexer) return;
    const relative = path.relative(folder.uri.fsPath, uri.fsPath).split(path.sep).join('/');
    if (!relative || relative.startsWith('..') || relative.split('/')[0] === '.git') return;
    indexer.noteChanged(relative, await fileIdentity(uri.fsPath));
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
      let timer: NodeJS.Timeout | undefined;
      const expired = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
      const closed = Promise.all(
        [...this.indexers.values()].map((indexer) =>
          indexer.close().catch((error: unknown) => this.log.error(`Closing the index of ${indexer.folder.name} failed`, error)),
        ),
      ).then(() => true);
      const finished = await Promise.race([closed, expired]);
      clearTimeout(timer);
      if (!finished) this.log.warn(`The index was not written within ${timeoutMs} ms of shutdown; the next start re-reads what changed.`);
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

  /** Searches every indexed folder; the first folder's manifest becomes the last manifest unless `publish` is false. */
  async search(query: string, options: RetrieveOptions = {}, publish = true): Promise<FolderRetrieval[]> {
    const retrievals: FolderRetrieval[] = [];
    for (const { folder, folderKey } of this.queryableFolders()) {
      const retrieval = await this.request('search', { projectKey: folderKey, query, options: this.retrieveOptions(folder, options) });
      retrievals.push({ ...retrieval, folder });
    }
    const first = retrievals[0];
    if (first && publish) this.publishManifest(first.manifest);
    return retrievals;
  }

  /** The worker's quoted blocks for every indexed folder, each paired with its snippet by id. */
  async context(query: string, options: RetrieveOptions = {}, publish = true): Promise<FolderContext[]> {
    const contexts: FolderContext[] = [];
    for (const { folder, folderKey } of this.queryableFolders()) {
      const context = await this.request('context', { projectKey: folderKey, query, options: this.retrieveOptions(folder, options) });
      const snippets = new Map(context.retrieval.results.map((result) => [result.id, result]));
      const memory = new Set(context.retrieval.memory.map((item) => item.id));
      const blocks = context.blockIds.flatMap((snippetId, index): QuotedBlock[] => {
        const text = context.blocks[index];
        const result = snippets.get(snippetId);
        if (result) return [Object.freeze({ kind: 'snippet', snippetId, text, result })];
        return memory.has(snippetId) ? [Object.freeze({ kind: 'memory', snippetId, text })] : [];
      });
      contexts.push(Object.freeze({ folder, preamble: context.preamble, blocks, summary: context.summary, retrieval: context.retrieval }));
    }
    const first = contexts[0];
    if (first && publish) this.publishManifest(first.retrieval.manifest);
    return contexts;
  }

  /** One directory of one folder's index for the tree view (nothing while untrusted or not open). */
  async listDirectory(folderKey: string, directory: string): Promise<TreeDirectory> {
    if (!this.queryableFolders().some((folder) => folder.folderKey === folderKey)) return { directories: [], files: [] };
    return this.request('directory', { projectKey: folderKey, path: directory });
  }

  /** The declarations (or windows) of one indexed file. */
  async items(folderKey: string, relativePath: string): Promise<TreeItem[]> {
    if (!this.queryableFolders().some((folder) => folder.folderKey === folderKey)) return [];
    return this.request('fileItems', { projectKey: folderKey, path: relativePath });
  }

  /** One agent tool in one folder, its raw input checked in the worker (the same `runTool` as `pk mcp`). */
  tool(folderKey: string, name: ToolName, input: unknown): Promise<ToolAnswer> {
    if (!this.queryableFolders().some((folder) => folder.folderKey === folderKey))
      return Promise.reject(new Error('This folder has no open index.'));
    return this.request('tool', { projectKey: folderKey, name, input });
  }

  /**
   * One curation request (pins, memory, labels, the ranker) in one folder; the worker writes the
   * project's curation log. Refusals (a conflicting claim, an unknown id) reject with their message.
   */
  curate<N extends CurationOp>(folderKey: string, op: N, params: CurationOps[N]['params']): Promise<CurationOps[N]['result']> {
    if (!this.queryableFolders().some((folder) => folder.folderKey === folderKey))
      return Promise.reject(new Error(vscode.l10n.t('This folder has no open index.')));
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
        reports.push(Object.freeze({ ...base, error: error instanceof Error ? error.message : String(error) }));
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
    const counts = this.feedbackCounts.get(kind) ?? { helpful: 0, unhelpful: 0 };
    if (helpful) counts.helpful++;
    else counts.unhelpful++;
    this.feedbackCounts.set(kind, counts);
  }

  feedback(): ReadonlyArray<readonly [string, Readonly<{ helpful: number; unhelpful: number }>]> {
    return [...this.feedbackCounts].map(([kind, counts]) => Object.freeze([kind, Object.freeze({ ...counts })] as const));
  }

  /**
   * Closes a folder's engine in the worker without telling its indexer, as a crashed worker would
   * leave it: the chat tests check that answers then go on without project context.
   */
  async loseEngineForTests(folderKey: string): Promise<void> {
    await this.request('close', { projectKey: folderKey });
  }
}
