import * as vscode from 'vscode';
import { summarizeManifest } from '../core/retrieval/manifest';
import type { IndexCommandName } from './chatCommandNames';
import { attachedPaths } from './chatReferences';
import { chatResult } from './chatResult';
import { healthSections } from './healthReport';
import { linesLocation } from './locations';
import { inlineCode } from './markdownText';
import type { WorkspaceIndex } from './workspaceIndex';

/**
 * The `@project` slash commands that ask no model: `/search`, `/symbol`, `/manifest`, `/health`
 * and `/rebuild`. The participant checks Workspace Trust before it calls the ones that read the index.
 */

async function searchCommand(
  index: WorkspaceIndex,
  request: vscode.ChatRequest,
  stream: vscode.ChatResponseStream,
): Promise<vscode.ChatResult> {
  if (!request.prompt.trim()) {
    stream.markdown(vscode.l10n.t('Type what to search for after /search, for example `/search parseCookieHeader`.'));
    return chatResult('search');
  }
  stream.progress(vscode.l10n.t('Searching the project index…'));
  const retrievals = await index.search(request.prompt, { attachedPaths: attachedPaths(request) });
  let count = 0;
  for (const retrieval of retrievals) {
    for (const result of retrieval.results) {
      count++;
      stream.markdown(`${count}. `);
      stream.anchor(linesLocation(retrieval.folder, result), `${result.path}:${result.startLine}-${result.endLine}`);
      stream.markdown(
        ` — ${result.symbol ? `\`${result.symbol}\` · ` : ''}${result.reason} · ${vscode.l10n.t('score {0}', result.score)}\n`,
      );
      stream.reference(linesLocation(retrieval.folder, result));
    }
  }
  if (count === 0) stream.markdown(retrievals[0]?.manifest.note ?? vscode.l10n.t('No verified snippet matched.'));
  return chatResult('search', count);
}

async function symbolCommand(
  index: WorkspaceIndex,
  request: vscode.ChatRequest,
  stream: vscode.ChatResponseStream,
): Promise<vscode.ChatResult> {
  const name = request.prompt.trim();
  if (!name) {
    stream.markdown(vscode.l10n.t('Type a symbol name after /symbol, for example `/symbol Session.send`.'));
    return chatResult('symbol');
  }
  const retrievals = await index.search(name);
  let count = 0;
  for (const retrieval of retrievals) {
    for (const result of retrieval.results.filter(
      (candidate) => candidate.reason === 'exact-qualified-symbol' || candidate.reason === 'exact-symbol',
    )) {
      count++;
      stream.markdown(`**${result.symbol}** (${result.kind ?? 'symbol'}) `);
      stream.anchor(linesLocation(retrieval.folder, result), `${result.path}:${result.startLine}`);
      stream.markdown(`\n\n\`\`\`\n${(result.signature ?? result.text.split('\n')[0]).replace(/```/g, '` ` `')}\n\`\`\`\n`);
      stream.reference(linesLocation(retrieval.folder, result));
    }
  }
  if (count === 0) stream.markdown(vscode.l10n.t('No declaration named `{0}` is indexed.', name));
  return chatResult('symbol', count);
}

function manifestCommand(index: WorkspaceIndex, stream: vscode.ChatResponseStream): vscode.ChatResult {
  const manifest = index.lastManifest;
  stream.markdown(manifest ? summarizeManifest(manifest) : vscode.l10n.t('No retrieval has run yet.'));
  if (manifest?.rewrite)
    stream.markdown(
      '\n\n' +
        vscode.l10n.t('The request was rewritten by {0} into the query searched: {1}', manifest.rewrite.model, inlineCode(manifest.query)),
    );
  void vscode.commands.executeCommand('projectKnowledge.showManifest');
  return chatResult('manifest');
}

/** The Health Check command's sections, each as a text block (in Restricted Mode, the one that says so). */
async function healthCommand(index: WorkspaceIndex, stream: vscode.ChatResponseStream): Promise<vscode.ChatResult> {
  for (const section of await healthSections(index)) stream.markdown('```text\n' + section + '\n```\n');
  return chatResult('health');
}

function rebuildCommand(stream: vscode.ChatResponseStream): vscode.ChatResult {
  stream.markdown(vscode.l10n.t('Rebuilding reads every file of the workspace again. Press the button to confirm.') + '\n\n');
  stream.button({ command: 'projectKnowledge.rebuildIndex', arguments: [true], title: vscode.l10n.t('Rebuild Index') });
  return chatResult('rebuild');
}

type ChatCommand = (
  index: WorkspaceIndex,
  request: vscode.ChatRequest,
  stream: vscode.ChatResponseStream,
) => vscode.ChatResult | Promise<vscode.ChatResult>;

/** The slash commands by name; any other request is a question for the grounded answer. */
export const chatCommands: Readonly<Record<IndexCommandName, ChatCommand>> = {
  search: searchCommand,
  symbol: symbolCommand,
  manifest: (index, _request, stream) => manifestCommand(index, stream),
  health: (index, _request, stream) => healthCommand(index, stream),
  rebuild: (_index, _request, stream) => rebuildCommand(stream),
};
