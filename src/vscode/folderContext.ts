import type * as vscode from 'vscode';
import type { ContextBlocks } from '../core/engine';
import type { Retrieval, VerifiedSnippet } from '../core/retrieval/retrieve';

/**
 * One quoted block as the worker made it, paired by its manifest id: a pin or source block with
 * the snippet it quotes, or a memory block (the user's claim, which quotes no file).
 */
export type QuotedBlock =
  | { readonly kind: 'snippet'; readonly snippetId: string; readonly text: string; readonly result: VerifiedSnippet }
  | { readonly kind: 'memory'; readonly snippetId: string; readonly text: string };

/** What the worker would give a model for one folder: its preamble, blocks and manifest summary. */
export interface FolderContext {
  readonly folder: vscode.WorkspaceFolder;
  readonly preamble: string;
  readonly blocks: readonly QuotedBlock[];
  readonly summary: string;
  readonly retrieval: Retrieval;
}

export type FolderRetrieval = Retrieval & { folder: vscode.WorkspaceFolder };

/** Pairs each block of the worker's answer with the snippet or memory item it quotes; a block of neither is left out. */
export function folderContext(folder: vscode.WorkspaceFolder, context: ContextBlocks): FolderContext {
  const snippets = new Map(context.retrieval.results.map((result) => [result.id, result]));
  const memory = new Set(context.retrieval.memory.map((item) => item.id));
  const blocks = context.blockIds.flatMap((snippetId, index): QuotedBlock[] => {
    const text = context.blocks[index];
    const result = snippets.get(snippetId);
    if (result) return [Object.freeze({ kind: 'snippet', snippetId, text, result })];
    return memory.has(snippetId) ? [Object.freeze({ kind: 'memory', snippetId, text })] : [];
  });
  return Object.freeze({ folder, preamble: context.preamble, blocks, summary: context.summary, retrieval: context.retrieval });
}
