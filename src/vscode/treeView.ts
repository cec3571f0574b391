import * as path from 'node:path';
import * as vscode from 'vscode';
import { displayText } from '../core/safeText';
import type { TreeFile, TreeItem as IndexItem } from '../core/worker/protocol';
import type { FolderSnapshot } from './folderIndexer';
import { Disposable } from './lifecycle';
import { fileUri } from './locations';
import type { IndexChange, IndexStatus, WorkspaceIndex } from './workspaceIndex';

/**
 * Status row, then folders → directories → files → declarations (or windows). Every node class
 * builds its own `TreeItem` and lists its own children; a directory asks the index for that
 * directory only. Every label, description and tooltip built from a path or a symbol name goes
 * through `displayText`, the same formatter the CLI uses, so bidi, zero-width, tag and control
 * characters show as `\uXXXX`.
 */
export type IndexNode = StatusNode | FolderNode | DirectoryNode | FileNode | ItemNode;

type ContainerNode = FolderNode | DirectoryNode;

/** What every node may read: the facade, for its children and the current status. */
interface NodeContext {
  readonly index: WorkspaceIndex;
}

function snapshotOf(context: NodeContext, folderKey: string): FolderSnapshot | undefined {
  return context.index.folderStatus(folderKey);
}

function isPending(context: NodeContext, folderKey: string, relativePath: string): boolean {
  return snapshotOf(context, folderKey)?.pendingPaths.includes(relativePath) === true;
}

/** Lists one directory of one folder: its subdirectories first, then its files. */
async function directoryChildren(
  context: NodeContext,
  folderKey: string,
  folder: vscode.WorkspaceFolder,
  directory: string,
  parent: ContainerNode | undefined,
): Promise<IndexNode[]> {
  const listing = await context.index.listDirectory(folderKey, directory).catch(() => ({ directories: [], files: [] }));
  return [
    ...listing.directories.map((relative) => new DirectoryNode(context, folderKey, folder, relative, parent)),
    ...listing.files.map((file) => new FileNode(context, folderKey, folder, file, parent)),
  ];
}

function describeStatus(status: IndexStatus): { label: string; description: string; tooltip: string; icon: string } {
  if (!status.trusted) {
    return {
      label: vscode.l10n.t('Untrusted'),
      description: vscode.l10n.t('Restricted Mode: nothing is indexed'),
      tooltip: vscode.l10n.t('Project Knowledge reads files only in trusted workspaces.'),
      icon: 'shield',
    };
  }
  const folders = status.folders;
  const totals = { files: 0, stale: 0 };
  let lastSync: number | undefined;
  const states = new Set(folders.map((folder) => folder.state));
  for (const folder of folders) {
    totals.files += folder.lastReport ? folder.lastReport.unchanged + folder.lastReport.reindexed : 0;
    totals.stale += folder.pendingPaths.length;
    if (folder.lastSync !== undefined && (lastSync === undefined || folder.lastSync > lastSync)) lastSync = folder.lastSync;
  }
  const indexing = folders.find((folder) => folder.state === 'indexing');
  if (indexing) {
    const progress = indexing.progress;
    return {
      label: vscode.l10n.t('Indexing'),
      description:
        progress && progress.total > 0
          ? vscode.l10n.t('{0} of {1} files', progress.done, progress.total)
          : vscode.l10n.t('discovering files'),
      tooltip: vscode.l10n.t('Indexing {0}', indexing.folder.name),
      icon: 'sync~spin',
    };
  }
  const errored = folders.find((folder) => folder.state === 'error' || folder.state === 'refused');
  if (errored)
    return {
      label: errored.state === 'refused' ? vscode.l10n.t('Refused') : vscode.l10n.t('Error'),
      description: displayText(errored.message ?? ''),
      tooltip: displayText(errored.message ?? ''),
      icon: 'error',
    };
  const when = lastSync !== undefined ? new Date(lastSync).toLocaleTimeString() : vscode.l10n.t('never');
  const label = states.has('stale') ? vscode.l10n.t('Stale') : states.has('ready') ? vscode.l10n.t('Ready') : vscode.l10n.t('Not indexed');
  return {
    label,
    description: vscode.l10n.t('{0} files · {1} stale · last sync {2}', totals.files, totals.stale, when),
    tooltip: vscode.l10n.t(
      'Trusted workspace. {0} files indexed, {1} changed files waiting to be re-indexed, last sync {2}.',
      totals.files,
      totals.stale,
      when,
    ),
    icon: states.has('stale') ? 'warning' : 'check',
  };
}

export class StatusNode {
  readonly kind = 'status';
  readonly id = 'status';
  readonly parent = undefined;
  constructor(private readonly context: NodeContext) {}

