import * as path from 'node:path';
import * as vscode from 'vscode';
import { displayText } from '../core/safeText';
import type { TreeFile, TreeItem as IndexItem } from '../core/worker/protocol';
import type { FolderStatus, IndexService } from './indexService';

/** Nodes of the index tree; each has a stable id so selection and expansion survive refreshes. */
export type IndexNode = StatusNode | FolderNode | DirectoryNode | FileNode | ItemNode;

export class StatusNode {
  readonly kind = 'status';
  constructor(readonly id: string) {}
}

export class FolderNode {
  readonly kind = 'folder';
  constructor(readonly status: FolderStatus) {}
  get id(): string {
    return `folder:${this.status.key}`;
  }
}

export class DirectoryNode {
  readonly kind = 'directory';
  constructor(
    readonly status: FolderStatus,
    readonly relativePath: string,
    readonly parent: FolderNode | DirectoryNode | undefined,
  ) {}
  get id(): string {
    return `dir:${this.status.key}:${this.relativePath}`;
  }
}

export class FileNode {
  readonly kind = 'file';
  constructor(
    readonly status: FolderStatus,
    readonly file: TreeFile,
    readonly parent: FolderNode | DirectoryNode | undefined,
  ) {}
  get id(): string {
    return `file:${this.status.key}:${this.file.path}`;
  }
}

export class ItemNode {
  readonly kind = 'item';
  constructor(
    readonly status: FolderStatus,
    readonly file: FileNode,
    readonly item: IndexItem,
  ) {}
  get id(): string {
    return `item:${this.status.key}:${this.file.file.path}#${this.item.id}`;
  }
  get citation(): string {
    return `${this.file.file.path}#L${this.item.startLine}-L${this.item.endLine}@${this.item.sha256}`;
  }
  get uri(): vscode.Uri {
    return vscode.Uri.joinPath(this.status.folder.uri, ...this.file.file.path.split('/'));
  }
}

