import { randomBytes } from 'node:crypto';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { Disposable } from './lifecycle';
import { fileUri } from './locations';
import { isWebviewToHost, type HostToWebview } from './manifestProtocol';
import type { WorkspaceIndex } from './workspaceIndex';

/** Strings the webview shows, localized on the host side. */
function webviewStrings(): Record<string, string> {
  return {
    title: vscode.l10n.t('Context Manifest'),
    noManifest: vscode.l10n.t('No retrieval yet. Run "Project Knowledge: Search Snippets" or ask @project in chat.'),
    untrusted: vscode.l10n.t('Untrusted workspace: nothing is indexed or retrieved in Restricted Mode.'),
    filter: vscode.l10n.t('Filter'),
    all: vscode.l10n.t('All'),
    included: vscode.l10n.t('Included'),
    excluded: vscode.l10n.t('Excluded'),
    query: vscode.l10n.t('Query'),
    rewrittenFrom: vscode.l10n.t('Rewritten by {0} from the request:'),
    revision: vscode.l10n.t('Revision'),
    health: vscode.l10n.t('Health'),
    status: vscode.l10n.t('Status'),
    reason: vscode.l10n.t('Reason'),
    score: vscode.l10n.t('Score'),
    tokens: vscode.l10n.t('Tokens'),
    location: vscode.l10n.t('Location'),
    kind: vscode.l10n.t('Kind'),
    symbol: vscode.l10n.t('Symbol'),
    yes: vscode.l10n.t('included'),
    no: vscode.l10n.t('excluded'),
    summary: vscode.l10n.t('{0} included, {1} excluded, {2} of {3} tokens'),
    actions: vscode.l10n.t('Feedback'),
    pin: vscode.l10n.t('Pin'),
    useful: vscode.l10n.t('Useful'),
    notUseful: vscode.l10n.t('Not useful'),
  };
}

/** The manifest webview: one panel, reused, showing the last manifest (never source text). */
export class ManifestPanel extends Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private ready = false;
  private highlight: string | undefined;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly index: WorkspaceIndex,
  ) {
    super();
    this._register(index.onDidChangeManifest(() => void this.post()));
    this._register(
      new vscode.Disposable(() => {
        this.panel?.dispose();
      }),
    );
  }

  get isOpen(): boolean {
    return this.panel !== undefined;
  }

  show(highlight?: string): void {
    this.highlight = highlight;
    if (this.panel) {
      this.panel.reveal(vscode.ViewColumn.Active);
      void this.post();
      return;
    }
    const mediaRoot = vscode.Uri.joinPath(this.context.extensionUri, 'media');
    const panel = vscode.window.createWebviewPanel(
      'projectKnowledge.manifest',
      vscode.l10n.t('Context Manifest'),
      vscode.ViewColumn.Active,
      {
        enableScripts: true,
        localResourceRoots: [mediaRoot],
        retainContextWhenHidden: false,
      },
    );
    this.panel = panel;
    this.ready = false;
    panel.iconPath = vscode.Uri.joinPath(mediaRoot, 'icon.svg');
    panel.webview.html = this.html(panel.webview, mediaRoot);
    // Both listeners die with the panel, which disposes them itself.
    panel.webview.onDidReceiveMessage((message: unknown) => this.receive(message));
    panel.onDidDispose(() => {
      this.panel = undefined;
      this.ready = false;
    });
  }

  private receive(message: unknown): void {
    if (!isWebviewToHost(message)) return;
    if (message.type === 'ready') {
      this.ready = true;
      void this.post();
      return;
    }
    if (message.type === 'label') {
      const command = message.useful ? 'projectKnowledge.markUseful' : 'projectKnowledge.markNotUseful';
      void vscode.commands.executeCommand(command, { root: message.root, query: message.query, snippetId: message.snippetId });
      return;
    }
    if (message.type === 'pin') {
      const { root, path: relativePath, startLine, endLine, symbol } = message;
      void vscode.commands.executeCommand('projectKnowledge.pin', { root, path: relativePath, startLine, endLine, symbol });
      return;
    }
    const folder =
      this.index
        .status()
        .folders.find((status) => status.folder.uri.fsPath === message.root || path.resolve(status.folder.uri.fsPath) === message.root)
        ?.folder ?? vscode.workspace.workspaceFolders?.[0];
    if (!folder) return;
    void vscode.commands.executeCommand('projectKnowledge.openSnippet', {
      uri: fileUri(folder, message.path),
      startLine: message.startLine,
      endLine: message.endLine,
    });
  }

  private async post(): Promise<void> {
    if (!this.panel || !this.ready) return;
    const health = (await this.index.health().catch(() => [])).flatMap(({ health: report }) =>
      report
        ? [
            {
              root: report.root,
              status: report.status,
              files: report.files,
              snippets: report.snippets,
              staleSnippets: report.staleSnippets,
              symbols: report.symbols,
              excluded: report.excluded,
              lastSync: report.lastSync,
            },
          ]
        : [],
    );
    const message: HostToWebview = {
      type: 'manifest',
      manifest: this.index.lastManifest ?? null,
      health,
      trusted: this.index.trusted,
      highlight: this.highlight,
      strings: webviewStrings(),
    };
    await this.panel.webview.postMessage(message);
  }

  private html(webview: vscode.Webview, mediaRoot: vscode.Uri): string {
    const nonce = randomBytes(16).toString('base64');
    const script = webview.asWebviewUri(vscode.Uri.joinPath(mediaRoot, 'manifest.js'));
    const style = webview.asWebviewUri(vscode.Uri.joinPath(mediaRoot, 'manifest.css'));
    return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src ${webview.cspSource}; script-src 'nonce-${nonce}'; img-src ${webview.cspSource};">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link href="${style.toString()}" rel="stylesheet">
<title>${vscode.l10n.t('Context Manifest')}</title>
</head>
<body>
<main id="app" aria-live="polite"></main>
<script nonce="${nonce}" src="${script.toString()}"></script>
</body>
</html>`;
  }
}
