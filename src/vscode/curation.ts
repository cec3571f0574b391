import * as vscode from 'vscode';
import { errorMessage } from '../core/errorMessage';
import type { ListedPin, CurationOp, CurationOps } from '../core/curation/requests';
import type { PinTarget } from '../core/curation/log';
import type { RankingMode } from '../core/curation/ranker';
import { displayText } from '../core/safeText';
import { readConfig } from './config';
import { Disposable } from './lifecycle';
import { fileUri } from './locations';
import type { FileNode, ItemNode } from './treeView';
import type { WorkspaceIndex } from './workspaceIndex';

/**
 * Pins, memory, feedback labels and the learned ranker in VS Code: the pins view, the pin,
 * unpin, label and Train Ranker commands, and the ranking-mode setting. Every request goes
 * through the `WorkspaceIndex` facade (`curate`), whose worker writes the project's curation log.
 */
export class Curation extends Disposable {
  constructor(
    readonly index: WorkspaceIndex,
    private readonly log: vscode.LogOutputChannel,
  ) {
    super();
  }

  private readonly _onDidChange = this._register(new vscode.EventEmitter<void>());
  /** Fires after a pin, unpin or label changed what the log holds. */
  readonly onDidChange = this._onDidChange.event;

  /** The key (the folder URI) of a folder open for queries; with no folder given, the first open one. */
  projectOf(folder: vscode.WorkspaceFolder | undefined): string | undefined {
    const open = this.index.queryableFolders();
    return (open.find((entry) => entry.folder.uri.toString() === folder?.uri.toString()) ?? (folder ? undefined : open[0]))?.folderKey;
  }

  async curate<N extends CurationOp>(projectKey: string, op: N, params: CurationOps[N]['params']): Promise<CurationOps[N]['result']> {
    const result = await this.index.curate(projectKey, op, params);
    if (op !== 'pins' && op !== 'memory' && op !== 'health') this._onDidChange.fire();
    return result;
  }

  /** Pins in every open folder, for the pins view. */
  async allPins(): Promise<Array<{ folder: vscode.WorkspaceFolder; projectKey: string; pin: ListedPin }>> {
    const pins = [];
    for (const { folder, folderKey: projectKey } of this.index.queryableFolders()) {
      const listed = await this.curate(projectKey, 'pins', {}).catch((error: unknown) => {
        this.log.warn(`Pins of ${folder.name} are unavailable: ${errorMessage(error)}`);
        return [];
      });
      for (const pin of listed) pins.push({ folder, projectKey, pin });
    }
    return pins;
  }

  async pin(folder: vscode.WorkspaceFolder, target: PinTarget): Promise<void> {
    const projectKey = this.projectOf(folder);
    if (!projectKey) throw new Error(vscode.l10n.t('The folder {0} is not indexed yet.', folder.name));
    const result = await this.curate(projectKey, 'pin', { target });
    void vscode.window.showInformationMessage(
      result.created
        ? vscode.l10n.t('Pinned {0}.', displayText(target.path))
        : vscode.l10n.t('{0} is already pinned.', displayText(target.path)),
    );
  }

  /** Sends the ranking mode setting to every open engine (it applies without re-indexing). */
  async applyRankingMode(): Promise<void> {
    for (const { folder, folderKey } of this.index.queryableFolders()) {
      const mode: RankingMode = readConfig(folder).rankingMode;
      await this.curate(folderKey, 'setRankingMode', { mode }).catch((error: unknown) => this.log.warn(String(error)));
    }
  }
}

/** One pin in the pins view; it builds its own row. */
export class PinNode {
  constructor(
    readonly folder: vscode.WorkspaceFolder,
    readonly projectKey: string,
    readonly pin: ListedPin,
  ) {}

  get id(): string {
    return `pin:${this.projectKey}:${this.pin.id}`;
  }

