import * as vscode from 'vscode';
import { type ProjectParticipant, registerChatParticipant } from './chatParticipant';
import { registerCommands } from './commands';
import { registerFileEvents } from './fileEvents';
import { ManifestPanel } from './manifestPanel';
import { registerMcpDefinitions, type McpDefinitions } from './mcpProvider';
import { registerNavigationTools } from './navigationTools';
import { registerSearchTool } from './searchTool';
import { registerStatusBar } from './statusBar';
import { IndexTreeProvider } from './treeView';
import { WorkspaceIndex } from './workspaceIndex';
import { registerCuration, type Curation } from './curation';

/** What the extension returns from `activate`; the extension-host tests use it. */
export interface ProjectKnowledgeApi {
  /** The facade every view, command, chat and tool goes through. */
  index: WorkspaceIndex;
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

/** The index of the running extension, so `deactivate` can wait for its last write. */
let active: WorkspaceIndex | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<ProjectKnowledgeApi> {
  const started = performance.now();
  const log = vscode.window.createOutputChannel('Project Knowledge', { log: true });
  context.subscriptions.push(log);
  const index = new WorkspaceIndex(context, log);
  active = index;
  const manifest = new ManifestPanel(context, index);
  const tree = new IndexTreeProvider(index);
  const view = vscode.window.createTreeView('projectKnowledge.index', { treeDataProvider: tree, showCollapseAll: true });
  context.subscriptions.push(index, manifest, tree, view, registerStatusBar(index), ...registerCommands({ index, manifest, log }));
  context.subscriptions.push(registerFileEvents(index));
  const curated = registerCuration(index, log);
  context.subscriptions.push(...curated.disposables);
  const chat = registerChatParticipant(context, index, log, curated.curation);
  const tool = registerSearchTool(index, log);
  if (tool) context.subscriptions.push(tool);
  context.subscriptions.push(...registerNavigationTools(index, log));
  const mcp = registerMcpDefinitions(context, index, log);
  if (mcp) context.subscriptions.push(...mcp.disposables);
  const activationMs = performance.now() - started;
  log.info(`Activated in ${activationMs.toFixed(1)} ms (trusted: ${index.trusted}).`);
  // Indexing starts after activation returns, so activation itself stays cheap.
  setTimeout(() => {
    index.start().catch((error: unknown) => log.error(`Indexing could not start: ${String(error)}`));
  }, 0);
  return { index, tree, manifest, chat, mcp: mcp?.provider, activationMs, curation: curated.curation };
}

/** VS Code awaits this: every folder's pending database write finishes (within 3 s) before the host stops. */
export function deactivate(): Promise<void> | undefined {
  return active?.shutdown();
}
