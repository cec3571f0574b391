import * as vscode from 'vscode';
import { curationCommandNames, indexCommandNames, type IndexCommandName } from './chatCommandNames';
import { describeCommandError } from './chatErrors';
import type { ChatHandlers, createChatHandlers } from './chatHandlers';
import { RecordingStream, type ChatTranscript } from './chatRecording';
import { chatResult, type ResultMetadata } from './chatResult';
import type { Curation } from './curation';
import { Disposable } from './lifecycle';
import type { WorkspaceIndex } from './workspaceIndex';

export type { ChatTranscript } from './chatRecording';

export const participantId = 'projectKnowledge.project';

/** The commands that answer without reading the index, so they run in Restricted Mode too. */
const untrustedCommands = new Set<string>(['manifest', 'health']);
const indexCommands = new Set<string>(indexCommandNames);
const curationCommands = new Set<string>(curationCommandNames);

/**
 * The handlers' bundle, dist/chat.js (`chatHandlers.ts`), loaded at the first request: esbuild
 * leaves this `require` as it is (`external` in esbuild.mjs), so it resolves beside extension.js.
 */
function loadHandlers(): typeof createChatHandlers {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a run-time load of a separate bundle, not an import.
  return (require('./chat.js') as { createChatHandlers: typeof createChatHandlers }).createChatHandlers;
}

/**
 * The `@project` participant: it routes each request, checks Workspace Trust once for every
 * command that reads the index, records what was shown, counts feedback, and turns any failure
 * into one readable line. The answers themselves come from the handlers (`chatHandlers.ts`).
 */
export class ProjectParticipant extends Disposable {
  private loaded: ChatHandlers | undefined;

  constructor(
    private readonly index: WorkspaceIndex,
    private readonly log: vscode.LogOutputChannel,
    private readonly curation?: Curation,
  ) {
    super();
  }

  private readonly _onDidRespond = this._register(new vscode.EventEmitter<ChatTranscript>());
  /** Fires after each response with what it showed (markdown, anchors, references, buttons, result). */
  readonly onDidRespond = this._onDidRespond.event;
  private readonly _onDidLabel = this._register(new vscode.EventEmitter<number>());
  /** Fires after a thumbs up or down was recorded, with the number of labels it wrote (the extension-host tests wait on it). */
  readonly onDidLabel = this._onDidLabel.event;

  private get handlers(): ChatHandlers {
    this.loaded ??= loadHandlers()(this.index, this.log);
    return this.loaded;
  }

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
      result = chatResult(kind);
    }
    this._onDidRespond.fire(stream.transcript(kind, result));
    return result;
  };

  private async dispatch(
    request: vscode.ChatRequest,
    stream: vscode.ChatResponseStream,
    token: vscode.CancellationToken,
  ): Promise<vscode.ChatResult> {
    const command = request.command ?? '';
    const curating = this.curation !== undefined && curationCommands.has(command);
    const kind = curating || indexCommands.has(command) ? command : 'ask';
    // Pins and memory live beside the index, and every command but these two reads it.
    if (!this.index.trusted && !untrustedCommands.has(kind)) {
      this.untrustedNotice(stream);
      return chatResult(kind);
    }
    if (this.curation && curating) {
      await this.handlers.curate(this.curation, request, stream);
      return chatResult(kind);
    }
    if (kind === 'ask') return this.handlers.answer(request, stream, token);
    return this.handlers.command(kind as IndexCommandName, request, stream);
  }

  private untrustedNotice(stream: vscode.ChatResponseStream): void {
    stream.markdown(
      vscode.l10n.t(
        'This workspace is in Restricted Mode, so Project Knowledge does not read or quote any project source. Trust the folder to get answers grounded in your code.',
      ) + '\n\n',
    );
    stream.button({ command: 'workbench.trust.manage', title: vscode.l10n.t('Manage Workspace Trust') });
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
    const curation = this.curation;
    if (curation)
      void Promise.resolve()
        .then(() => this.handlers.label(curation, event))
        .then(
          (recorded) => {
            if (!this.isDisposed) this._onDidLabel.fire(recorded);
          },
          (error: unknown) => this.log.warn(`Feedback was not recorded as labels: ${String(error)}`),
        );
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