  treeItem(): vscode.TreeItem {
    const { pin } = this;
    const item = new vscode.TreeItem(displayText(pin.label), vscode.TreeItemCollapsibleState.None);
    item.id = this.id;
    const stale = pin.status === 'stale';
    item.description = stale
      ? vscode.l10n.t('stale: {0}', pin.reason ?? '')
      : pin.status === 'moved'
        ? vscode.l10n.t('moved to {0}:{1}-{2}', displayText(pin.path), pin.startLine, pin.endLine)
        : vscode.l10n.t('lines {0}-{1}', pin.startLine, pin.endLine);
    item.tooltip = stale
      ? vscode.l10n.t('Not served: what this pin pointed at was not found in the live file.')
      : vscode.l10n.t('Always sent first to @project, live-hash verified.');
    item.contextValue = stale ? 'pk.pin.stale' : 'pk.pin';
    item.iconPath = new vscode.ThemeIcon(stale ? 'warning' : 'pinned');
    if (!stale)
      item.command = {
        command: 'projectKnowledge.openSnippet',
        title: vscode.l10n.t('Open'),
        arguments: [{ uri: fileUri(this.folder, pin.path), startLine: pin.startLine, endLine: pin.endLine }],
      };
    return item;
  }
}

/**
 * The pins view: every active pin with where it stands now (current, moved, or stale and not
 * served). It refreshes when the log changes, when the index changes (a pin may move or go
 * stale), and when the set of folders open for queries changes, never on progress alone.
 */
export class PinsTreeProvider extends Disposable implements vscode.TreeDataProvider<PinNode> {
  private readonly _onDidChangeTreeData = this._register(new vscode.EventEmitter<PinNode | undefined>());
  readonly onDidChangeTreeData = this._onDidChangeTreeData.event;
  private openFolders = '';

  constructor(private readonly curation: Curation) {
    super();
    const refresh = () => this._onDidChangeTreeData.fire(undefined);
    this._register(curation.onDidChange(refresh));
    this._register(curation.index.onDidChangeIndex(refresh));
    this._register(
      curation.index.onDidChangeStatus(() => {
        const open = curation.index
          .queryableFolders()
          .map((entry) => entry.folderKey)
          .join('\n');
        if (open === this.openFolders) return;
        this.openFolders = open;
        refresh();
      }),
    );
  }

  async getChildren(node?: PinNode): Promise<PinNode[]> {
    if (node) return [];
    return (await this.curation.allPins()).map((entry) => new PinNode(entry.folder, entry.projectKey, entry.pin));
  }

  getTreeItem(node: PinNode): vscode.TreeItem {
    return node.treeItem();
  }
}

/** What the pin command accepts: a tree node, a plain target from the manifest, or nothing (the active editor). */
type PinArgument = ItemNode | FileNode | { root?: string; path: string; startLine?: number; endLine?: number; symbol?: string } | undefined;

function editorTarget(): { folder: vscode.WorkspaceFolder; target: PinTarget } | undefined {
  const editor = vscode.window.activeTextEditor;
  const folder = editor && vscode.workspace.getWorkspaceFolder(editor.document.uri);
  if (!editor || !folder) return undefined;
  const path = vscode.workspace.asRelativePath(editor.document.uri, false);
  const { selection } = editor;
  if (selection.isEmpty) return { folder, target: { target: 'file', path } };
  return { folder, target: { target: 'range', path, startLine: selection.start.line + 1, endLine: selection.end.line + 1 } };
}

function folderOfRoot(index: WorkspaceIndex, root: string | undefined): vscode.WorkspaceFolder | undefined {
  const folders = index.queryableFolders().map((entry) => entry.folder);
  return folders.find((folder) => folder.uri.fsPath === root) ?? folders[0];
}

export function pinTargetOf(
  index: WorkspaceIndex,
  argument: PinArgument,
): { folder: vscode.WorkspaceFolder; target: PinTarget } | undefined {
  // Told apart by `kind`, not `instanceof`: a node may come from another copy of the tree module (the tests).
  if (argument && 'kind' in argument && argument.kind === 'item') {
    const path = argument.file.file.path;
    const { item } = argument;
    const target: PinTarget =
      item.kind === 'window'
        ? { target: 'range', path, startLine: item.startLine, endLine: item.endLine }
        : { target: 'declaration', path, qualifiedName: item.label };
    return { folder: argument.file.folder, target };
  }
  if (argument && 'kind' in argument && argument.kind === 'file')
    return { folder: argument.folder, target: { target: 'file', path: argument.file.path } };
  if (argument && !('kind' in argument) && typeof argument.path === 'string') {
    const folder = folderOfRoot(index, argument.root);
    if (!folder) return undefined;
    const { path, startLine, endLine, symbol } = argument;
    if (symbol) return { folder, target: { target: 'declaration', path, qualifiedName: symbol } };
    if (startLine && endLine) return { folder, target: { target: 'range', path, startLine, endLine } };
    return { folder, target: { target: 'file', path } };
  }
  return editorTarget();
}

