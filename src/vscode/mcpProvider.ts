import * as path from 'node:path';
import * as vscode from 'vscode';
import { Disposable } from './lifecycle';
import type { WorkspaceIndex } from './workspaceIndex';

export const mcpProviderId = 'projectKnowledge.mcp';

/**
 * Offers one MCP server definition per trusted workspace folder: the bundled `pk mcp` run with the
 * editor's own Node (`ELECTRON_RUN_AS_NODE`) on that folder and the extension's database for it,
 * so any MCP client in VS Code gets the same tools as agent mode. None while the workspace is
 * untrusted; the list changes when trust is granted or folders change.
 */
export class McpDefinitions extends Disposable implements vscode.McpServerDefinitionProvider<vscode.McpStdioServerDefinition> {
  private readonly _onDidChangeMcpServerDefinitions = this._register(new vscode.EventEmitter<void>());
  readonly onDidChangeMcpServerDefinitions = this._onDidChangeMcpServerDefinitions.event;

  constructor(
    private readonly extension: vscode.ExtensionContext,
    private readonly index: WorkspaceIndex,
    private readonly log: vscode.LogOutputChannel,
  ) {
    super();
    this._register(index.onDidGrantTrust(() => this._onDidChangeMcpServerDefinitions.fire()));
    this._register(vscode.workspace.onDidChangeWorkspaceFolders(() => this._onDidChangeMcpServerDefinitions.fire()));
  }

  async provideMcpServerDefinitions(): Promise<vscode.McpStdioServerDefinition[]> {
    if (!this.index.trusted) return [];
    const cli = path.join(this.extension.extensionUri.fsPath, 'dist', 'cli.js');
    const packageJson = this.extension.extension.packageJSON as { version?: unknown };
    const version = typeof packageJson.version === 'string' ? packageJson.version : '0.0.0';
    const definitions: vscode.McpStdioServerDefinition[] = [];
    for (const folder of vscode.workspace.workspaceFolders ?? []) {
      if (folder.uri.scheme !== 'file') continue;
      let database: string;
      try {
        database = await this.index.databaseFor(folder);
      } catch (error) {
        this.log.warn(`No MCP server for ${folder.name}: its database folder is unavailable (${String(error)}).`);
        continue;
      }
      const definition = new vscode.McpStdioServerDefinition(
        vscode.l10n.t('Project Knowledge: {0}', folder.name),
        process.execPath,
        [cli, 'mcp', folder.uri.fsPath, '--db', database],
        { ELECTRON_RUN_AS_NODE: '1' },
        version,
      );
      definition.cwd = folder.uri;
      definitions.push(definition);
    }
    return definitions;
  }

  /** Re-checks trust when a server is started: a definition offered earlier is not started in an untrusted workspace. */
  resolveMcpServerDefinition(definition: vscode.McpStdioServerDefinition): vscode.McpStdioServerDefinition | undefined {
    return this.index.trusted ? definition : undefined;
  }
}

export function registerMcpDefinitions(
  extension: vscode.ExtensionContext,
  index: WorkspaceIndex,
  log: vscode.LogOutputChannel,
): { provider: McpDefinitions; disposables: vscode.Disposable[] } | undefined {
  if (!vscode.lm?.registerMcpServerDefinitionProvider || !vscode.McpStdioServerDefinition) return undefined;
  const provider = new McpDefinitions(extension, index, log);
  return { provider, disposables: [provider, vscode.lm.registerMcpServerDefinitionProvider(mcpProviderId, provider)] };
}