  treeItem(): vscode.TreeItem {
    const described = describeStatus(this.context.index.status());
    const item = new vscode.TreeItem(described.label, vscode.TreeItemCollapsibleState.None);
    item.id = this.id;
    item.description = described.description;
    item.tooltip = described.tooltip;
    item.iconPath = new vscode.ThemeIcon(described.icon);
    item.contextValue = 'pk.status';
    item.command = { command: 'projectKnowledge.healthCheck', title: vscode.l10n.t('Health Check') };
    return item;
  }

  async children(): Promise<IndexNode[]> {
    return [];
  }
}

export class FolderNode {
  readonly kind = 'folder';
  readonly parent = undefined;
  /** The state this row showed last, so a status change refreshes it only when the state changed. */
  shownState: string | undefined;
  constructor(
    private readonly context: NodeContext,
    readonly folderKey: string,
    readonly folder: vscode.WorkspaceFolder,
  ) {}

  get id(): string {
    return `folder:${this.folderKey}`;
  }

  treeItem(): vscode.TreeItem {
    const item = new vscode.TreeItem(displayText(this.folder.name), vscode.TreeItemCollapsibleState.Expanded);
    item.id = this.id;
    this.shownState = snapshotOf(this.context, this.folderKey)?.state;
    item.description = this.shownState;
    item.iconPath = vscode.ThemeIcon.Folder;
    item.contextValue = 'pk.folder';
    return item;
  }

  children(): Promise<IndexNode[]> {
    return directoryChildren(this.context, this.folderKey, this.folder, '', this);
  }
}

export class DirectoryNode {
  readonly kind = 'directory';
  constructor(
    private readonly context: NodeContext,
    readonly folderKey: string,
    readonly folder: vscode.WorkspaceFolder,
    readonly relativePath: string,
    readonly parent: ContainerNode | undefined,
  ) {}

  get id(): string {
    return `dir:${this.folderKey}:${this.relativePath}`;
  }

  treeItem(): vscode.TreeItem {
    const item = new vscode.TreeItem(displayText(path.posix.basename(this.relativePath)), vscode.TreeItemCollapsibleState.Collapsed);
    item.id = this.id;
    item.resourceUri = fileUri(this.folder, this.relativePath);
    item.iconPath = vscode.ThemeIcon.Folder;
    item.contextValue = 'pk.directory';
    return item;
  }

  children(): Promise<IndexNode[]> {
    return directoryChildren(this.context, this.folderKey, this.folder, this.relativePath, this);
  }
}

export class FileNode {
  readonly kind = 'file';
  /** Whether this row showed the file as stale last, so a status change refreshes it only when that changed. */
  shownStale: boolean | undefined;
  constructor(
    private readonly context: NodeContext,
    readonly folderKey: string,
    readonly folder: vscode.WorkspaceFolder,
    readonly file: TreeFile,
    readonly parent: ContainerNode | undefined,
  ) {}

  get id(): string {
    return `file:${this.folderKey}:${this.file.path}`;
  }

  get stale(): boolean {
    return isPending(this.context, this.folderKey, this.file.path);
  }

  treeItem(): vscode.TreeItem {
    const item = new vscode.TreeItem(displayText(path.posix.basename(this.file.path)), vscode.TreeItemCollapsibleState.Collapsed);
    item.id = this.id;
    item.resourceUri = fileUri(this.folder, this.file.path);
    const stale = this.stale;
    this.shownStale = stale;
    item.description = stale
      ? vscode.l10n.t('stale — re-indexing')
      : `${this.file.parser}${this.file.modified ? ' · ' + vscode.l10n.t('modified') : ''}`;
    item.tooltip = stale
      ? vscode.l10n.t('{0} changed after it was indexed; it is being re-indexed.', displayText(this.file.path))
      : vscode.l10n.t('{0} (SHA-256 {1})', displayText(this.file.path), this.file.sha256.slice(0, 12));
    item.iconPath = stale ? new vscode.ThemeIcon('warning') : vscode.ThemeIcon.File;
    item.contextValue = stale ? 'pk.file.stale' : 'pk.file';
    return item;
  }

  async children(): Promise<IndexNode[]> {
    const items = await this.context.index.items(this.folderKey, this.file.path).catch(() => []);
    return items.map((item) => new ItemNode(this.context, this, item));
  }
}

const symbolIcons = new Set(['class', 'interface', 'enum', 'method', 'function', 'struct', 'namespace', 'module', 'constant', 'property']);

export class ItemNode {
  readonly kind = 'item';
  constructor(
    private readonly context: NodeContext,
    readonly file: FileNode,
    readonly item: IndexItem,
  ) {}

  get parent(): FileNode {
    return this.file;
  }

  get id(): string {
    return `item:${this.file.folderKey}:${this.file.file.path}#${this.item.id}`;
  }

  get citation(): string {
    return `${this.file.file.path}#L${this.item.startLine}-L${this.item.endLine}@${this.item.sha256}`;
  }

