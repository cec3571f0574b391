import * as vscode from 'vscode';
import { type ProjectParticipant, registerChatParticipant } from './chatParticipant';
import { registerCommands } from './commands';
import { reindexSettings } from './config';
import { IndexService } from './indexService';
import { ManifestPanel } from './manifestPanel';
import { registerMcpDefinitions, type McpDefinitions } from './mcpProvider';
import { registerNavigationTools } from './navigationTools';
import { registerSearchTool } from './searchTool';
import { registerStatusBar } from './statusBar';
import { IndexTreeProvider } from './treeView';
import { registerCuration, type Curation } from './curation';

/** What the extension returns from `activate`; the extension-host tests use it. */
export interface ProjectKnowledgeApi {
  service: IndexService;
  tree: IndexTreeProvider;
  manifest: ManifestPanel;
  /** The `@project` participant (undefined where chat is unavailable); tests listen to `onDidRespond`. */
  chat: ProjectParticipant | undefined;
  /** The MCP server definitions (undefined where VS Code has no MCP API); tests ask it what it offers. */
  mcp: McpDefinitions | undefined;
  activationMs: number;
  /** Pins, memory, labels and the ranker (`curation.ts`). */
  curation: Curation;
}

export async function activate(context: vscode.ExtensionContext): Promise<ProjectKnowledgeApi> {
  const started = performance.now();
  const log = vscode.window.createOutputChannel('Project Knowledge', { log: true });
  context.subscriptions.push(log);
  const service = new IndexService(context, log);
  context.subscriptions.push({ dispose: () => void service.dispose() });
  const manifest = new ManifestPanel(context, service);
  const tree = new IndexTreeProvider(service);
  const view = vscode.window.createTreeView('projectKnowledge.index', { treeDataProvider: tree, showCollapseAll: true });
  context.subscriptions.push(manifest, tree, view, registerStatusBar(service), ...registerCommands({ service, manifest, log }));
  registerFileEvents(context, service);
  const curated = registerCuration(service, log);
  context.subscriptions.push(...curated.disposables);
  const chat = registerChatParticipant(context, service, log, curated.curation);
  const tool = registerSearchTool(service, log);
  if (tool) context.subscriptions.push(tool);
  context.subscriptions.push(...registerNavigationTools(service, log));
  const mcp = registerMcpDefinitions(context, service, log);
  if (mcp) context.subscriptions.push(...mcp.disposables);
  const activationMs = performance.now() - started;
  log.info(`Activated in ${activationMs.toFixed(1)} ms (trusted: ${vscode.workspace.isTrusted}).`);
  // Indexing starts after activation returns, so activation itself stays cheap.
  setTimeout(() => {
    service.start().catch((error: unknown) => log.error(`Indexing could not start: ${String(error)}`));
  }, 0);
  return { service, tree, manifest, chat, mcp: mcp?.provider, activationMs, curation: curated.curation };
}

/** Watcher, saves and settings: each schedules the debounced incremental sync it needs. */
function registerFileEvents(context: vscode.ExtensionContext, service: IndexService): void {
  const watcher = vscode.workspace.createFileSystemWatcher('**/*');
  const changed = (uri: vscode.Uri) => service.notePathChanged(uri);
  context.subscriptions.push(
    watcher,
    watcher.onDidCreate(changed),
    watcher.onDidChange(changed),
    watcher.onDidDelete(changed),
    vscode.workspace.onDidSaveTextDocument((document) => changed(document.uri)),
    vscode.workspace.onDidRenameFiles((event) =>
      event.files.forEach((file) => {
        changed(file.oldUri);
        changed(file.newUri);
      }),
    ),
    vscode.workspace.onDidChangeConfiguration((event) => {
      for (const folder of vscode.workspace.workspaceFolders ?? []) {
        if (reindexSettings.some((setting) => event.affectsConfiguration(setting, folder))) {
          void service.refreshFolders().then(() => service.scheduleSync(folder, 0, true));
        }
      }
    }),
  );
}

export function deactivate(): void {
  // Disposables registered on the context close the worker and persist the indexes.
}
