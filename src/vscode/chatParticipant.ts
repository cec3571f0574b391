import * as vscode from 'vscode';
import { formatHealth } from '../core/health';
import { summarizeManifest } from '../core/retrieval/manifest';
import type { VerifiedSnippet } from '../core/retrieval/retrieve';
import { describeModelError } from './chatErrors';
import type { IndexService } from './indexService';

export const participantId = 'projectKnowledge.project';

interface ResultMetadata {
  kind: string;
  snippets: number;
}

/** Share of the model's input kept for instructions, the request and history; the rest may hold source. */
const answerReserveRatio = 0.3;

function locationOf(folder: vscode.WorkspaceFolder, result: VerifiedSnippet): vscode.Location {
  return new vscode.Location(vscode.Uri.joinPath(folder.uri, ...result.path.split('/')), new vscode.Range(result.startLine - 1, 0, result.endLine - 1, Number.MAX_SAFE_INTEGER));
}

/** Paths of `#file` references and selections the user attached, relative to their folder. */
function attachedPaths(request: vscode.ChatRequest): string[] {
  const paths: string[] = [];
  for (const reference of request.references) {
    const value = reference.value;
    const uri = value instanceof vscode.Uri ? value : value instanceof vscode.Location ? value.uri : undefined;
    if (!uri) continue;
    const folder = vscode.workspace.getWorkspaceFolder(uri);
    if (folder) paths.push(vscode.workspace.asRelativePath(uri, false));
  }
  return paths;
}

/** The `@project` participant: grounded answers from quoted, live-verified project source. */
export class ProjectParticipant {
  constructor(private readonly service: IndexService, private readonly log: vscode.LogOutputChannel) {}

  handle = async (request: vscode.ChatRequest, _context: vscode.ChatContext, stream: vscode.ChatResponseStream, token: vscode.CancellationToken): Promise<vscode.ChatResult> => {
    const kind = request.command ?? 'ask';
    try {
      switch (request.command) {
        case 'search':
          return await this.search(request, stream);
        case 'symbol':
          return await this.symbol(request, stream);
        case 'manifest':
          return this.manifest(stream);
        case 'health':
          return await this.health(stream);
        case 'rebuild':
          return this.rebuild(stream);
        default:
          return await this.answer(request, stream, token);
      }
    } catch (error) {
      this.log.error(`@project ${kind} failed`, error);
      stream.markdown(describeModelError(error));
      return { errorDetails: { message: describeModelError(error) }, metadata: { kind, snippets: 0 } satisfies ResultMetadata };
    }
  };

  private untrustedNotice(stream: vscode.ChatResponseStream): void {
    stream.markdown(vscode.l10n.t('This workspace is in Restricted Mode, so Project Knowledge does not read or quote any project source. Trust the folder to get answers grounded in your code.') + '\n\n');
    stream.button({ command: 'workbench.trust.manage', title: vscode.l10n.t('Manage Workspace Trust') });
  }

