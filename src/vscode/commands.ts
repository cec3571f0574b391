import * as vscode from 'vscode';
import { formatHealth } from '../core/health';
import type { VerifiedSnippet } from '../core/retrieval/retrieve';
import type { IndexService } from './indexService';
import type { ManifestPanel } from './manifestPanel';
import { ItemNode } from './treeView';

export interface CommandContext {
  service: IndexService;
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

function requireTrust(): boolean {
  if (vscode.workspace.isTrusted) return true;
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
    ({ service }) =>
    async (confirmed?: boolean) => {
      if (!requireTrust()) return;
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
      await service.rebuild();
    },

  indexWorkspace:
    ({ service }) =>
    async () => {
      if (!requireTrust()) return;
      await service.refreshFolders();
      // Resolves once every folder's sync has settled, so the state it leaves is the final one.
      await Promise.all(service.statuses().map((status) => service.runSync(status)));
    },

  healthCheck:
    ({ service }) =>
    async () => {
      const sections: string[] = [];
      if (!vscode.workspace.isTrusted) {
        sections.push(
          vscode.l10n.t(
            'Project Knowledge health: untrusted\nThis workspace is in Restricted Mode. Nothing was enumerated, no git command ran and no stored index was opened.',
          ),
        );
      } else {
        for (const status of service.statuses()) {
          if (!status.opened) {
            sections.push(
              vscode.l10n.t('Project Knowledge health: {0}\nRoot: {1}\n{2}', status.state, status.folder.uri.fsPath, status.message ?? ''),
            );
            continue;
          }
          try {
            const health = await service.engine().request('health', { projectKey: status.key });
            if (status.pendingPaths.size > 0)
              health.warnings.push(vscode.l10n.t('{0} changed files are waiting to be re-indexed.', status.pendingPaths.size));
            sections.push(formatHealth(health));
          } catch (error) {
            sections.push(
              vscode.l10n.t(
                'Health of {0} is unavailable: {1}',
                status.folder.name,
                error instanceof Error ? error.message : String(error),
              ),
            );
          }
        }
        if (sections.length === 0) sections.push(vscode.l10n.t('No workspace folder is open.'));
        if (service.feedback.size > 0) {
          sections.push(
            vscode.l10n.t('Chat feedback (helpful/unhelpful):') +
              '\n' +
              [...service.feedback].map(([kind, counts]) => `  ${kind}: ${counts.helpful}/${counts.unhelpful}`).join('\n'),
          );
        }
      }
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
    ({ service, log }) =>
    async () => {
      if (!requireTrust()) return;
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
        service
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
              quickPick.items = [
                { label: vscode.l10n.t('Search failed: {0}', error instanceof Error ? error.message : String(error)), alwaysShow: true },
              ];
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
            uri: vscode.Uri.joinPath(chosen.folder.uri, ...chosen.result.path.split('/')),
            startLine: chosen.result.startLine,
            endLine: chosen.result.endLine,
          });
        }
        quickPick.hide();
      });
      quickPick.onDidHide(() => quickPick.dispose());
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
    ({ service, manifest }) =>
    async (target?: ItemNode) => {
      if (!(target instanceof ItemNode) || !requireTrust()) return;
      const query = target.item.kind === 'window' ? target.file.file.path : target.item.label;
      await service.search(query);
      const entry = service.lastManifest?.entries.find(
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