function describeStatus(statuses: FolderStatus[], trusted: boolean): { label: string; description: string; tooltip: string; icon: string } {
  if (!trusted) {
    return {
      label: vscode.l10n.t('Untrusted'),
      description: vscode.l10n.t('Restricted Mode: nothing is indexed'),
      tooltip: vscode.l10n.t('Project Knowledge reads files only in trusted workspaces.'),
      icon: 'shield',
    };
  }
  const totals = { files: 0, snippets: 0, stale: 0 };
  let lastSync: Date | undefined;
  const states = new Set(statuses.map((status) => status.state));
  for (const status of statuses) {
    totals.files += status.lastReport ? status.lastReport.unchanged + status.lastReport.reindexed : 0;
    totals.stale += status.pendingPaths.size;
    if (status.lastSync && (!lastSync || status.lastSync > lastSync)) lastSync = status.lastSync;
  }
  const indexing = statuses.find((status) => status.state === 'indexing');
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
  const errored = statuses.find((status) => status.state === 'error' || status.state === 'refused');
  if (errored)
    return {
      label: errored.state === 'refused' ? vscode.l10n.t('Refused') : vscode.l10n.t('Error'),
      description: displayText(errored.message ?? ''),
      tooltip: displayText(errored.message ?? ''),
      icon: 'error',
    };
  const when = lastSync ? lastSync.toLocaleTimeString() : vscode.l10n.t('never');
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

/**
 * Status row, then folders → directories → files → declarations (or windows). Every label,
 * description and tooltip built from a path or a symbol name goes through `displayText`, the same
 * formatter the CLI uses, so bidi, zero-width, tag and control characters show as `\uXXXX`.
 */
export class IndexTreeProvider implements vscode.TreeDataProvider<IndexNode>, vscode.Disposable {
  private readonly onDidChangeTreeDataEmitter = new vscode.EventEmitter<IndexNode | undefined>();
  readonly onDidChangeTreeData = this.onDidChangeTreeDataEmitter.event;
  private readonly fileCache = new Map<string, TreeFile[]>();
  private readonly subscription: vscode.Disposable;

  constructor(private readonly service: IndexService) {
    this.subscription = service.onDidChange(() => {
      this.fileCache.clear();
      this.onDidChangeTreeDataEmitter.fire(undefined);
    });
  }

  dispose(): void {
    this.subscription.dispose();
    this.onDidChangeTreeDataEmitter.dispose();
  }

  getTreeItem(node: IndexNode): vscode.TreeItem {
    switch (node.kind) {
      case 'status': {
        const described = describeStatus(this.service.statuses(), vscode.workspace.isTrusted);
        const item = new vscode.TreeItem(described.label, vscode.TreeItemCollapsibleState.None);
        item.id = node.id;
        item.description = described.description;
        item.tooltip = described.tooltip;
        item.iconPath = new vscode.ThemeIcon(described.icon);
        item.contextValue = 'pk.status';
        item.command = { command: 'projectKnowledge.healthCheck', title: vscode.l10n.t('Health Check') };
        return item;
      }
      case 'folder': {
        const item = new vscode.TreeItem(displayText(node.status.folder.name), vscode.TreeItemCollapsibleState.Expanded);
        item.id = node.id;
        item.description = node.status.state;
        item.iconPath = vscode.ThemeIcon.Folder;
        item.contextValue = 'pk.folder';
        return item;
      }
      case 'directory': {
        const item = new vscode.TreeItem(displayText(path.posix.basename(node.relativePath)), vscode.TreeItemCollapsibleState.Collapsed);
        item.id = node.id;
        item.resourceUri = vscode.Uri.joinPath(node.status.folder.uri, ...node.relativePath.split('/'));
        item.iconPath = vscode.ThemeIcon.Folder;
        item.contextValue = 'pk.directory';
        return item;
      }
      case 'file': {
        const item = new vscode.TreeItem(displayText(path.posix.basename(node.file.path)), vscode.TreeItemCollapsibleState.Collapsed);
        item.id = node.id;
        const uri = vscode.Uri.joinPath(node.status.folder.uri, ...node.file.path.split('/'));
        item.resourceUri = uri;
        const stale = node.status.pendingPaths.has(node.file.path);
        item.description = stale
          ? vscode.l10n.t('stale — re-indexing')
          : `${node.file.parser}${node.file.modified ? ' · ' + vscode.l10n.t('modified') : ''}`;
        item.tooltip = stale
          ? vscode.l10n.t('{0} changed after it was indexed; it is being re-indexed.', displayText(node.file.path))
          : vscode.l10n.t('{0} (SHA-256 {1})', displayText(node.file.path), node.file.sha256.slice(0, 12));
        item.iconPath = stale ? new vscode.ThemeIcon('warning') : vscode.ThemeIcon.File;
        item.contextValue = stale ? 'pk.file.stale' : 'pk.file';
        return item;
      }
      case 'item': {
        const stale = node.status.pendingPaths.has(node.file.file.path);
        const item = new vscode.TreeItem(displayText(node.item.label), vscode.TreeItemCollapsibleState.None);
        item.id = node.id;
        item.description = `${displayText(node.item.kind)} · ${node.item.startLine}-${node.item.endLine}${stale ? ' · ' + vscode.l10n.t('stale') : ''}`;
        item.tooltip = vscode.l10n.t('{0} lines {1}-{2}', displayText(node.file.file.path), node.item.startLine, node.item.endLine);
        item.iconPath = new vscode.ThemeIcon(
          stale
            ? 'warning'
            : node.item.kind === 'window'
              ? 'note'
              : 'symbol-' +
                (['class', 'interface', 'enum', 'method', 'function', 'struct', 'namespace', 'module', 'constant', 'property'].includes(
                  node.item.kind,
                )
                  ? node.item.kind
                  : 'misc'),
        );
        item.contextValue = node.item.kind === 'window' ? 'pk.snippet' : 'pk.declaration';
        item.command = { command: 'projectKnowledge.openSnippet', title: vscode.l10n.t('Open Snippet'), arguments: [node] };
        return item;
      }
    }
  }

  getParent(node: IndexNode): IndexNode | undefined {
    switch (node.kind) {
      case 'item':
        return node.file;
      case 'file':
      case 'directory':
        return node.parent;
      default:
        return undefined;
    }
  }

  async getChildren(node?: IndexNode): Promise<IndexNode[]> {
    if (!node) {
      // Untrusted: no rows, so VS Code shows the view's welcome content, which says why and
      // offers Manage Workspace Trust (a welcome view shows only while the tree is empty).
      if (!vscode.workspace.isTrusted) return [];
      const children: IndexNode[] = [new StatusNode('status')];
      const statuses = this.service.statuses().filter((status) => status.opened);
      if (statuses.length === 1) return [...children, ...(await this.directoryChildren(statuses[0], '', undefined))];
      return [...children, ...statuses.map((status) => new FolderNode(status))];
    }
    switch (node.kind) {
      case 'folder':
        return this.directoryChildren(node.status, '', node);
      case 'directory':
        return this.directoryChildren(node.status, node.relativePath, node);
      case 'file': {
        const items = await this.service
          .engine()
          .request('fileItems', { projectKey: node.status.key, path: node.file.path })
          .catch(() => []);
        return items.map((item) => new ItemNode(node.status, node, item));
      }
      default:
        return [];
    }
  }

  private async files(status: FolderStatus): Promise<TreeFile[]> {
    let files = this.fileCache.get(status.key);
    if (!files) {
      files = await this.service
        .engine()
        .request('files', { projectKey: status.key })
        .catch(() => []);
      this.fileCache.set(status.key, files);
    }
    return files;
  }

  private async directoryChildren(
    status: FolderStatus,
    directory: string,
    parent: FolderNode | DirectoryNode | undefined,
  ): Promise<IndexNode[]> {
    const prefix = directory ? `${directory}/` : '';
    const directories = new Set<string>();
    const files: FileNode[] = [];
    for (const file of await this.files(status)) {
      if (!file.path.startsWith(prefix)) continue;
      const rest = file.path.slice(prefix.length);
      const slash = rest.indexOf('/');
      if (slash === -1) files.push(new FileNode(status, file, parent));
      else directories.add(prefix + rest.slice(0, slash));
    }
    return [...[...directories].sort().map((relative) => new DirectoryNode(status, relative, parent)), ...files];
  }
}
