import type * as vscode from 'vscode';
import { answerRequest, type AnswerServices } from './chatAnswer';
import type { IndexCommandName } from './chatCommandNames';
import { chatCommands } from './chatCommands';
import type { Curation } from './curation';
import { handleCurationCommand, labelFromFeedback } from './curationChat';
import { QueryRewriter } from './queryRewrite';
import type { WorkspaceIndex } from './workspaceIndex';

/**
 * What `@project` does once asked: the grounded answer, the slash commands, pins and memory, and
 * labels from feedback. esbuild bundles this module on its own as dist/chat.js, which the
 * participant loads at its first request or feedback: activation never needs it, so
 * extension.js stays small (test/core/bundle.test.ts).
 */
export interface ChatHandlers {
  answer(request: vscode.ChatRequest, stream: vscode.ChatResponseStream, token: vscode.CancellationToken): Promise<vscode.ChatResult>;
  command(name: IndexCommandName, request: vscode.ChatRequest, stream: vscode.ChatResponseStream): Promise<vscode.ChatResult>;
  curate(curation: Curation, request: vscode.ChatRequest, stream: vscode.ChatResponseStream): Promise<void>;
  label(curation: Curation, event: vscode.ChatResultFeedback): Promise<number>;
}

/** The handlers of one participant; the query rewriter they share remembers for the session whether rewriting failed. */
export function createChatHandlers(index: WorkspaceIndex, log: vscode.LogOutputChannel): ChatHandlers {
  const services: AnswerServices = { index, log, rewriter: new QueryRewriter(log) };
  return {
    answer: (request, stream, token) => answerRequest(services, request, stream, token),
    command: async (name, request, stream) => chatCommands[name](index, request, stream),
    curate: (curation, request, stream) => handleCurationCommand(curation, request, stream),
    label: (curation, event) => labelFromFeedback(curation, event, log),
  };
}
