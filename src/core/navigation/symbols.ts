import { citationOf } from '../retrieval/retrieve';
import type { SymbolRow } from '../store';
import type { SyncContext } from '../sync';
import { estimateTokens } from '../tokens';
import { NavigationInputError } from './inputError';
import { normalizeRequestedPath, symbolMatch, withinScope, withLiveCheck, type LiveCheck, type SymbolMatch } from './live';

export interface FindSymbolInput {
  name: string;
  kind?: string;
  path?: string;
  limit?: number;
}

export interface FindSymbolResult {
  name: string;
  matchedBy: 'qualified' | 'simple' | 'none';
  matches: SymbolMatch[];
  /** More declarations matched than `limit`; the first ones by path and line are listed. */
  truncated: boolean;
  unsettled: string[];
}

const defaultSymbolLimit = 50;
const longestName = 300;

/** `Outer::inner`, `Outer#inner` and `Outer->inner` are written `Outer.inner` in qualified names. */
export function normalizeSymbolName(name: string): string {
  const trimmed = name.trim().replace(/^`|`$/g, '');
  if (trimmed === '') throw new NavigationInputError('The symbol name is empty.');
  if (trimmed.length > longestName) throw new NavigationInputError(`The symbol name is longer than ${longestName} characters.`);
  if (/[\s\p{Cc}]/u.test(trimmed))
    throw new NavigationInputError(`Not a symbol name: ${JSON.stringify(trimmed.slice(0, 80))} (no spaces).`);
  return trimmed.replace(/::|->|#/g, '.');
}

/** The last segment of a qualified name, the name a use of the symbol is written with. */
export function simpleNameOf(name: string): string {
  const parts = name.split('.').filter((part) => part.length > 0);
  return parts[parts.length - 1] ?? name;
}

/**
 * Current declarations named `name`: exact qualified name first, and when none has it, exact
 * simple name. `kind` (case-insensitive) and `path` (a file or a folder) narrow the list.
 */
export function lookupDeclarations(
  context: SyncContext,
  input: FindSymbolInput,
): { matchedBy: FindSymbolResult['matchedBy']; rows: SymbolRow[] } {
  const name = normalizeSymbolName(input.name);
  const scope = input.path === undefined ? '' : normalizeRequestedPath(input.path);
  const kind = input.kind?.trim().toLowerCase();
  const keep = (row: SymbolRow) => withinScope(row.path, scope) && (!kind || row.kind.toLowerCase() === kind);
  const qualified = context.store.chunks.symbolsNamed(name, 'qualified').filter(keep);
  if (qualified.length > 0) return { matchedBy: 'qualified', rows: qualified };
  const simple = name.includes('.') ? [] : context.store.chunks.symbolsNamed(name, 'simple').filter(keep);
  return { matchedBy: simple.length > 0 ? 'simple' : 'none', rows: simple };
}

/** Keeps the rows whose files are current, each with its live hash. */
export async function currentMatches(rows: SymbolRow[], check: LiveCheck): Promise<SymbolMatch[]> {
  const matches: SymbolMatch[] = [];
  for (const row of rows) {
    const file = await check.current(row.path);
    if (file && row.endLine <= file.lines.length) matches.push(symbolMatch(row, file.sha256));
  }
  return matches;
}

export async function findSymbol(context: SyncContext, input: FindSymbolInput): Promise<FindSymbolResult> {
  const limit = input.limit ?? defaultSymbolLimit;
  const { value, unsettled } = await withLiveCheck(context, async (check) => {
    const { matchedBy, rows } = lookupDeclarations(context, input);
    return { matchedBy, matches: await currentMatches(rows.slice(0, limit), check), truncated: rows.length > limit };
  });
  return { name: normalizeSymbolName(input.name), ...value, unsettled };
}

export interface OutlineDeclaration {
  name: string;
  qualifiedName: string;
  kind: string;
  signature: string | null;
  startLine: number;
  endLine: number;
  /** Nesting depth inside the file: 0 for top-level declarations. */
  depth: number;
  citation: string;
}

export interface OutlineFile {
  path: string;
  language: string;
  sha256: string;
  lines: number;
  declarations: OutlineDeclaration[];
}

export interface OutlineInput {
  path: string;
  budgetTokens?: number;
}

export interface OutlineResult {
  path: string;
  kind: 'file' | 'directory';
  files: OutlineFile[];
  /** Indexed files under the folder (for a file, 1). */
  totalFiles: number;
  /** Files or declarations left out by the token budget. */
  truncated: boolean;
  budgetTokens: number;
  usedTokens: number;
  unsettled: string[];
}

/** A repository map of a few thousand tokens fits beside a task in any model's prompt. */
export const defaultOutlineBudget = 4000;
const symbolBatch = 200;

/** Depth of each declaration: how many others of the same file enclose its range. */
function withDepth(rows: SymbolRow[]): Array<SymbolRow & { depth: number }> {
  const sorted = [...rows].sort((a, b) => a.startLine - b.startLine || b.endLine - a.endLine);
  const open: SymbolRow[] = [];
  return sorted.map((row) => {
    while (open.length > 0 && open[open.length - 1].endLine < row.startLine) open.pop();
    const depth = open.length;
    open.push(row);
    return { ...row, depth };
  });
}

/** The line an outline prints for a declaration; its token estimate is what the budget counts. */
export function outlineLine(
  declaration: Pick<OutlineDeclaration, 'depth' | 'kind' | 'qualifiedName' | 'signature' | 'startLine' | 'endLine'>,
): string {
  const signature = declaration.signature ? `  ${declaration.signature}` : '';
  const indent = '  '.repeat(declaration.depth + 1);
  return `${indent}${declaration.kind} ${declaration.qualifiedName}${signature}  L${declaration.startLine}-${declaration.endLine}`;
}

/**
 * The declarations of a file, or for a folder its files with their top-level declarations, as
 * many as fit the token budget (files in path order; a file that does not fit whole is cut
 * after the declarations that do).
 */
export async function outline(context: SyncContext, input: OutlineInput): Promise<OutlineResult> {
  const scope = normalizeRequestedPath(input.path);
  const budget = input.budgetTokens ?? defaultOutlineBudget;
  const isFile = scope !== '' && context.store.catalog.file(scope) !== undefined;
  if (!isFile && context.store.catalog.pathsUnder(scope).length === 0) {
    throw new NavigationInputError(`No indexed file or folder ${input.path.trim() || '.'} in the project.`);
  }
  const { value, unsettled } = await withLiveCheck(context, async (check) => {
    const paths = isFile ? [scope] : context.store.catalog.pathsUnder(scope);
    const files: OutlineFile[] = [];
    let used = 0;
    let truncated = false;
    outer: for (let start = 0; start < paths.length; start += symbolBatch) {
      const batch = paths.slice(start, start + symbolBatch);
      const byPath = new Map<string, SymbolRow[]>();
      for (const row of context.store.chunks.symbolsOfPaths(batch)) {
        const list = byPath.get(row.path) ?? [];
        list.push(row);
        byPath.set(row.path, list);
      }
      for (const filePath of batch) {
        const header = estimateTokens(filePath) + 2;
        if (used + header > budget) {
          truncated = true;
          break outer;
        }
        const live = await check.current(filePath);
        if (!live) continue;
        const rows = withDepth(byPath.get(filePath) ?? []).filter((row) => isFile || row.depth === 0);
        const entry: OutlineFile = {
          path: filePath,
          language: context.store.catalog.file(filePath)?.language ?? 'text',
          sha256: live.sha256,
          lines: live.lines.length,
          declarations: [],
        };
        used += header;
        for (const row of rows) {
          const cost = estimateTokens(outlineLine(row)) + 1;
          if (used + cost > budget) {
            truncated = true;
            files.push(entry);
            break outer;
          }
          used += cost;
          const range = {
            path: filePath,
            startLine: row.startLine,
            endLine: Math.min(row.endLine, live.lines.length),
            sha256: live.sha256,
          };
          entry.declarations.push({
            name: row.name,
            qualifiedName: row.qualifiedName,
            kind: row.kind,
            signature: row.signature,
            startLine: row.startLine,
            endLine: range.endLine,
            depth: row.depth,
            citation: citationOf(range),
          });
        }
        files.push(entry);
      }
    }
    return { files, truncated, used, totalFiles: paths.length };
  });
  return {
    path: scope === '' ? '.' : scope,
    kind: isFile ? 'file' : 'directory',
    files: value.files,
    totalFiles: value.totalFiles,
    truncated: value.truncated,
    budgetTokens: budget,
    usedTokens: value.used,
    unsettled,
  };
}