  private async answer(request: vscode.ChatRequest, stream: vscode.ChatResponseStream, token: vscode.CancellationToken): Promise<vscode.ChatResult> {
    const model = request.model;
    const messages: vscode.LanguageModelChatMessage[] = [];
    const included: Array<{ folder: vscode.WorkspaceFolder; result: VerifiedSnippet }> = [];
    let contextNote: string | undefined;
    if (!vscode.workspace.isTrusted) {
      this.untrustedNotice(stream);
      return { metadata: { kind: 'ask', snippets: 0 } satisfies ResultMetadata };
    }
    stream.progress(vscode.l10n.t('Searching the project index…'));
    try {
      const budget = Math.max(500, Math.floor(model.maxInputTokens * (1 - answerReserveRatio)));
      const contexts = await this.service.context(request.prompt, { attachedPaths: attachedPaths(request), budgetTokens: budget });
      if (token.isCancellationRequested) return { metadata: { kind: 'ask', snippets: 0 } satisfies ResultMetadata };
      let used = 0;
      const blocks: string[] = [];
      for (const context of contexts) {
        for (let index = 0; index < context.blocks.length; index++) {
          // The model's own tokenizer has the last word on what fits.
          const counted = await model.countTokens(context.blocks[index], token);
          if (used + counted > budget) break;
          used += counted;
          blocks.push(context.blocks[index]);
          included.push({ folder: context.folder, result: context.retrieval.results[index] });
        }
      }
      if (blocks.length > 0) {
        messages.push(vscode.LanguageModelChatMessage.User(contexts[0].preamble));
        for (const block of blocks) messages.push(vscode.LanguageModelChatMessage.User(block));
      } else {
        contextNote = vscode.l10n.t('No project source matched this request, so the answer does not quote any.');
      }
    } catch (error) {
      this.log.error('Project context was unavailable for @project', error);
      contextNote = vscode.l10n.t('Project context was unavailable ({0}); answering without it.', error instanceof Error ? error.message : String(error));
    }
    if (contextNote) stream.markdown(`_${contextNote}_\n\n`);
    messages.push(vscode.LanguageModelChatMessage.User(request.prompt));
    stream.progress(vscode.l10n.t('Asking {0}…', model.name));
    try {
      const response = await model.sendRequest(messages, {}, token);
      for await (const fragment of response.text) {
        if (token.isCancellationRequested) break;
        stream.markdown(fragment);
      }
    } catch (error) {
      stream.markdown(describeModelError(error));
    }
    for (const { folder, result } of included) stream.reference(locationOf(folder, result));
    if (included.length > 0) {
      stream.markdown('\n\n' + vscode.l10n.t('Sources:') + ' ');
      for (const { folder, result } of included) {
        stream.anchor(locationOf(folder, result), `${result.path}:${result.startLine}-${result.endLine}`);
        stream.markdown(' ');
      }
      stream.button({ command: 'projectKnowledge.showManifest', title: vscode.l10n.t('Show Manifest') });
    }
    return { metadata: { kind: 'ask', snippets: included.length } satisfies ResultMetadata };
  }

