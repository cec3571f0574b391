import { displayText } from '../safeText';

/** The explanation of one retrieval (SPEC §10). It never carries source text. */
export interface ManifestEntry {
  included: boolean;
  kind: string;
  snippetId: string;
  path: string;
  fileHash: string;
  startLine: number;
  endLine: number;
  score: number;
  tokens: number;
  /** Why it was proposed (`exact-symbol`, `full-text`, ...) or left out (`stale-hash`, `over-budget`, `secret`, ...). */
  reason: string;
  /** The proposal reason when the entry was excluded later. */
  matchedBy?: string;
  symbol?: string;
  modified: boolean;
  gitCommit: string | null;
}

export interface ProjectRevision {
  root: string;
  branch: string | null;
  head: string | null;
  dirty: boolean;
  changedPaths: string[];
  indexedAt: string | null;
}

export interface Manifest {
  query: string;
  createdAt: string;
  status: 'ok' | 'not-actionable' | 'untrusted' | 'unavailable';
  note?: string;
  revision: ProjectRevision | null;
  budgetTokens: number;
  usedTokens: number;
  retries: number;
  /** How candidates were ranked: lexical tiers, hybrid (lexical + vectors), or lexical because vectors failed. */
  ranking?: 'lexical' | 'hybrid' | 'lexical-fallback';
  /** Set by the chat participant when the chat model rewrote the request (`request`) into the `query` searched. */
  rewrite?: { request: string; model: string };
  /** The learned ranker's part (`curation/`): its mode, whether it reordered anything, and why not. No ids or features. */
  learned?: { mode: 'off' | 'shadow' | 'active'; applied: boolean; fallback?: string };
  /**
   * For a sentence or a pasted text with git history: the earlier commits whose messages are most
   * like the request (short id, subject, bm25 similarity, files changed), which the file ranking
   * drew on (`history/similarCommits.ts`); each ranked file names the ones that changed it.
   */
  history?: { similar: Array<{ commit: string; subject: string; similarity: number; files: number }>; note?: string };
  entries: ManifestEntry[];
}

/** One line for plain output; paths and notes in it have their unsafe characters escaped (`displayText`). */
export function summarizeManifest(manifest: Manifest): string {
  const included = manifest.entries.filter((entry) => entry.included);
  const excluded = manifest.entries.length - included.length;
  const reasons: Record<string, number> = {};
  for (const entry of manifest.entries) if (!entry.included) reasons[entry.reason] = (reasons[entry.reason] ?? 0) + 1;
  const why = Object.entries(reasons)
    .map(([reason, count]) => `${reason} ${count}`)
    .join(', ');
  const revision = manifest.revision
    ? `${manifest.revision.branch ?? 'no branch'}@${(manifest.revision.head ?? 'no HEAD').slice(0, 12)}${manifest.revision.dirty ? ' (dirty)' : ''}`
    : 'no revision';
  if (manifest.status !== 'ok') return displayText(`Manifest: ${manifest.status}${manifest.note ? ` — ${manifest.note}` : ''}`);
  return displayText(
    `Manifest: ${included.length} snippets included (${manifest.usedTokens}/${manifest.budgetTokens} tokens), ${excluded} excluded${why ? ` (${why})` : ''}; revision ${revision}.`,
  );
}
