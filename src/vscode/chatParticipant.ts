import * as vscode from 'vscode';
import { formatHealth } from '../core/health';
import { displayText } from '../core/safeText';
import { summarizeManifest } from '../core/retrieval/manifest';
import type { Manifest } from '../core/retrieval/manifest';
import type { VerifiedSnippet } from '../core/retrieval/retrieve';
import { describeCommandError, describeModelError } from './chatErrors';
import { readConfig } from './config';
import { Disposable } from './lifecycle';
import { manifestAsSent } from './modelManifest';
import { QueryRewriter } from './queryRewrite';
import type { QuotedBlock, WorkspaceIndex } from './workspaceIndex';
import type { Curation } from './curation';
import { curationCommands, handleCurationCommand, labelFromFeedback, type AnswerLabels } from './curationChat';

export const participantId = 'projectKnowledge.project';

interface ResultMetadata {
  kind: string;
  snippets: number;
  /** What a thumbs up or down on this answer labels (`curationChat.ts`). */
  labels?: AnswerLabels[];
}

/** Share of the model's input left unused as headroom; the preamble, the request and the source share the rest. */
const answerReserveRatio = 0.3;

/** What one `@project` response streamed, for whoever listens to `onDidRespond` (the extension-host tests). */
export interface ChatTranscript {
  command: string;
  markdown: string;
  anchors: vscode.Location[];
  references: vscode.Location[];
  buttons: vscode.Command[];
  result: vscode.ChatResult;
}

/** Forwards every part to the chat UI and keeps what was shown, without the user's prompt. */
class RecordingStream implements vscode.ChatResponseStream {
  readonly markdowns: string[] = [];
  readonly anchors: vscode.Location[] = [];
  readonly references: vscode.Location[] = [];
  readonly buttons: vscode.Command[] = [];

  constructor(private readonly inner: vscode.ChatResponseStream) {}

  private static location(value: vscode.Uri | vscode.Location): vscode.Location {
    return value instanceof vscode.Location ? value : new vscode.Location(value, new vscode.Position(0, 0));
  }

  markdown(value: string | vscode.MarkdownString): void {
    this.markdowns.push(typeof value === 'string' ? value : value.value);
    this.inner.markdown(value);
  }

  anchor(value: vscode.Uri | vscode.Location, title?: string): void {
    this.anchors.push(RecordingStream.location(value));
    this.inner.anchor(value, title);
  }

  button(command: vscode.Command): void {
    this.buttons.push(command);
    this.inner.button(command);
  }

  filetree(value: vscode.ChatResponseFileTree[], baseUri: vscode.Uri): void {
    this.inner.filetree(value, baseUri);
  }

  progress(value: string): void {
    this.inner.progress(value);
  }

  reference(value: vscode.Uri | vscode.Location, iconPath?: vscode.IconPath): void {
    this.references.push(RecordingStream.location(value));
    this.inner.reference(value, iconPath);
  }

  push(part: vscode.ChatResponsePart): void {
    this.inner.push(part);
  }
}

