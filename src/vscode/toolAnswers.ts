import * as vscode from 'vscode';

/**
 * The answers every agent tool gives when it cannot search. They are read by a model, so they are
 * English like the MCP server's, and each says what to do next.
 */

/** A tool answer of one text part. */
export function toolAnswer(text: string): vscode.LanguageModelToolResult {
  return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(text)]);
}

export const untrustedAnswer =
  'Project Knowledge is unavailable: this workspace is not trusted, so no project source may be read. ' +
  'Ask the user to trust the workspace, or continue without project context.';

export const noIndexAnswer =
  'Project Knowledge has no index yet for this workspace; it may still be indexing. Try again shortly or fall back to reading files.';

export const cancelledAnswer = 'Cancelled.';
