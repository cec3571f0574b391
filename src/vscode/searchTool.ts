import * as vscode from 'vscode';
import { errorMessage } from '../core/errorMessage';
import { formatRankedFiles } from '../core/retrieval/fileRanking';
import { cancelledAnswer, noIndexAnswer, toolAnswer, untrustedAnswer } from './toolAnswers';
import type { WorkspaceIndex } from './workspaceIndex';

export const toolName = 'projectKnowledge_search';

export interface SearchToolInput {
  query: string;
  maxResults?: number;
  paths?: string[];
  /** `files`: ranked files with their evidence instead of quoted snippets. */
  granularity?: 'snippets' | 'files';
}

/** `#projectKnowledge`: verified, quoted snippets for agent mode instead of grep and file reads. */
export class SearchTool implements vscode.LanguageModelTool<SearchToolInput> {
  constructor(
    private readonly index: WorkspaceIndex,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  prepareInvocation(options: vscode.LanguageModelToolInvocationPrepareOptions<SearchToolInput>): vscode.PreparedToolInvocation {
    return { invocationMessage: vscode.l10n.t('Searching project knowledge for "{0}"', String(options.input?.query ?? '').slice(0, 80)) };
  }

  async invoke(
    options: vscode.LanguageModelToolInvocationOptions<SearchToolInput>,
    token: vscode.CancellationToken,
  ): Promise<vscode.LanguageModelToolResult> {
    const text = (value: string) => new vscode.LanguageModelTextPart(value);
    if (!this.index.trusted) return toolAnswer(untrustedAnswer);
    const query = typeof options.input?.query === 'string' ? options.input.query.trim() : '';
    if (!query) return toolAnswer('Project Knowledge needs a non-empty "query": a symbol, path, error message or a few specific words.');
    const limit =
      Number.isInteger(options.input.maxResults) && (options.input.maxResults as number) > 0
        ? Math.min(50, options.input.maxResults as number)
        : undefined;
    const paths = Array.isArray(options.input.paths)
      ? options.input.paths.filter((entry): entry is string => typeof entry === 'string')
      : [];
    try {
      if (options.input.granularity === 'files') return await this.rankedFiles(query, limit, paths, token);
      const contexts = await this.index.context(query, { limit, attachedPaths: paths });
      if (token.isCancellationRequested) return toolAnswer(cancelledAnswer);
      const parts: vscode.LanguageModelTextPart[] = [];
      let blocks = 0;
      for (const context of contexts) {
        if (context.blocks.length > 0) parts.push(text(context.preamble));
        for (const block of context.blocks) parts.push(text(block.text));
        parts.push(text(context.summary));
        blocks += context.blocks.length;
      }
      if (contexts.length === 0) parts.push(text(noIndexAnswer));
      else if (blocks === 0)
        parts.push(
          text(
            `No verified project source matched ${JSON.stringify(query)}. Retry with an exact symbol, path or error message, or read files directly.`,
          ),
        );
      return new vscode.LanguageModelToolResult(parts);
    } catch (error) {
      this.log.error('projectKnowledge_search failed', error);
      return toolAnswer(
        `Project Knowledge search failed (${errorMessage(error)}); continue without it, for example by reading files directly.`,
      );
    }
  }

  /** The file-level answer: paths, scores and evidence lines, no source text (read the files or search for snippets next). */
  private async rankedFiles(
    query: string,
    limit: number | undefined,
    paths: string[],
    token: vscode.CancellationToken,
  ): Promise<vscode.LanguageModelToolResult> {
    const retrievals = await this.index.search(query, { limit, attachedPaths: paths, granularity: 'files' });
    if (token.isCancellationRequested) return toolAnswer(cancelledAnswer);
    if (retrievals.length === 0) return toolAnswer(noIndexAnswer);
    const parts = retrievals.map((retrieval) => {
      const files = retrieval.files ?? [];
      const heading = retrievals.length > 1 ? `Folder ${retrieval.folder.name}:\n` : '';
      return new vscode.LanguageModelTextPart(
        files.length > 0
          ? `${heading}Files ranked for the request (score, path; then the matching lines and why):\n${formatRankedFiles(files)}`
          : `${heading}No verified project file matched ${JSON.stringify(query)}.`,
      );
    });
    return new vscode.LanguageModelToolResult(parts);
  }
}

export function registerSearchTool(index: WorkspaceIndex, log: vscode.LogOutputChannel): vscode.Disposable | undefined {
  if (!vscode.lm?.registerTool) return undefined;
  return vscode.lm.registerTool(toolName, new SearchTool(index, log));
}