/** Text a model wrote, shown as inline code: unsafe characters escaped, no backtick to end the span early. */
function inlineCode(value: string): string {
  return '`' + displayText(value).replace(/`/g, "'") + '`';
}

function locationOf(folder: vscode.WorkspaceFolder, result: VerifiedSnippet): vscode.Location {
  return new vscode.Location(
    vscode.Uri.joinPath(folder.uri, ...result.path.split('/')),
    new vscode.Range(result.startLine - 1, 0, result.endLine - 1, Number.MAX_SAFE_INTEGER),
  );
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
export class ProjectParticipant extends Disposable {
  private readonly rewriter: QueryRewriter;

  constructor(
    private readonly index: WorkspaceIndex,
    private readonly log: vscode.LogOutputChannel,
    private readonly curation?: Curation,
  ) {
    super();
    this.rewriter = new QueryRewriter(log);
  }

  private readonly _onDidRespond = this._register(new vscode.EventEmitter<ChatTranscript>());
  /** Fires after each response with what it showed (markdown, anchors, references, buttons, result). */
  readonly onDidRespond = this._onDidRespond.event;
  private readonly _onDidLabel = this._register(new vscode.EventEmitter<number>());
  /** Fires after a thumbs up or down was recorded, with the number of labels it wrote (the extension-host tests wait on it). */
  readonly onDidLabel = this._onDidLabel.event;

  handle = async (
    request: vscode.ChatRequest,
    _context: vscode.ChatContext,
    response: vscode.ChatResponseStream,
    token: vscode.CancellationToken,
  ): Promise<vscode.ChatResult> => {
    const kind = request.command ?? 'ask';
    const stream = new RecordingStream(response);
    let result: vscode.ChatResult;
    try {
      result = await this.dispatch(request, stream, token);
    } catch (error) {
      // Nothing throws into the chat UI: one readable line instead.
      this.log.error(`@project ${kind} failed`, error);
      stream.markdown(describeCommandError(kind, error));
      result = { metadata: { kind, snippets: 0 } satisfies ResultMetadata };
    }
    this._onDidRespond.fire({
      command: kind,
      markdown: stream.markdowns.join(''),
      anchors: stream.anchors,
      references: stream.references,
      buttons: stream.buttons,
      result,
    });
    return result;
  };

  private async dispatch(
    request: vscode.ChatRequest,
    stream: vscode.ChatResponseStream,
    token: vscode.CancellationToken,
  ): Promise<vscode.ChatResult> {
    if (this.curation && request.command && curationCommands.has(request.command)) {
      // Pins and memory live beside the index: in Restricted Mode there is none to curate.
      if (!this.index.trusted) this.untrustedNotice(stream);
      else await handleCurationCommand(this.curation, request, stream);
      return { metadata: { kind: request.command, snippets: 0 } satisfies ResultMetadata };
    }
    switch (request.command) {
      case 'search':
        return this.search(request, stream);
      case 'symbol':
        return this.symbol(request, stream);
      case 'manifest':
        return this.manifest(stream);
      case 'health':
        return this.health(stream);
      case 'rebuild':
        return this.rebuild(stream);
      default:
        return this.answer(request, stream, token);
    }
  }

  private untrustedNotice(stream: vscode.ChatResponseStream): void {
    stream.markdown(
      vscode.l10n.t(
        'This workspace is in Restricted Mode, so Project Knowledge does not read or quote any project source. Trust the folder to get answers grounded in your code.',
      ) + '\n\n',
    );
    stream.button({ command: 'workbench.trust.manage', title: vscode.l10n.t('Manage Workspace Trust') });
  }

  private async answer(
    request: vscode.ChatRequest,
    stream: vscode.ChatResponseStream,
    token: vscode.CancellationToken,
  ): Promise<vscode.ChatResult> {
    const model = request.model;
    const messages: vscode.LanguageModelChatMessage[] = [];
    const included: Array<{ folder: vscode.WorkspaceFolder; result: VerifiedSnippet }> = [];
    const labels: AnswerLabels[] = [];
    let contextNote: string | undefined;
    if (!this.index.trusted) {
      this.untrustedNotice(stream);
      return { metadata: { kind: 'ask', snippets: 0 } satisfies ResultMetadata };
    }
    stream.progress(vscode.l10n.t('Searching the project index…'));
    try {
      // The preamble, the request and the source together stay within the model's input limit
      // (less the reserve) and the source within the prompt budget setting.
      const inputBudget = Math.floor(model.maxInputTokens * (1 - answerReserveRatio));
      const requestTokens = await model.countTokens(request.prompt, token);
      const config = readConfig();
      const retrievalBudget = Math.min(config.promptBudget, inputBudget - requestTokens);
      if (retrievalBudget <= 0)
        throw new RangeError(vscode.l10n.t('the request leaves no room for project source within the model input limit'));
      const options = { attachedPaths: attachedPaths(request), budgetTokens: retrievalBudget };
      let rewritten: string | undefined;
      if (config.rewriteQuery) {
        stream.progress(vscode.l10n.t('Rewriting the request into code terms…'));
        rewritten = await this.rewriter.rewrite(model, request.prompt, token);
      }
      let contexts = await this.index.context(rewritten ?? request.prompt, options, false);
      // A rewrite that finds nothing gives way to the request as the user typed it.
      if (rewritten && contexts.every((context) => context.blocks.length === 0)) {
        rewritten = undefined;
        contexts = await this.index.context(request.prompt, options, false);
      }
      if (token.isCancellationRequested) return { metadata: { kind: 'ask', snippets: 0 } satisfies ResultMetadata };
      const preamble = contexts.find((context) => context.blocks.length > 0)?.preamble;
      // The worker's own preamble goes first; the model's tokenizer has the last word on what fits.
      const preambleTokens = preamble ? await model.countTokens(preamble, token) : 0;
      const budget = Math.min(readConfig().promptBudget, inputBudget - requestTokens - preambleTokens);
      let used = 0;
      let matched = 0;
      const sent: QuotedBlock[] = [];
      const manifests: Manifest[] = [];
      for (const context of contexts) {
        matched += context.blocks.length;
        const dropped = new Set<string>();
        const quoted: string[] = [];
        for (const block of context.blocks) {
          const counted = await model.countTokens(block.text, token);
          if (used + counted > budget) {
            dropped.add(block.snippetId);
            continue;
          }
          used += counted;
          sent.push(block);
          // A memory block quotes no file: it has no reference to show, but the model reads it.
          if (block.kind === 'memory') continue;
          included.push({ folder: context.folder, result: block.result });
          // Only ranked source candidates are labeled by feedback: pins and memory are the user's own.
          if (block.result.reason !== 'pinned') quoted.push(block.snippetId);
        }
        // Labels name the query searched: the candidates the engine remembers are that query's.
        labels.push({ projectKey: context.folder.uri.toString(), query: context.retrieval.manifest.query, snippetIds: quoted });
        const manifest = manifestAsSent(context.retrieval.manifest, dropped);
        manifests.push(rewritten ? { ...manifest, rewrite: { request: request.prompt, model: model.name } } : manifest);
      }
      // The manifest shown is the record of what the model received.
      if (manifests[0]) this.index.publishManifest(manifests[0]);
      if (preamble && sent.length > 0) {
        messages.push(vscode.LanguageModelChatMessage.User(preamble));
        for (const block of sent) messages.push(vscode.LanguageModelChatMessage.User(block.text));
      } else if (matched > 0) {
        contextNote = vscode.l10n.t('The matching project source does not fit the model input limit, so the answer does not quote any.');
      } else {
        contextNote = vscode.l10n.t('No project source matched this request, so the answer does not quote any.');
      }
    } catch (error) {
      this.log.error('Project context was unavailable for @project', error);
      included.length = 0;
      messages.length = 0;
      contextNote = vscode.l10n.t(
        'Project context was unavailable ({0}); answering without it.',
        error instanceof Error ? error.message : String(error),
      );
    }
    if (contextNote) stream.markdown(`_${contextNote}_\n\n`);
    if (token.isCancellationRequested) return { metadata: { kind: 'ask', snippets: 0 } satisfies ResultMetadata };
    messages.push(vscode.LanguageModelChatMessage.User(request.prompt));
    stream.progress(vscode.l10n.t('Asking {0}…', model.name));
    let streamed = false;
    try {
      const response = await model.sendRequest(messages, {}, token);
      for await (const fragment of response.text) {
        if (token.isCancellationRequested) break;
        stream.markdown(fragment);
        streamed = true;
      }
    } catch (error) {
      this.log.warn(`${model.name} failed to answer @project: ${error instanceof Error ? error.message : String(error)}`);
      stream.markdown((streamed ? '\n\n' : '') + describeModelError(error));
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
    return { metadata: { kind: 'ask', snippets: included.length, labels } satisfies ResultMetadata };
  }

  private async search(request: vscode.ChatRequest, stream: vscode.ChatResponseStream): Promise<vscode.ChatResult> {
    if (!this.index.trusted) {
      this.untrustedNotice(stream);
      return { metadata: { kind: 'search', snippets: 0 } satisfies ResultMetadata };
    }
    if (!request.prompt.trim()) {
      stream.markdown(vscode.l10n.t('Type what to search for after /search, for example `/search parseCookieHeader`.'));
      return { metadata: { kind: 'search', snippets: 0 } satisfies ResultMetadata };
    }
    stream.progress(vscode.l10n.t('Searching the project index…'));
    const retrievals = await this.index.search(request.prompt, { attachedPaths: attachedPaths(request) });
    let count = 0;
    for (const retrieval of retrievals) {
      for (const result of retrieval.results) {
        count++;
        stream.markdown(`${count}. `);
        stream.anchor(locationOf(retrieval.folder, result), `${result.path}:${result.startLine}-${result.endLine}`);
        stream.markdown(
          ` — ${result.symbol ? `\`${result.symbol}\` · ` : ''}${result.reason} · ${vscode.l10n.t('score {0}', result.score)}\n`,
        );
        stream.reference(locationOf(retrieval.folder, result));
      }
    }
    if (count === 0) stream.markdown(retrievals[0]?.manifest.note ?? vscode.l10n.t('No verified snippet matched.'));
    return { metadata: { kind: 'search', snippets: count } satisfies ResultMetadata };
  }

  private async symbol(request: vscode.ChatRequest, stream: vscode.ChatResponseStream): Promise<vscode.ChatResult> {
    if (!this.index.trusted) {
      this.untrustedNotice(stream);
      return { metadata: { kind: 'symbol', snippets: 0 } satisfies ResultMetadata };
    }
    const name = request.prompt.trim();
    if (!name) {
      stream.markdown(vscode.l10n.t('Type a symbol name after /symbol, for example `/symbol Session.send`.'));
      return { metadata: { kind: 'symbol', snippets: 0 } satisfies ResultMetadata };
    }
    const retrievals = await this.index.search(name);
    let count = 0;
    for (const retrieval of retrievals) {
      for (const result of retrieval.results.filter(
        (candidate) => candidate.reason === 'exact-qualified-symbol' || candidate.reason === 'exact-symbol',
      )) {
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
    const manifest = this.index.lastManifest;
    stream.markdown(manifest ? summarizeManifest(manifest) : vscode.l10n.t('No retrieval has run yet.'));
    if (manifest?.rewrite)
      stream.markdown(
        '\n\n' +
          vscode.l10n.t(
            'The request was rewritten by {0} into the query searched: {1}',
            manifest.rewrite.model,
            inlineCode(manifest.query),
          ),
      );
    void vscode.commands.executeCommand('projectKnowledge.showManifest');
    return { metadata: { kind: 'manifest', snippets: 0 } satisfies ResultMetadata };
  }

  private async health(stream: vscode.ChatResponseStream): Promise<vscode.ChatResult> {
    if (!this.index.trusted) {
      stream.markdown(vscode.l10n.t('Status: untrusted. Nothing is indexed in Restricted Mode.'));
      return { metadata: { kind: 'health', snippets: 0 } satisfies ResultMetadata };
    }
    const reports = await this.index.health();
    if (reports.length === 0) stream.markdown(vscode.l10n.t('No workspace folder is open.') + '\n\n');
    for (const report of reports) {
      if (report.health) stream.markdown('```text\n' + formatHealth(report.health) + '\n```\n');
      else if (report.error !== undefined)
        stream.markdown(vscode.l10n.t('Health of {0} is unavailable: {1}', report.folder.name, report.error) + '\n\n');
      else stream.markdown(`${report.folder.name}: ${report.state}${report.message ? ` — ${report.message}` : ''}\n\n`);
    }
    const feedback = this.index.feedback();
    if (feedback.length > 0) {
      const counts = feedback.map(([kind, count]) => `- ${kind}: ${count.helpful}/${count.unhelpful}`).join('\n');
      stream.markdown(vscode.l10n.t('Chat feedback (helpful/unhelpful):') + '\n\n' + counts + '\n');
    }
    return { metadata: { kind: 'health', snippets: 0 } satisfies ResultMetadata };
  }

  private rebuild(stream: vscode.ChatResponseStream): vscode.ChatResult {
    if (!this.index.trusted) {
      this.untrustedNotice(stream);
    } else {
      stream.markdown(vscode.l10n.t('Rebuilding reads every file of the workspace again. Press the button to confirm.') + '\n\n');
      stream.button({ command: 'projectKnowledge.rebuildIndex', arguments: [true], title: vscode.l10n.t('Rebuild Index') });
    }
    return { metadata: { kind: 'rebuild', snippets: 0 } satisfies ResultMetadata };
  }

  followups = (result: vscode.ChatResult): vscode.ChatFollowup[] => {
    const metadata = result.metadata as ResultMetadata | undefined;
    if (metadata?.kind === 'ask' && metadata.snippets > 0)
      return [{ prompt: '', command: 'manifest', label: vscode.l10n.t('Why these snippets?') }];
    return [];
  };

  feedback = (event: vscode.ChatResultFeedback): void => {
    const kind = (event.result.metadata as ResultMetadata | undefined)?.kind ?? 'unknown';
    this.index.recordFeedback(kind, event.kind === vscode.ChatResultFeedbackKind.Helpful);
    if (this.curation)
      void labelFromFeedback(this.curation, event, this.log).then((recorded) => {
        if (!this.isDisposed) this._onDidLabel.fire(recorded);
      });
  };
}

export function registerChatParticipant(
  context: vscode.ExtensionContext,
  index: WorkspaceIndex,
  log: vscode.LogOutputChannel,
  curation?: Curation,
): ProjectParticipant | undefined {
  if (!vscode.chat?.createChatParticipant) return undefined;
  const participant = new ProjectParticipant(index, log, curation);
  const registered = vscode.chat.createChatParticipant(participantId, participant.handle);
  registered.iconPath = vscode.Uri.joinPath(context.extensionUri, 'media', 'icon.svg');
  registered.followupProvider = { provideFollowups: participant.followups };
  context.subscriptions.push(participant, registered, registered.onDidReceiveFeedback(participant.feedback));
  return participant;
}
