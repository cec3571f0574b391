import * as vscode from 'vscode';
import type { PinTarget } from '../core/curation/log';
import { errorMessage } from '../core/errorMessage';
import { displayText } from '../core/safeText';
import { referencedUris } from './chatReferences';
import { inlineCode } from './markdownText';
import type { Curation } from './curation';

/** What an `@project` answer leaves in its result, so thumbs up or down labels exactly what it quoted. */
export interface AnswerLabels {
  projectKey: string;
  query: string;
  snippetIds: string[];
}

/** The folder of the first attached file that lies in one. */
function folderOf(request: vscode.ChatRequest): vscode.WorkspaceFolder | undefined {
  for (const uri of referencedUris(request)) {
    const folder = vscode.workspace.getWorkspaceFolder(uri);
    if (folder) return folder;
  }
  return undefined;
}

/** `#file` references become file pins, selections range pins; else the prompt: `PATH`, `PATH#L<a>-L<b>` or `PATH SYMBOL`. */
function pinTargets(request: vscode.ChatRequest): PinTarget[] {
  const targets: PinTarget[] = [];
  for (const reference of request.references) {
    const value = reference.value;
    if (value instanceof vscode.Location) {
      const path = vscode.workspace.asRelativePath(value.uri, false);
      targets.push({ target: 'range', path, startLine: value.range.start.line + 1, endLine: value.range.end.line + 1 });
    } else if (value instanceof vscode.Uri) targets.push({ target: 'file', path: vscode.workspace.asRelativePath(value, false) });
  }
  if (targets.length > 0) return targets;
  const [spec, symbol] = request.prompt.trim().split(/\s+/);
  if (!spec) return [];
  const range = spec.match(/^(.+?)#L(\d+)(?:-L?(\d+))?$/);
  if (range) return [{ target: 'range', path: range[1], startLine: Number(range[2]), endLine: Number(range[3] ?? range[2]) }];
  return [symbol ? { target: 'declaration', path: spec, qualifiedName: symbol } : { target: 'file', path: spec }];
}

const usage: Record<string, () => string> = {
  pin: () => vscode.l10n.t('Attach a file or selection, or type `/pin PATH`, `/pin PATH#L10-L20` or `/pin PATH Qualified.name`.'),
  unpin: () => vscode.l10n.t('Type `/unpin PIN_ID` (see `/pins`).'),
  remember: () => vscode.l10n.t('Type `/remember` and the claim, for example `/remember Exports default to SingleFile`.'),
};

/** Runs one curation chat command; refusals (a conflict, an unknown id) are answered in one line. */
export async function handleCurationCommand(
  curation: Curation,
  request: vscode.ChatRequest,
  stream: vscode.ChatResponseStream,
): Promise<void> {
  const projectKey = curation.projectOf(folderOf(request));
  if (!projectKey) {
    stream.markdown(vscode.l10n.t('No indexed folder is open yet; pins and memory need one.'));
    return;
  }
  const say = (text: string) => stream.markdown(`${text}\n\n`);
  try {
    switch (request.command) {
      case 'pin': {
        const targets = pinTargets(request);
        if (targets.length === 0) return say(usage.pin());
        for (const target of targets) {
          const pinned = await curation.curate(projectKey, 'pin', { target });
          say(
            pinned.created
              ? vscode.l10n.t('Pinned {0} as {1}.', inlineCode(target.path), pinned.id)
              : vscode.l10n.t('{0} is already pinned as {1}.', inlineCode(target.path), pinned.id),
          );
        }
        return;
      }
      case 'unpin': {
        const id = request.prompt.trim();
        if (!id) return say(usage.unpin());
        await curation.curate(projectKey, 'unpin', { id });
        return say(vscode.l10n.t('Unpinned {0}.', id));
      }
      case 'pins': {
        const pins = await curation.curate(projectKey, 'pins', {});
        if (pins.length === 0) return say(vscode.l10n.t('No pins yet. Use `/pin` or the pin action in the index view.'));
        for (const pin of pins)
          say(
            pin.status === 'stale'
              ? vscode.l10n.t('- {0} {1} — stale ({2}), not sent', pin.id, inlineCode(pin.label), pin.reason ?? '')
              : vscode.l10n.t('- {0} {1} — lines {2}-{3}', pin.id, inlineCode(pin.label), pin.startLine, pin.endLine),
          );
        return;
      }
      case 'remember': {
        const claim = request.prompt.trim();
        if (!claim) return say(usage.remember());
        const added = await curation.curate(projectKey, 'remember', { claim });
        return say(added.created ? vscode.l10n.t('Remembered as {0}.', added.id) : vscode.l10n.t('Already remembered as {0}.', added.id));
      }
      default:
        return memoryCommand(curation, projectKey, request.prompt.trim(), say);
    }
  } catch (error) {
    say(displayText(errorMessage(error)));
  }
}

/** `/memory` lists; `/memory supersede ID claim`, `/memory invalidate ID [reason]`, `/memory expire ID [reason]` change one item. */
async function memoryCommand(curation: Curation, projectKey: string, prompt: string, say: (text: string) => void): Promise<void> {
  const [action, id, ...rest] = prompt.split(/\s+/);
  const text = rest.join(' ');
  if (action === 'supersede' && id && text) {
    const added = await curation.curate(projectKey, 'supersede', { id, claim: text });
    return say(vscode.l10n.t('{0} is superseded by {1}.', id, added.id));
  }
  if ((action === 'invalidate' || action === 'expire') && id) {
    await curation.curate(projectKey, action, { id, reason: text || undefined });
    return say(action === 'expire' ? vscode.l10n.t('{0} is expired.', id) : vscode.l10n.t('{0} is invalid.', id));
  }
  const items = await curation.curate(projectKey, 'memory', {});
  if (items.length === 0) return say(vscode.l10n.t('No memory yet. Use `/remember` and a claim.'));
  for (const item of items) {
    const link = item.supersededBy ? vscode.l10n.t(' → {0}', item.supersededBy) : '';
    say(vscode.l10n.t('- {0} ({1}) {2}{3}', item.id, item.status, inlineCode(item.claim), link));
  }
}

/** A thumbs up or down on an answer: a useful or not-useful label on each snippet it quoted. */
export async function labelFromFeedback(
  curation: Curation,
  event: vscode.ChatResultFeedback,
  log: vscode.LogOutputChannel,
): Promise<number> {
  const metadata = event.result.metadata as { labels?: AnswerLabels[] } | undefined;
  const label = event.kind === vscode.ChatResultFeedbackKind.Helpful ? 'useful' : 'not-useful';
  let recorded = 0;
  for (const target of metadata?.labels ?? []) {
    if (target.snippetIds.length === 0) continue;
    try {
      const result = await curation.curate(target.projectKey, 'label', {
        query: target.query,
        label,
        source: 'chat',
        snippetIds: target.snippetIds,
      });
      recorded += result.ids.length;
    } catch (error) {
      log.warn(`Feedback was not recorded as labels: ${errorMessage(error)}`);
    }
  }
  return recorded;
}
