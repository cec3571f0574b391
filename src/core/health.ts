import { displayText } from './safeText';
// Types only: the extension bundles this module for `formatHealth`, and a value import of the
// store would bring sql.js into extension.js (test/core/bundle.test.ts checks it does not).
import type { IndexStore } from './store';
import type { CurationHealth } from './curation/curation';
import { curationHealthLines } from './curation/healthLines';

export interface Health {
  status: 'ready' | 'empty' | 'stale' | 'untrusted' | 'error';
  root: string;
  dbPath: string | null;
  schemaVersion: number;
  files: number;
  snippets: number;
  staleSnippets: number;
  symbols: number;
  excluded: number;
  exclusionsByReason: Record<string, number>;
  parserCoverage: Array<{ language: string; parser: string; reason: string | null; files: number }>;
  databaseBytes: number;
  lastSync: string | null;
  lastSyncMs: number | null;
  branch: string | null;
  head: string | null;
  dirty: boolean;
  boundNotes: string[];
  lastErrors: string[];
  warnings: string[];
  /** Pins, memory, labels and the learned ranker (absent where no engine answered). */
  curation?: CurationHealth;
}

/** Counts and warnings of SPEC §12 for one project. */
export function healthOf(
  store: IndexStore,
  root: string,
  dbPath: string | undefined,
  lastErrors: string[],
  workingTreeNewerThanIndex: boolean,
): Health {
  const counts = store.counts();
  const state = store.catalog.state();
  const warnings: string[] = [];
  if (counts.staleSnippets > 0) warnings.push(`${counts.staleSnippets} stale snippets are kept for inspection; queries never return them.`);
  if (workingTreeNewerThanIndex) warnings.push('Files changed after the last sync; the next query or sync re-indexes them.');
  if (state.indexedAt === null) warnings.push('The project has not been indexed yet.');
  warnings.push(...state.boundNotes);
  return {
    status: state.indexedAt === null ? 'empty' : workingTreeNewerThanIndex ? 'stale' : 'ready',
    root,
    dbPath: dbPath ?? null,
    schemaVersion: store.schemaVersion,
    files: counts.files,
    snippets: counts.snippets,
    staleSnippets: counts.staleSnippets,
    symbols: counts.symbols,
    excluded: counts.exclusions,
    exclusionsByReason: store.catalog.exclusionCounts(),
    parserCoverage: store.catalog.parserCoverage(),
    databaseBytes: store.byteSize(),
    lastSync: state.indexedAt ? new Date(state.indexedAt).toISOString() : null,
    lastSyncMs: state.syncMs,
    branch: state.branch,
    head: state.head,
    dirty: state.dirty,
    boundNotes: state.boundNotes,
    lastErrors: lastErrors.slice(-10),
    warnings,
  };
}

/**
 * A plain-text report for the CLI and the extension's Health Check. Each line goes through
 * `displayText`: a root, branch or error message holding controls or bidi characters stays one
 * visible line.
 */
export function formatHealth(health: Health): string {
  const lines = [
    `Project Knowledge health: ${health.status}`,
    `Root: ${health.root}`,
    `Database: ${health.dbPath ?? '(in memory)'} — ${(health.databaseBytes / 1024).toFixed(0)} KiB, schema ${health.schemaVersion}`,
    `Files: ${health.files}  Snippets: ${health.snippets}  Symbols: ${health.symbols}  Stale snippets: ${health.staleSnippets}`,
    `Last sync: ${health.lastSync ?? 'never'}${health.lastSyncMs !== null ? ` (${health.lastSyncMs} ms)` : ''}`,
    `Git: ${health.branch ?? '(no branch)'} ${health.head ? health.head.slice(0, 12) : '(no HEAD)'}${health.dirty ? ' dirty' : ''}`,
    `Excluded: ${health.excluded}`,
  ];
  for (const [reason, count] of Object.entries(health.exclusionsByReason)) lines.push(`  ${reason}: ${count}`);
  lines.push('Parser coverage:');
  for (const row of health.parserCoverage)
    lines.push(`  ${row.language}: ${row.parser} ${row.files}${row.reason ? ` (${row.reason})` : ''}`);
  if (health.curation) lines.push(...curationHealthLines(health.curation));
  for (const warning of health.warnings) lines.push(`Warning: ${warning}`);
  for (const error of health.lastErrors) lines.push(`Error: ${error}`);
  return lines.map(displayText).join('\n');
}
