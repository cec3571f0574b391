import * as vscode from 'vscode';
import { reindexSettings } from './config';
import type { WorkspaceIndex } from './workspaceIndex';

/**
 * Watcher, saves, renames and settings. A save reaches the index twice (the watcher's change and
 * `onDidSaveTextDocument`); the folder's indexer merges the two by the file's identity on disk.
 */
export function registerFileEvents(index: WorkspaceIndex): vscode.Disposable {
  const watcher = vscode.workspace.createFileSystemWatcher('**/*');
  const changed = (uri: vscode.Uri) => void index.noteChanged(uri);
  return vscode.Disposable.from(
    watcher,
    watcher.onDidCreate(changed),
    watcher.onDidChange(changed),
    watcher.onDidDelete(changed),
    vscode.workspace.onDidSaveTextDocument((document) => changed(document.uri)),
    vscode.workspace.onDidRenameFiles((event) =>
      event.files.forEach((file) => {
        changed(file.oldUri);
        changed(file.newUri);
      }),
    ),
    vscode.workspace.onDidChangeConfiguration((event) => {
      for (const folder of vscode.workspace.workspaceFolders ?? []) {
        if (reindexSettings.some((setting) => event.affectsConfiguration(setting, folder))) {
          void index.refreshFolders().then(() => index.reopen(folder));
        }
      }
    }),
  );
}
