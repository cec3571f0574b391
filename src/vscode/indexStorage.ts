import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type * as vscode from 'vscode';
import { errorMessage } from '../core/errorMessage';
import type { RequestMap } from '../core/worker/protocol';
import { readConfig } from './config';

/**
 * The database of one folder: `indexes/` in the extension's global storage, named by a hash of
 * the folder's canonical root, so a folder reached through another path or link shares its index.
 */
export async function databasePath(globalStorage: vscode.Uri, folder: vscode.WorkspaceFolder): Promise<string> {
  const canonical = await fs.promises.realpath(folder.uri.fsPath);
  const directory = path.join(globalStorage.fsPath, 'indexes');
  await fs.promises.mkdir(directory, { recursive: true });
  return path.join(directory, `${createHash('sha256').update(canonical).digest('hex').slice(0, 24)}.sqlite`);
}

type OpenRequest = RequestMap['open'];

/**
 * Opens one folder's engine on its database in global storage. A global storage that cannot be
 * written, or a file at the storage path that is not our index (left alone), does not stop
 * indexing: the folder's index then stays in memory. `openEngine` sends the worker's `open`.
 */
export async function openFolderIndex(
  folder: vscode.WorkspaceFolder,
  storagePath: Promise<string>,
  openEngine: (params: OpenRequest['params']) => Promise<OpenRequest['result']>,
  log: vscode.LogOutputChannel,
): Promise<{ loadedFromDisk: boolean }> {
  let dbPath: string | undefined;
  try {
    dbPath = await storagePath;
  } catch (error) {
    log.warn(`Global storage is not writable (${String(error)}); the index of ${folder.name} stays in memory.`);
  }
  const config = readConfig(folder);
  const request = { projectKey: folder.uri.toString(), root: folder.uri.fsPath, options: config.engine, rankingMode: config.rankingMode };
  const opened = await openEngine({ ...request, dbPath }).catch(async (error: unknown) => {
    if (!dbPath || (error as { remoteName?: string }).remoteName !== 'DatabaseRefusedError') throw error;
    log.warn(`${errorMessage(error)} The index of ${folder.name} stays in memory.`);
    return openEngine(request);
  });
  if (opened.openNote) log.warn(opened.openNote);
  log.info(`Opened the index of ${folder.name}${opened.loadedFromDisk ? ' from global storage' : ' (new)'}.`);
  return { loadedFromDisk: opened.loadedFromDisk };
}
