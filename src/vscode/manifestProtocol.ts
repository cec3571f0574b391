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

export type WebviewToHost =
  | { type: 'ready' }
  | { type: 'open'; path: string; startLine: number; endLine: number; root: string }
  /** Pin an entry (its declaration when it has one, else its lines). */
  | { type: 'pin'; path: string; startLine: number; endLine: number; root: string; symbol?: string }
  /** Label an entry of the answer to `query` useful or not useful. */
  | { type: 'label'; root: string; query: string; snippetId: string; useful: boolean };

export function isWebviewToHost(value: unknown): value is WebviewToHost {
  if (!value || typeof value !== 'object') return false;
  const message = value as Record<string, unknown>;
  if (message.type === 'ready') return true;
  if (message.type === 'label')
    return (
      typeof message.root === 'string' &&
      typeof message.query === 'string' &&
      typeof message.snippetId === 'string' &&
      typeof message.useful === 'boolean'
    );
  if (message.type === 'pin' && message.symbol !== undefined && typeof message.symbol !== 'string') return false;
  return (
    (message.type === 'open' || message.type === 'pin') &&
    typeof message.path === 'string' &&
    typeof message.root === 'string' &&
    Number.isInteger(message.startLine) &&
    Number.isInteger(message.endLine)
  );
}
