import * as vscode from 'vscode';
import type { ProjectKnowledgeApi } from '../../../src/vscode/extension';

export const extensionId = 'project-knowledge.project-knowledge';

export async function activeApi(): Promise<ProjectKnowledgeApi> {
  const extension = vscode.extensions.getExtension<ProjectKnowledgeApi>(extensionId);
  if (!extension) throw new Error(`extension ${extensionId} is not installed`);
  return extension.isActive ? extension.exports : extension.activate();
}

/** Polls a condition (no fixed sleeps): resolves with its first truthy value or fails with `what`. */
export async function waitFor<T>(what: string, check: () => T | Promise<T>, timeoutMs = 30_000, intervalMs = 50): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}${lastError ? `: ${describeError(lastError)}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

function describeError(error: unknown): string {
  return error instanceof Error ? error.message : JSON.stringify(error);
}

export function workspaceFolder(): vscode.WorkspaceFolder {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder) throw new Error('the test run opened no folder');
  return folder;
}