  get uri(): vscode.Uri {
    return fileUri(this.file.folder, this.file.file.path);
  }

  treeItem(): vscode.TreeItem {
    const stale = isPending(this.context, this.file.folderKey, this.file.file.path);
    const item = new vscode.TreeItem(displayText(this.item.label), vscode.TreeItemCollapsibleState.None);
    item.id = this.id;
    const lines = `${this.item.startLine}-${this.item.endLine}`;
    item.description = `${displayText(this.item.kind)} · ${lines}${stale ? ' · ' + vscode.l10n.t('stale') : ''}`;
    item.tooltip = vscode.l10n.t('{0} lines {1}-{2}', displayText(this.file.file.path), this.item.startLine, this.item.endLine);
    const icon = this.item.kind === 'window' ? 'note' : `symbol-${symbolIcons.has(this.item.kind) ? this.item.kind : 'misc'}`;
    item.iconPath = new vscode.ThemeIcon(stale ? 'warning' : icon);
    item.contextValue = this.item.kind === 'window' ? 'pk.snippet' : 'pk.declaration';
    item.command = { command: 'projectKnowledge.openSnippet', title: vscode.l10n.t('Open Snippet'), arguments: [this] };
    return item;
  }

  async children(): Promise<IndexNode[]> {
    return [];
  }
}

/**
 * The provider: it owns no data of its own beyond the nodes it handed out, so a status change
 * refreshes only the rows that show it (the status row, a folder whose state changed, a file
 * whose staleness changed) and an index change only the directories it touched.
 */
export class IndexTreeProvider extends Disposable implements vscode.TreeDataProvider<IndexNode> {
  private readonly _onDidChangeTreeData = this._register(new vscode.EventEmitter<IndexNode | undefined>());
  readonly onDidChangeTreeData = this._onDidChangeTreeData.event;
  private readonly context: NodeContext;
  private readonly statusNode: StatusNode;
  /** Every node handed out since the last full refresh, by id. */
  private readonly nodes = new Map<string, IndexNode>();

  constructor(private readonly index: WorkspaceIndex) {
    super();
    this.context = { index };
    this.statusNode = new StatusNode(this.context);
    this._register(index.onDidChangeStatus(() => this.statusChanged()));
    this._register(index.onDidChangeIndex((change) => this.indexChanged(change)));
  }

  getTreeItem(node: IndexNode): vscode.TreeItem {
    return node.treeItem();
  }

  getParent(node: IndexNode): IndexNode | undefined {
    return node.parent;
  }

  async getChildren(node?: IndexNode): Promise<IndexNode[]> {
    const children = node ? await node.children() : await this.roots();
    for (const child of children) this.nodes.set(child.id, child);
    return children;
  }

  private async roots(): Promise<IndexNode[]> {
    // Untrusted: no rows, so VS Code shows the view's welcome content, which says why and
    // offers Manage Workspace Trust (a welcome view shows only while the tree is empty).
    const status = this.index.status();
    if (!status.trusted) return [];
    const opened = status.folders.filter((folder) => folder.opened);
    if (opened.length === 1) {
      // A single folder shows its top directory directly, without a folder row.
      const [only] = opened;
      return [this.statusNode, ...(await directoryChildren(this.context, only.key, only.folder, '', undefined))];
    }
    return [this.statusNode, ...opened.map((folder) => new FolderNode(this.context, folder.key, folder.folder))];
  }

  private refresh(node: IndexNode | undefined): void {
    if (!node) this.nodes.clear();
    this._onDidChangeTreeData.fire(node);
  }

  private statusChanged(): void {
    this.refresh(this.statusNode);
    for (const node of this.nodes.values()) {
      if (node.kind === 'folder' && node.shownState !== undefined && node.shownState !== this.index.folderStatus(node.folderKey)?.state)
        this._onDidChangeTreeData.fire(node);
      if (node.kind === 'file' && node.shownStale !== undefined && node.shownStale !== node.stale) this._onDidChangeTreeData.fire(node);
    }
  }

  /** Refreshes the directory rows holding the changed paths, or the whole tree when it cannot tell which. */
  private indexChanged(change: IndexChange): void {
    if (!change.paths) return this.refresh(undefined);
    const targets = new Set<IndexNode>();
    for (const changed of change.paths) {
      let directory = path.posix.dirname(changed);
      let target: IndexNode | undefined;
      while (!target && directory !== '.' && directory !== '') {
        target = this.nodes.get(`dir:${change.folderKey}:${directory}`);
        directory = path.posix.dirname(directory);
      }
      target ??= this.nodes.get(`folder:${change.folderKey}`);
      // A top-level path of a single-folder tree, or a directory never shown: only a full refresh reaches it.
      if (!target) return this.refresh(undefined);
      targets.add(target);
    }
    for (const target of targets) this._onDidChangeTreeData.fire(target);
  }
}
