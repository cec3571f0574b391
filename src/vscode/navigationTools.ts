import * as vscode from 'vscode';
import { errorMessage } from '../core/errorMessage';
import type { ToolName } from '../core/tools/toolSet';
import { cancelledAnswer, noIndexAnswer, toolAnswer, untrustedAnswer } from './toolAnswers';
import type { WorkspaceIndex } from './workspaceIndex';

/**
 * Agent-mode tools `projectKnowledge_findSymbol`, `_references`, `_outline` and `_read`: the same
 * implementation (`runTool`) as the MCP server's tools, over the extension's own engine worker.
 * What a model reads is English like the MCP server's answers; what the user sees goes through l10n.
 */

export const navigationToolNames = {
  projectKnowledge_findSymbol: 'find_symbol',
  projectKnowledge_references: 'references',
  projectKnowledge_outline: 'outline',
  projectKnowledge_read: 'read',
} as const satisfies Record<string, ToolName>;

type NavigationToolName = keyof typeof navigationToolNames;
type Input = Record<string, unknown>;

function invocationMessage(name: NavigationToolName, input: Input): string {
  const value = (key: string) => {
    const given = input?.[key];
    return (typeof given === 'string' || typeof given === 'number' ? String(given) : '').slice(0, 80);
  };
  switch (name) {
    case 'projectKnowledge_findSymbol':
      return vscode.l10n.t('Finding the declaration of {0}', value('name'));
    case 'projectKnowledge_references':
      return vscode.l10n.t('Finding the uses of {0}', value('symbol'));
    case 'projectKnowledge_outline':
      return vscode.l10n.t('Outlining {0}', value('path') || '.');
    default:
      return vscode.l10n.t('Reading {0}', value('citation'));
  }
}

function oneLine(error: unknown): string {
  return errorMessage(error)
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .join('; ')
    .slice(0, 500);
}

export class NavigationTool implements vscode.LanguageModelTool<Input> {
  constructor(
    private readonly name: NavigationToolName,
    private readonly index: WorkspaceIndex,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  prepareInvocation(options: vscode.LanguageModelToolInvocationPrepareOptions<Input>): vscode.PreparedToolInvocation {
    return { invocationMessage: invocationMessage(this.name, options.input ?? {}) };
  }

  async invoke(
    options: vscode.LanguageModelToolInvocationOptions<Input>,
    token: vscode.CancellationToken,
  ): Promise<vscode.LanguageModelToolResult> {
    if (!this.index.trusted) return toolAnswer(untrustedAnswer);
    const folders = this.index.queryableFolders();
    if (folders.length === 0) return toolAnswer(noIndexAnswer);
    const tool = navigationToolNames[this.name];
    const texts: string[] = [];
    const errors: string[] = [];
    for (const { folder, folderKey } of folders) {
      if (token.isCancellationRequested) return toolAnswer(cancelledAnswer);
      try {
        // The worker checks the input against the tool's schema and runs the MCP server's implementation.
        const result = await this.index.tool(folderKey, tool, options.input ?? {});
        texts.push(folders.length > 1 ? `Folder ${folder.name}:\n${result.text}` : result.text);
        // A citation names one folder's file: the first folder that holds it answers.
        if (tool === 'read') break;
      } catch (error) {
        // The input is the same for every folder: a schema refusal from the worker answers at once.
        const invalid = /^invalid input for \w+: (.*)$/.exec(oneLine(error));
        if (invalid) return toolAnswer(`Invalid input for ${this.name}: ${invalid[1]}.`);
        this.log.warn(`${this.name} in ${folder.name}: ${oneLine(error)}`);
        errors.push(folders.length > 1 ? `${folder.name}: ${oneLine(error)}` : oneLine(error));
      }
    }
    if (texts.length === 0) return toolAnswer(`Project Knowledge ${tool} failed: ${errors.join(' | ')}`);
    return new vscode.LanguageModelToolResult(texts.map((text) => new vscode.LanguageModelTextPart(text)));
  }
}

export function registerNavigationTools(index: WorkspaceIndex, log: vscode.LogOutputChannel): vscode.Disposable[] {
  if (!vscode.lm?.registerTool) return [];
  return (Object.keys(navigationToolNames) as NavigationToolName[]).map((name) =>
    vscode.lm.registerTool(name, new NavigationTool(name, index, log)),
  );
}
