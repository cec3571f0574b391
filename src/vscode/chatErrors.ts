import * as vscode from 'vscode';
import { errorMessage } from '../core/errorMessage';

/** Turns any failure of a model request into one readable sentence for the chat answer. */
export function describeModelError(error: unknown): string {
  if (error instanceof vscode.LanguageModelError) {
    switch (error.code) {
      case vscode.LanguageModelError.NoPermissions.name:
        return vscode.l10n.t('The language model is not available: permission to use it was not granted.');
      case vscode.LanguageModelError.Blocked.name:
        return vscode.l10n.t('The language model blocked the request (quota or policy). Try again later.');
      case vscode.LanguageModelError.NotFound.name:
        return vscode.l10n.t('The selected language model is no longer available. Pick another model and retry.');
      default:
        return vscode.l10n.t('The language model failed: {0}', error.message);
    }
  }
  if (error instanceof vscode.CancellationError) return vscode.l10n.t('The request was cancelled.');
  return vscode.l10n.t('The request failed: {0}', errorMessage(error));
}

/** One readable sentence for a chat command that failed without a model involved (index, retrieval). */
export function describeCommandError(command: string, error: unknown): string {
  if (error instanceof vscode.LanguageModelError || error instanceof vscode.CancellationError) return describeModelError(error);
  return vscode.l10n.t(
    'Project Knowledge could not complete /{0}: {1}. Run /health to check the index, or /rebuild to rebuild it.',
    command,
    errorMessage(error),
  );
}