function reportError(log: vscode.LogOutputChannel, error: unknown): void {
  const message = errorMessage(error);
  log.warn(message);
  void vscode.window.showWarningMessage(displayText(message));
}

/** The curation commands, the pins view and the ranking-mode listener. */
export function registerCuration(
  index: WorkspaceIndex,
  log: vscode.LogOutputChannel,
): { curation: Curation; disposables: vscode.Disposable[] } {
  const curation = new Curation(index, log);
  const pins = new PinsTreeProvider(curation);
  const view = vscode.window.createTreeView('projectKnowledge.pins', { treeDataProvider: pins });
  const label = (useful: boolean) => async (entry?: { root?: string; query?: string; snippetId?: string }) => {
    if (!entry?.query || !entry.snippetId) return;
    const folder = folderOfRoot(index, entry.root);
    const projectKey = curation.projectOf(folder);
    if (!projectKey) return;
    try {
      await curation.curate(projectKey, 'label', {
        query: entry.query,
        label: useful ? 'useful' : 'not-useful',
        source: 'manifest',
        snippetIds: [entry.snippetId],
      });
      void vscode.window.showInformationMessage(useful ? vscode.l10n.t('Marked as useful.') : vscode.l10n.t('Marked as not useful.'));
    } catch (error) {
      reportError(log, error);
    }
  };
  const disposables: vscode.Disposable[] = [
    curation,
    pins,
    view,
    vscode.commands.registerCommand('projectKnowledge.pin', async (argument?: PinArgument) => {
      const chosen = pinTargetOf(index, argument);
      if (!chosen) {
        void vscode.window.showInformationMessage(
          vscode.l10n.t('Open a file of an indexed folder, or pick a file or declaration in the index view, to pin it.'),
        );
        return;
      }
      await curation.pin(chosen.folder, chosen.target).catch((error: unknown) => reportError(log, error));
    }),
    vscode.commands.registerCommand('projectKnowledge.unpin', async (node?: PinNode) => {
      if (!(node instanceof PinNode)) return;
      await curation.curate(node.projectKey, 'unpin', { id: node.pin.id }).catch((error: unknown) => reportError(log, error));
    }),
    vscode.commands.registerCommand('projectKnowledge.markUseful', label(true)),
    vscode.commands.registerCommand('projectKnowledge.markNotUseful', label(false)),
    vscode.commands.registerCommand('projectKnowledge.trainRanker', () => trainRanker(curation, log)),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration('projectKnowledge.ranking.mode')) void curation.applyRankingMode();
    }),
  ];
  return { curation, disposables };
}

async function trainRanker(curation: Curation, log: vscode.LogOutputChannel): Promise<void> {
  const folders = curation.index.queryableFolders();
  if (folders.length === 0) {
    void vscode.window.showWarningMessage(vscode.l10n.t('No indexed folder to train a ranker for.'));
    return;
  }
  for (const { folder, folderKey } of folders) {
    try {
      const trained = await curation.curate(folderKey, 'train', {});
      const { promotion } = trained;
      const message = promotion.passed
        ? vscode.l10n.t(
            '{0}: ranker {1} trained on {2} labels and promoted (quality {3} vs {4}).',
            folder.name,
            trained.modelId,
            trained.labels,
            promotion.modelQuality,
            promotion.staticQuality,
          )
        : vscode.l10n.t(
            '{0}: ranker {1} trained on {2} labels, not promoted: {3}',
            folder.name,
            trained.modelId,
            trained.labels,
            promotion.reasons.join('; '),
          );
      log.info(message);
      void vscode.window.showInformationMessage(message);
    } catch (error) {
      reportError(log, error);
    }
  }
}
