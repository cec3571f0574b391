import type { Health } from '../core/health';
import type { Manifest } from '../core/retrieval/manifest';

/**
 * Messages between the manifest webview (media/manifest.js) and the extension. The webview
 * sends `ready` first; the host answers with the current manifest.
 */
export type HostToWebview = {
  type: 'manifest';
  manifest: Manifest | null;
  health: Array<Pick<Health, 'root' | 'status' | 'files' | 'snippets' | 'staleSnippets' | 'symbols' | 'excluded' | 'lastSync'>>;
  trusted: boolean;
  highlight?: string;
  strings: Record<string, string>;
};

export type WebviewToHost = { type: 'ready' } | { type: 'open'; path: string; startLine: number; endLine: number; root: string };

export function isWebviewToHost(value: unknown): value is WebviewToHost {
  if (!value || typeof value !== 'object') return false;
  const message = value as Record<string, unknown>;
  if (message.type === 'ready') return true;
  return (
    message.type === 'open' &&
    typeof message.path === 'string' &&
    typeof message.root === 'string' &&
    Number.isInteger(message.startLine) &&
    Number.isInteger(message.endLine)
  );
}