  private async search(request: vscode.ChatRequest, stream: vscode.ChatResponseStream): Promise<vscode.ChatResult> {
    if (!vscode.workspace.isTrusted) {
      this.untrustedNotice(stream);
      return { metadata: { kind: 'search', snippets: 0 } satisfies ResultMetadata };
    }
    if (!request.prompt.trim()) {
      stream.markdown(vscode.l10n.t('Type what to search for after /search, for example `/search parseCookieHeader`.'));
      return { metadata: { kind: 'search', snippets: 0 } satisfies ResultMetadata };
    }
    stream.progress(vscode.l10n.t('Searching the project index…'));
    const retrievals = await this.service.search(request.prompt, { attachedPaths: attachedPaths(request) });
    let count = 0;
    for (const retrieval of retrievals) {
      for (const result of retrieval.results) {
        count++;
        stream.markdown(`${count}. `);
        stream.anchor(locationOf(retrieval.folder, result), `${result.path}:${result.startLine}-${result.endLine}`);
        stream.markdown(` — ${result.symbol ? `\`${result.symbol}\` · ` : ''}${result.reason} · ${vscode.l10n.t('score {0}', result.score)}\n`);
        stream.reference(locationOf(retrieval.folder, result));
      }
    }
    if (count === 0) stream.markdown(retrievals[0]?.manifest.note ?? vscode.l10n.t('No verified snippet matched.'));
    return { metadata: { kind: 'search', snippets: count } satisfies ResultMetadata };
  }

  private async symbol(request: vscode.ChatRequest, stream: vscode.ChatResponseStream): Promise<vscode.ChatResult> {
    if (!vscode.workspace.isTrusted) {
      this.untrustedNotice(stream);
      return { metadata: { kind: 'symbol', snippets: 0 } satisfies ResultMetadata };
    }
    const name = request.prompt.trim();
    if (!name) {
      stream.markdown(vscode.l10n.t('Type a symbol name after /symbol, for example `/symbol Session.send`.'));
      return { metadata: { kind: 'symbol', snippets: 0 } satisfies ResultMetadata };
    }
    const retrievals = await this.service.search(name);
    let count = 0;
    for (const retrieval of retrievals) {
      for (const result of retrieval.results.filter((candidate) => candidate.reason === 'exact-qualified-symbol' || candidate.reason === 'exact-symbol')) {
        count++;
        stream.markdown(`**${result.symbol}** (${result.kind ?? 'symbol'}) `);
        stream.anchor(locationOf(retrieval.folder, result), `${result.path}:${result.startLine}`);
        stream.markdown(`\n\n\`\`\`\n${(result.signature ?? result.text.split('\n')[0]).replace(/```/g, '` ` `')}\n\`\`\`\n`);
        stream.reference(locationOf(retrieval.folder, result));
      }
    }
    if (count === 0) stream.markdown(vscode.l10n.t('No declaration named `{0}` is indexed.', name));
    return { metadata: { kind: 'symbol', snippets: count } satisfies ResultMetadata };
  }

  private manifest(stream: vscode.ChatResponseStream): vscode.ChatResult {
    const manifest = this.service.lastManifest;
    stream.markdown(manifest ? summarizeManifest(manifest) : vscode.l10n.t('No retrieval has run yet.'));
    void vscode.commands.executeCommand('projectKnowledge.showManifest');
    return { metadata: { kind: 'manifest', snippets: 0 } satisfies ResultMetadata };
  }

  private async health(stream: vscode.ChatResponseStream): Promise<vscode.ChatResult> {
    if (!vscode.workspace.isTrusted) {
      stream.markdown(vscode.l10n.t('Status: untrusted. Nothing is indexed in Restricted Mode.'));
      return { metadata: { kind: 'health', snippets: 0 } satisfies ResultMetadata };
    }
    for (const status of this.service.statuses()) {
      if (!status.opened) {
        stream.markdown(`${status.folder.name}: ${status.state}${status.message ? ` — ${status.message}` : ''}\n\n`);
        continue;
      }
      const health = await this.service.engine().request('health', { projectKey: status.key });
      stream.markdown('```text\n' + formatHealth(health) + '\n```\n');
    }
    return { metadata: { kind: 'health', snippets: 0 } satisfies ResultMetadata };
  }

  private rebuild(stream: vscode.ChatResponseStream): vscode.ChatResult {
    if (!vscode.workspace.isTrusted) {
      this.untrustedNotice(stream);
    } else {
      stream.markdown(vscode.l10n.t('Rebuilding reads every file of the workspace again. Press the button to confirm.') + '\n\n');
      stream.button({ command: 'projectKnowledge.rebuildIndex', arguments: [true], title: vscode.l10n.t('Rebuild Index') });
    }
    return { metadata: { kind: 'rebuild', snippets: 0 } satisfies ResultMetadata };
  }

  followups = (result: vscode.ChatResult): vscode.ChatFollowup[] => {
    const metadata = result.metadata as ResultMetadata | undefined;
    if (metadata?.kind === 'ask' && metadata.snippets > 0) return [{ prompt: '', command: 'manifest', label: vscode.l10n.t('Why these snippets?') }];
    return [];
  };

  feedback = (event: vscode.ChatResultFeedback): void => {
    const kind = (event.result.metadata as ResultMetadata | undefined)?.kind ?? 'unknown';
    const counts = this.service.feedback.get(kind) ?? { helpful: 0, unhelpful: 0 };
    if (event.kind === vscode.ChatResultFeedbackKind.Helpful) counts.helpful++;
    else counts.unhelpful++;
    this.service.feedback.set(kind, counts);
  };
}

export function registerChatParticipant(context: vscode.ExtensionContext, service: IndexService, log: vscode.LogOutputChannel): ProjectParticipant | undefined {
  if (!vscode.chat?.createChatParticipant) return undefined;
  const participant = new ProjectParticipant(service, log);
  const registered = vscode.chat.createChatParticipant(participantId, participant.handle);
  registered.iconPath = vscode.Uri.joinPath(context.extensionUri, 'media', 'icon.svg');
  registered.followupProvider = { provideFollowups: participant.followups };
  context.subscriptions.push(registered, registered.onDidReceiveFeedback(participant.feedback));
  return participant;
}
