import * as path from 'node:path';
import * as vscode from 'vscode';

/** The URI of a project-relative path (always `/`-separated, as the index stores it) in its folder. */
export function fileUri(folder: vscode.WorkspaceFolder, relativePath: string): vscode.Uri {
  return vscode.Uri.joinPath(folder.uri, ...relativePath.split('/'));
}

/** Whole lines `startLine`..`endLine` (1-based, as the index counts them) of a project file. */
export function linesLocation(
  folder: vscode.WorkspaceFolder,
  lines: { path: string; startLine: number; endLine: number },
): vscode.Location {
  return new vscode.Location(
    fileUri(folder, lines.path),
    new vscode.Range(lines.startLine - 1, 0, lines.endLine - 1, Number.MAX_SAFE_INTEGER),
  );
}

/**
 * The `/`-separated path of `uri` inside `folder`, or undefined for the folder itself, a path
 * outside it, and anything under `.git` (git's own files are never indexed).
 */
export function pathInFolder(folder: vscode.WorkspaceFolder, uri: vscode.Uri): string | undefined {
  const relative = path.relative(folder.uri.fsPath, uri.fsPath).split(path.sep).join('/');
  return !relative || relative.startsWith('..') || relative.split('/')[0] === '.git' ? undefined : relative;
}
