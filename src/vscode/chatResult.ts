import type * as vscode from 'vscode';
import type { AnswerLabels } from './curationChat';

/** What every `@project` response leaves in its result: the command, how many snippets it cited and what feedback labels. */
export interface ResultMetadata {
  kind: string;
  snippets: number;
  /** What a thumbs up or down on this answer labels (`curationChat.ts`). */
  labels?: AnswerLabels[];
}

/** The result of one response; `labels` only for an answer that quoted source. */
export function chatResult(kind: string, snippets = 0, labels?: AnswerLabels[]): vscode.ChatResult {
  const metadata: ResultMetadata = labels ? { kind, snippets, labels } : { kind, snippets };
  return { metadata };
}
