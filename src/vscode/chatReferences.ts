import * as vscode from 'vscode';

/** The files of the `#file` references and selections attached to a chat request, in order. */
export function referencedUris(request: vscode.ChatRequest): vscode.Uri[] {
  return request.references.flatMap(({ value }) =>
    value instanceof vscode.Uri ? [value] : value instanceof vscode.Location ? [value.uri] : [],
  );
}

/** Paths of the attached files that lie in a workspace folder, relative to it. */
export function attachedPaths(request: vscode.ChatRequest): string[] {
  return referencedUris(request)
    .filter((uri) => vscode.workspace.getWorkspaceFolder(uri))
    .map((uri) => vscode.workspace.asRelativePath(uri, false));
}
