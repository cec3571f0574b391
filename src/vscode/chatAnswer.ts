import * as vscode from 'vscode';
import { errorMessage } from '../core/errorMessage';
import type { Manifest } from '../core/retrieval/manifest';
import type { VerifiedSnippet } from '../core/retrieval/retrieve';
import { describeModelError } from './chatErrors';
import { attachedPaths } from './chatReferences';
import { chatResult } from './chatResult';
import { readConfig } from './config';
import type { AnswerLabels } from './curationChat';
import { linesLocation } from './locations';
import { manifestAsSent } from './modelManifest';
import type { QueryRewriter } from './queryRewrite';
import type { QuotedBlock, WorkspaceIndex } from './workspaceIndex';

/** Share of the model's input left unused as headroom; the preamble, the request and the source share the rest. */
const answerReserveRatio = 0.3;

/** What an answer needs from the participant that owns it. */
export interface AnswerServices {
  readonly index: WorkspaceIndex;
  readonly log: vscode.LogOutputChannel;
  readonly rewriter: QueryRewriter;
}

/** What the model is given besides the request, and what the answer cites and lets feedback label. */
interface Grounding {
  readonly messages: vscode.LanguageModelChatMessage[];
  readonly included: Array<{ folder: vscode.WorkspaceFolder; result: VerifiedSnippet }>;
  readonly labels: AnswerLabels[];
}

/**
 * Fills `grounding` with the quoted project source that fits the model's input: the preamble, the
 * request and the source together stay within the input limit (less the reserve) and the source
 * within the prompt budget setting. Returns the note to show when no source is sent, or that the
 * request was cancelled.
 */
async function ground(
  { index, rewriter }: AnswerServices,
  request: vscode.ChatRequest,
  stream: vscode.ChatResponseStream,
  token: vscode.CancellationToken,
  { messages, included, labels }: Grounding,
): Promise<{ cancelled?: true; note?: string }> {
  const model = request.model;
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
    rewritten = await rewriter.rewrite(model, request.prompt, token);
  }
  let contexts = await index.context(rewritten ?? request.prompt, options, false);
  // A rewrite that finds nothing gives way to the request as the user typed it.
  if (rewritten && contexts.every((context) => context.blocks.length === 0)) {
    rewritten = undefined;
    contexts = await index.context(request.prompt, options, false);
  }
  if (token.isCancellationRequested) return { cancelled: true };
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
  if (manifests[0]) index.publishManifest(manifests[0]);
  if (preamble && sent.length > 0) {
    messages.push(vscode.LanguageModelChatMessage.User(preamble));
    for (const block of sent) messages.push(vscode.LanguageModelChatMessage.User(block.text));
    return {};
  }
  return {
    note:
      matched > 0
        ? vscode.l10n.t('The matching project source does not fit the model input limit, so the answer does not quote any.')
        : vscode.l10n.t('No project source matched this request, so the answer does not quote any.'),
  };
}

/**
 * The grounded answer of `@project`: quoted, live-verified project source, the request, the
 * model's streamed reply, then the sources it was given. Without source (none matched, none fits,
 * the index failed) the model still answers, under a note that says why.
 */
export async function answerRequest(
  services: AnswerServices,
  request: vscode.ChatRequest,
  stream: vscode.ChatResponseStream,
  token: vscode.CancellationToken,
): Promise<vscode.ChatResult> {
  const { model } = request;
  const grounding: Grounding = { messages: [], included: [], labels: [] };
  const { messages, included, labels } = grounding;
  stream.progress(vscode.l10n.t('Searching the project index…'));
  let contextNote: string | undefined;
  try {
    const outcome = await ground(services, request, stream, token, grounding);
    if (outcome.cancelled) return chatResult('ask');
    contextNote = outcome.note;
  } catch (error) {
    services.log.error('Project context was unavailable for @project', error);
    included.length = 0;
    messages.length = 0;
    contextNote = vscode.l10n.t('Project context was unavailable ({0}); answering without it.', errorMessage(error));
  }
  if (contextNote) stream.markdown(`_${contextNote}_\n\n`);
  if (token.isCancellationRequested) return chatResult('ask');
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
    services.log.warn(`${model.name} failed to answer @project: ${errorMessage(error)}`);
    stream.markdown((streamed ? '\n\n' : '') + describeModelError(error));
  }
  for (const { folder, result } of included) stream.reference(linesLocation(folder, result));
  if (included.length > 0) {
    stream.markdown('\n\n' + vscode.l10n.t('Sources:') + ' ');
    for (const { folder, result } of included) {
      stream.anchor(linesLocation(folder, result), `${result.path}:${result.startLine}-${result.endLine}`);
      stream.markdown(' ');
    }
    stream.button({ command: 'projectKnowledge.showManifest', title: vscode.l10n.t('Show Manifest') });
  }
  return chatResult('ask', included.length, labels);
}
