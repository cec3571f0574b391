import { sha256Hex } from '../hashing';
import { readIndexable, resyncOne, type SyncContext } from '../sync';
import { estimateTokens, splitLines } from '../tokens';
import type { PinRecord } from './state';

/**
 * A pin as it stands against the live files now. `current` and `moved` pins are served (their
 * lines read from the live file, whose SHA-256 equals the indexed one); a `stale` pin is shown
 * with its reason and never served: what it pointed at is gone or could not be found again.
 */
export interface ResolvedPin {
  id: string;
  target: PinRecord['target'];
  /** What was pinned: the path, plus the declaration or the pinned lines. */
  label: string;
  status: 'current' | 'moved' | 'stale';
  reason?: string;
  path: string;
  startLine: number;
  endLine: number;
  sha256?: string;
  text?: string;
  tokens: number;
  symbol: string | null;
  modified: boolean;
  gitHead: string | null;
}

export function pinLabel(pin: PinRecord): string {
  switch (pin.target) {
    case 'file':
      return pin.path;
    case 'range':
      return `${pin.path}#L${pin.startLine}-L${pin.endLine}`;
    case 'declaration':
      return `${pin.path} ${pin.qualifiedName}`;
  }
}

/** SHA-256 of a range's lines, so a range pin can be found again after lines above it moved. */
export function linesHash(lines: readonly string[]): string {
  return sha256Hex(lines.join('\n'));
}

type LiveRead = { ok: true; sha256: string; lines: string[] } | { ok: false; reason: string };

/** The live reads of one request's pins: each pinned file read and verified once. */
export type PinReads = Map<string, LiveRead>;

/**
 * Reads a pinned file live and brings its index rows up to date: a file whose live hash differs
 * from the indexed one is re-indexed first, so a declaration is re-resolved on the file as it is.
 */
async function verifiedRead(context: SyncContext, path: string, reads: Map<string, LiveRead>): Promise<LiveRead> {
  const cached = reads.get(path);
  if (cached) return cached;
  let result: LiveRead;
  for (let attempt = 0; ; attempt++) {
    const read = readIndexable(context, path);
    const indexed = context.store.catalog.file(path);
    if (read.kind === 'vanished') result = { ok: false, reason: 'deleted' };
    else if (read.kind === 'excluded') result = { ok: false, reason: read.reason };
    else if (!indexed) result = { ok: false, reason: 'not-indexed' };
    else if (indexed.sha256 !== read.sha256 && attempt < 2) {
      await resyncOne(context, path);
      continue;
    } else if (indexed.sha256 !== read.sha256) result = { ok: false, reason: 'changing' };
    else result = { ok: true, sha256: read.sha256, lines: splitLines(read.text.replace(/^\uFEFF/, '')) };
    if (!result.ok && indexed && (read.kind === 'vanished' || read.kind === 'excluded')) context.store.removeFile(path);
    break;
  }
  reads.set(path, result);
  return result;
}

export async function resolvePin(context: SyncContext, pin: PinRecord, reads = new Map<string, LiveRead>()): Promise<ResolvedPin> {
  const base = {
    id: pin.id,
    target: pin.target,
    label: pinLabel(pin),
    path: pin.path,
    startLine: pin.target === 'range' ? pin.startLine : 1,
    endLine: pin.target === 'range' ? pin.endLine : 1,
    tokens: 0,
    symbol: pin.target === 'declaration' ? pin.qualifiedName : null,
    modified: false,
    gitHead: null,
  };
  const stale = (reason: string): ResolvedPin => ({ ...base, status: 'stale', reason });
  const served = (path: string, lines: string[], sha256: string, startLine: number, endLine: number, moved: boolean): ResolvedPin => {
    const text = lines.slice(startLine - 1, endLine).join('\n');
    const file = context.store.catalog.file(path);
    return {
      ...base,
      path,
      startLine,
      endLine,
      sha256,
      text,
      tokens: estimateTokens(text),
      status: moved ? 'moved' : 'current',
      modified: file?.modified ?? false,
      gitHead: file?.gitHead ?? null,
    };
  };
  if (pin.target === 'declaration') return resolveDeclaration(context, pin, reads, stale, served);
  const live = await verifiedRead(context, pin.path, reads);
  if (!live.ok) return stale(live.reason);
  if (pin.target === 'file') return served(pin.path, live.lines, live.sha256, 1, Math.max(1, live.lines.length), false);
  const length = pin.endLine - pin.startLine + 1;
  const at = (start: number) =>
    start >= 1 && start + length - 1 <= live.lines.length && linesHash(live.lines.slice(start - 1, start - 1 + length)) === pin.textHash;
  if (!pin.textHash || at(pin.startLine)) {
    if (pin.endLine > live.lines.length) return stale('range-gone');
    return served(pin.path, live.lines, live.sha256, pin.startLine, pin.endLine, false);
  }
  // The pinned lines moved (lines added or removed above them): the nearest window with the same text.
  for (let distance = 1; distance <= live.lines.length; distance++) {
    for (const start of [pin.startLine - distance, pin.startLine + distance]) {
      if (at(start)) return served(pin.path, live.lines, live.sha256, start, start + length - 1, true);
    }
  }
  return stale('range-changed');
}

async function resolveDeclaration(
  context: SyncContext,
  pin: Extract<PinRecord, { target: 'declaration' }>,
  reads: Map<string, LiveRead>,
  stale: (reason: string) => ResolvedPin,
  served: (path: string, lines: string[], sha256: string, startLine: number, endLine: number, moved: boolean) => ResolvedPin,
): Promise<ResolvedPin> {
  const live = await verifiedRead(context, pin.path, reads);
  // Re-resolved by qualified name on the re-indexed file; when it left the file, a single declaration of that name elsewhere.
  const named = context.store.chunks.symbolsNamed(pin.qualifiedName, 'qualified');
  const inFile = named.filter((symbol) => symbol.path === pin.path);
  const candidates = live.ok && inFile.length > 0 ? inFile : named.filter((symbol) => symbol.path !== pin.path);
  if (candidates.length !== 1 && !(live.ok && inFile.length > 0))
    return stale(named.length > 1 ? 'declaration-ambiguous' : 'declaration-not-found');
  const symbol = candidates[0];
  const target = symbol.path === pin.path ? live : await verifiedRead(context, symbol.path, reads);
  if (!target.ok) return stale(target.reason);
  // The read may have re-indexed the other file: resolve there once more.
  const current = context.store.chunks.symbolsNamed(pin.qualifiedName, 'qualified').find((entry) => entry.path === symbol.path);
  if (!current || current.fileHash !== target.sha256) return stale('declaration-not-found');
  return served(current.path, target.lines, target.sha256, current.startLine, current.endLine, current.path !== pin.path);
}
