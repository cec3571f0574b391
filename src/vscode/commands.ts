import * as vscode from 'vscode';
import { errorMessage } from '../core/errorMessage';
import type { VerifiedSnippet } from '../core/retrieval/retrieve';
import type { ManifestPanel } from './manifestPanel';
import { ItemNode } from './treeView';
import { healthSections } from './healthReport';
import { fileUri } from './locations';
import type { WorkspaceIndex } from './workspaceIndex';

export interface CommandContext {
  index: WorkspaceIndex;
  manifest: ManifestPanel;
  log: vscode.LogOutputChannel;
}

/** A location to open: a tree item, or a plain object from the webview, quick pick or chat. */
type SnippetTarget = ItemNode | { uri: vscode.Uri; startLine: number; endLine: number; citation?: string };

async function openSnippet(target: SnippetTarget): Promise<void> {
  const uri = target instanceof ItemNode ? target.uri : target.uri;
  const start = target instanceof ItemNode ? target.item.startLine : target.startLine;
  const end = target instanceof ItemNode ? target.item.endLine : target.endLine;
  const document = await vscode.workspace.openTextDocument(uri);
  const range = new vscode.Range(start - 1, 0, Math.max(start - 1, end - 1), Number.MAX_SAFE_INTEGER);
  await vscode.window.showTextDocument(document, { selection: new vscode.Range(range.start, range.start), preview: true });
  const editor = vscode.window.activeTextEditor;
  if (editor) editor.revealRange(range, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
}

function requireTrust(index: WorkspaceIndex): boolean {
  if (index.trusted) return true;
  void vscode.window
    .showWarningMessage(
      vscode.l10n.t('Project Knowledge works only in trusted workspaces. Trust this folder to index it.'),
      vscode.l10n.t('Manage Workspace Trust'),
    )
    .then((choice) => {
      if (choice) void vscode.commands.executeCommand('workbench.trust.manage');
    });
  return false;
}

/** Every command: one flat registry of small factories; the `projectKnowledge.` prefix is added in one place. */
export const commandFactories: Record<string, (context: CommandContext) => (...args: never[]) => unknown> = {
  rebuildIndex:
    ({ index }) =>
    async (confirmed?: boolean) => {
      if (!requireTrust(index)) return;
      const rebuild = vscode.l10n.t('Rebuild');
      const answer =
        confirmed === true
          ? rebuild
          : await vscode.window.showWarningMessage(
              vscode.l10n.t('Rebuild the Project Knowledge index? Every file is read again.'),
              { modal: true },
              rebuild,
            );
      if (answer !== rebuild) return;
      await vscode.window.withProgress(
        {
          location: vscode.ProgressLocation.Notification,
          title: vscode.l10n.t('Rebuilding the Project Knowledge index'),
          cancellable: true,
        },
        (progress, token) =>
          index.rebuild((folder, update) => {
            if (update.phase === 'indexing' && update.total > 0)
              progress.report({ message: vscode.l10n.t('{0}: {1} of {2} files', folder.name, update.done, update.total) });
          }, token),
      );
    },

  indexWorkspace:
    ({ index }) =>
    async () => {
      if (!requireTrust(index)) return;
      // Resolves once every folder's sync has settled, so the state it leaves is the final one.
      await index.syncAll();
    },

  healthCheck:
    ({ index }) =>
    async () => {
      const sections = await healthSections(index);
      const document = await vscode.workspace.openTextDocument({ content: sections.join('\n\n') + '\n', language: 'plaintext' });
      await vscode.window.showTextDocument(document, { preview: true });
      return sections.join('\n\n');
    },

  showManifest:
    ({ manifest }) =>
    (highlight?: string) => {
      manifest.show(typeof highlight === 'string' ? highlight : undefined);
    },

  searchSnippets:
    ({ index, log }) =>
    async () => {
      if (!requireTrust(index)) return;
      type Pick = vscode.QuickPickItem & { result?: VerifiedSnippet; folder?: vscode.WorkspaceFolder };
      const quickPick = vscode.window.createQuickPick<Pick>();
      quickPick.placeholder = vscode.l10n.t('Search symbols, paths, phrases or words');
      quickPick.matchOnDescription = true;
      quickPick.matchOnDetail = true;
      let generation = 0;
      let timer: NodeJS.Timeout | undefined;
      const run = (value: string) => {
        const mine = ++generation;
        if (!value.trim()) {
          quickPick.items = [];
          return;
        }
        quickPick.busy = true;
        index
          .search(value)
          .then(
            (retrievals) => {
              if (mine !== generation) return;
              quickPick.items = retrievals.flatMap((retrieval) =>
                retrieval.results.map((result) => ({
                  label: `${result.path}:${result.startLine}-${result.endLine}`,
                  description: `${result.symbol ?? ''} ${result.reason} ${result.score}`.trim(),
                  detail: result.text
                    .split('\n')
                    .find((line) => line.trim().length > 0)
                    ?.trim()
                    .slice(0, 160),
                  alwaysShow: true,
                  result,
                  folder: retrieval.folder,
                })),
              );
            },
            (error: unknown) => {
              log.error(`Search failed: ${String(error)}`);
              quickPick.items = [{ label: vscode.l10n.t('Search failed: {0}', errorMessage(error)), alwaysShow: true }];
            },
          )
          .finally(() => {
            if (mine === generation) quickPick.busy = false;
          });
      };
      quickPick.onDidChangeValue((value) => {
        clearTimeout(timer);
        timer = setTimeout(() => run(value), 150);
      });
      quickPick.onDidAccept(() => {
        const chosen = quickPick.selectedItems[0];
        if (chosen?.result && chosen.folder) {
          void openSnippet({
            uri: fileUri(chosen.folder, chosen.result.path),
            startLine: chosen.result.startLine,
            endLine: chosen.result.endLine,
          });
        }
        quickPick.hide();
      });
      // Disposing the quick pick disposes its listeners; a search still waiting for the typing to pause is dropped.
      quickPick.onDidHide(() => {
        clearTimeout(timer);
        quickPick.dispose();
      });
      quickPick.show();
    },

  openSnippet: () => (target?: SnippetTarget) => (target ? openSnippet(target) : undefined),

  copyCitation: () => async (target?: ItemNode | { citation: string }) => {
    const citation = target instanceof ItemNode ? target.citation : target?.citation;
    if (!citation) return;
    await vscode.env.clipboard.writeText(citation);
    void vscode.window.setStatusBarMessage(vscode.l10n.t('Copied {0}', citation), 3000);
    return citation;
  },

  revealInManifest:
    ({ index, manifest }) =>
    async (target?: ItemNode) => {
      if (!(target instanceof ItemNode) || !requireTrust(index)) return;
      const query = target.item.kind === 'window' ? target.file.file.path : target.item.label;
      await index.search(query);
      const entry = index.lastManifest?.entries.find(
        (candidate) =>
          candidate.path === target.file.file.path &&
          candidate.startLine <= target.item.startLine &&
          candidate.endLine >= target.item.startLine,
      );
      manifest.show(entry?.snippetId);
    },
};

export function registerCommands(context: CommandContext): vscode.Disposable[] {
  return Object.entries(commandFactories).map(([name, factory]) =>
    vscode.commands.registerCommand(`projectKnowledge.${name}`, factory(context) as (...args: unknown[]) => unknown),
  );
}
