import { NavigationInputError } from './inputError';
import { LiveFiles } from '../liveFile';
import { citationOf } from '../retrieval/retrieve';
import type { SymbolRow } from '../store';
import { resyncOne, type SyncContext } from '../sync';

/** A file as read now, when its live SHA-256 is the one the index holds. */
export interface CurrentFile {
  sha256: string;
  lines: string[];
}

/**
 * Live verification shared by the navigation tools. `current` answers only for files whose live
 * hash equals the indexed one; any other file it met (edited, deleted, now binary or secret) is
 * remembered so the query can be re-run after those files are re-indexed or dropped.
 */
export class LiveCheck {
  private readonly live: LiveFiles;
  readonly changed = new Set<string>();

  constructor(private readonly context: SyncContext) {
    this.live = new LiveFiles(context);
  }

  async current(relativePath: string): Promise<CurrentFile | undefined> {
    const indexed = this.context.store.catalog.file(relativePath);
    const read = await this.live.get(relativePath);
    if (indexed && read.ok && read.sha256 === indexed.sha256) return { sha256: read.sha256, lines: read.lines };
    this.changed.add(relativePath);
    return undefined;
  }
}

/** How often a query is re-run after the files it met changed under the index (as search does). */
const maxRetries = 2;

export interface Verified<T> {
  value: T;
  /** Files that kept changing while the query ran; what they held was left out. */
  unsettled: string[];
}

/**
 * Runs `query` until every file it read was current: changed files are re-indexed (or removed)
 * and the query runs again, at most twice more. Files re-indexed here are written at the end,
 * as a search does.
 */
export async function withLiveCheck<T>(context: SyncContext, query: (check: LiveCheck) => Promise<T>): Promise<Verified<T>> {
  const revisionAtStart = context.store.revision;
  for (let attempt = 0; ; attempt++) {
    const check = new LiveCheck(context);
    const value = await query(check);
    if (check.changed.size === 0 || attempt >= maxRetries) {
      if (context.store.revision !== revisionAtStart) await context.store.persist();
      return { value, unsettled: [...check.changed].sort() };
    }
    for (const changedPath of check.changed) await resyncOne(context, changedPath);
  }
}

/** A declaration as the navigation tools return it: where it is and the citation of its current lines. */
export interface SymbolMatch {
  name: string;
  qualifiedName: string;
  kind: string;
  signature: string | null;
  parent: string | null;
  path: string;
  startLine: number;
  endLine: number;
  sha256: string;
  citation: string;
}

export function symbolMatch(row: SymbolRow, sha256: string): SymbolMatch {
  const range = { path: row.path, startLine: row.startLine, endLine: row.endLine, sha256 };
  return {
    name: row.name,
    qualifiedName: row.qualifiedName,
    kind: row.kind,
    signature: row.signature,
    parent: row.parent,
    ...range,
    citation: citationOf(range),
  };
}

/** A project-relative POSIX path from user input: `./` and trailing slashes dropped, `.` for the root. */
export function normalizeRequestedPath(requested: string): string {
  const trimmed = requested
    .trim()
    .replace(/\\/g, '/')
    .replace(/^(\.\/)+/, '')
    .replace(/\/+$/, '');
  if (trimmed === '.' || trimmed === '') return '';
  if (trimmed.startsWith('/') || trimmed.split('/').some((part) => part === '..')) {
    throw new NavigationInputError(`The path ${requested} is not a project-relative path.`);
  }
  return trimmed;
}

/** Whether `relativePath` is `scope` or lies under it ('' is the whole project). */
export function withinScope(relativePath: string, scope: string): boolean {
  return scope === '' || relativePath === scope || relativePath.startsWith(`${scope}/`);
}

/** Test code: files under a test folder or whose name says test or spec. */
export function isTestPath(relativePath: string): boolean {
  if (/(^|\/)(tests?|__tests__|specs?|testing|testdata)\//i.test(relativePath)) return true;
  const name = relativePath.slice(relativePath.lastIndexOf('/') + 1);
  return /test/i.test(name) || /[._-]spec\./i.test(name);
}
