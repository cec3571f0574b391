import * as vscode from 'vscode';
import type { WorkspaceIndex } from './workspaceIndex';

/** One status bar item showing the index state: indexing n/N, ready, stale, untrusted, error. */
export function registerStatusBar(index: WorkspaceIndex): vscode.Disposable {
  const item = vscode.window.createStatusBarItem('projectKnowledge.status', vscode.StatusBarAlignment.Left, 20);
  item.name = vscode.l10n.t('Project Knowledge');
  item.command = 'projectKnowledge.healthCheck';
  const update = () => {
    const status = index.status();
    const state = status.state;
    const indexing = status.folders.find((folder) => folder.state === 'indexing');
    switch (state) {
      case 'indexing':
        item.text =
          indexing?.progress && indexing.progress.total > 0
            ? `$(sync~spin) ${vscode.l10n.t('PK: indexing {0}/{1}', indexing.progress.done, indexing.progress.total)}`
            : `$(sync~spin) ${vscode.l10n.t('PK: indexing')}`;
        break;
      case 'ready':
        item.text = `$(database) ${vscode.l10n.t('PK: ready')}`;
        break;
      case 'stale':
        item.text = `$(warning) ${vscode.l10n.t('PK: stale')}`;
        break;
      case 'untrusted':
        item.text = `$(shield) ${vscode.l10n.t('PK: untrusted')}`;
        break;
      case 'error':
      case 'refused':
        item.text = `$(error) ${vscode.l10n.t('PK: error')}`;
        break;
      default:
        item.text = `$(database) ${vscode.l10n.t('PK: {0}', state)}`;
    }
    item.tooltip =
      state === 'untrusted'
        ? vscode.l10n.t('Project Knowledge indexes only trusted workspaces.')
        : vscode.l10n.t('Project Knowledge: {0}. Click for the health check.', state);
    item.show();
  };
  update();
  const subscription = index.onDidChangeStatus(update);
  return vscode.Disposable.from(item, subscription);
}
