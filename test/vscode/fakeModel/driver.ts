// Drives `@project` in the running VS Code with the test-only fake language model (this
// folder's extension.js): installs the model and submits questions through the chat UI.
//
// The web workbench keeps its test payload in a Map, so a second `extensionDevelopmentPath`
// replaces the first instead of adding to it (tried on code-server 4.139.1: only the last one
// loads). The fake model is therefore packed with vsce and installed like a user would install a
// VSIX, with `workbench.extensions.installExtension`, into the run's own extensions dir; the
// workbench starts it without a reload.
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import * as vscode from 'vscode';
import type { ChatTranscript } from '../../../src/vscode/chatParticipant';
import type { ProjectKnowledgeApi } from '../../../src/vscode/extension';
import { waitFor } from '../suite/helpers';

export const fakeModelExtensionId = 'pk-test.fake-model';

export type FakeModelMode = 'reply' | 'language-model-error' | 'error' | 'fail-mid-stream';

export interface RecordedMessage {
  /** 'user' or 'assistant', or whatever other role a newer VS Code sends. */
  role: string;
  name: string | undefined;
  text: string;
}

export interface RecordedRequest {
  model: string;
  at: number;
  messages: RecordedMessage[];
}

/** The fake model's exports (see extension.js). */
export interface FakeModel {
  vendor: string;
  model: { id: string; name: string; maxInputTokens: number; maxOutputTokens: number };
  requests: RecordedRequest[];
  readonly tokenCountCalls: number;
  countTokens(text: string): number;
  setMode(mode: FakeModelMode): void;
  setTokenScale(scale: number): void;
  /** The next requests are answered with these fragments, one array per request. */
  queueReplies(...replies: string[][]): void;
  /** The next `count` requests fail. */
  failNext(count: number): void;
  reset(): void;
}

const sourceFolder = path.resolve(__dirname, '..', '..', '..', '..', 'test', 'vscode', 'fakeModel');

/** Packs the fake model into a VSIX in the run's temp dir (the extension host's TMPDIR). */
async function packFakeModel(): Promise<string> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'pk-fake-model-'));
  for (const file of ['package.json', 'extension.js']) fs.copyFileSync(path.join(sourceFolder, file), path.join(work, file));
  const vsix = path.join(work, 'fake-model.vsix');
  const vsce = require.resolve('@vscode/vsce/vsce');
  await promisify(execFile)(
    process.execPath,
    [vsce, 'package', '--no-dependencies', '--allow-missing-repository', '--skip-license', '--out', vsix],
    { cwd: work, timeout: 120_000 },
  );
  return vsix;
}

/** Installs (once per run) and activates the fake model; resolves when `selectChatModels` sees it. */
export async function installFakeModel(): Promise<FakeModel> {
  const started = Date.now();
  let extension = vscode.extensions.getExtension<FakeModel>(fakeModelExtensionId);
  if (!extension) {
    const vsix = await packFakeModel();
    const packed = Date.now();
    await vscode.commands.executeCommand('workbench.extensions.installExtension', vscode.Uri.file(vsix));
    extension = await waitFor(
      'the fake model extension to start',
      () => vscode.extensions.getExtension<FakeModel>(fakeModelExtensionId),
      90_000,
      100,
    );
    console.log(`fake model: packed in ${packed - started} ms, installed and started in ${Date.now() - packed} ms`);
  }
  const api = extension.isActive ? extension.exports : await extension.activate();
  await waitFor(
    'the fake model in selectChatModels',
    async () => (await vscode.lm.selectChatModels({ vendor: api.vendor })).length > 0,
    90_000,
    100,
  );
  return api;
}

export interface Answer {
  transcript: ChatTranscript;
  /** What the fake model received while answering (empty when the model was not asked). */
  requests: RecordedRequest[];
  ms: number;
}

/**
 * Submits `query` (`@project …`) in the chat view, as a user would, with the fake model picked,
 * and resolves when the participant has finished its response. VS Code resolves the participant,
 * the command and `request.model` itself; `extra` goes to `workbench.action.chat.open` too
 * (e.g. `attachFiles`).
 */
export async function askProject(
  api: ProjectKnowledgeApi,
  fake: FakeModel,
  query: string,
  extra: Record<string, unknown> = {},
): Promise<Answer> {
  const chat = api.chat;
  if (!chat) throw new Error('the @project participant is not registered');
  const before = fake.requests.length;
  const started = Date.now();
  // A new session per question keeps each answer alone on screen and the history empty.
  await vscode.commands.executeCommand('workbench.action.chat.newChat');
  const transcript = await new Promise<ChatTranscript>((resolve, reject) => {
    const timer = setTimeout(() => {
      subscription.dispose();
      reject(new Error(`@project did not answer "${query}" within 90 s`));
    }, 90_000);
    const subscription = chat.onDidRespond((response) => {
      clearTimeout(timer);
      subscription.dispose();
      resolve(response);
    });
    vscode.commands
      .executeCommand('workbench.action.chat.open', { query, isPartialQuery: false, modelSelector: { vendor: fake.vendor }, ...extra })
      .then(undefined, (error: unknown) => {
        clearTimeout(timer);
        subscription.dispose();
        reject(error instanceof Error ? error : new Error(String(error)));
      });
  });
  const ms = Date.now() - started;
  console.log(`      ${JSON.stringify(query)} answered in ${ms} ms`);
  return { transcript, requests: fake.requests.slice(before), ms };
}
