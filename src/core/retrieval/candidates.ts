import type { IndexStore, SnippetRow } from '../store';
import { searchWords, type TaskDescriptor } from './descriptor';

/** Why a candidate was proposed; the manifest shows these codes. */
export type CandidateReason =
  | 'exact-qualified-symbol'
  | 'exact-path'
  | 'exact-symbol'
  | 'exact-basename'
  | 'declared-fallback'
  | 'exact-phrase'
  | 'symbol-text'
  | 'full-text';

/** Score tiers of SPEC §8. */
export const tierScores: Record<CandidateReason, number> = {
  'exact-qualified-symbol': 190,
  'exact-path': 180,
  'exact-symbol': 170,
  'exact-basename': 150,
  'declared-fallback': 115,
  'exact-phrase': 90,
  'symbol-text': 65,
  'full-text': 60,
};

export interface Candidate {
  snippet: SnippetRow;
  reason: CandidateReason;
  /** Tier score before bonuses. */
  base: number;
  /** What matched, for the prompt's "Relevance" line (a symbol, path or phrase). */
  matched: string;
  /** For phrase candidates: the literal the live text must contain to keep the tier. */
  literal?: string;
}

function ftsQuote(word: string): string {
  return `"${word.replace(/"/g, '""')}"`;
}

/** First part of each declaration: the piece with its signature. */
function firstPartPerSymbol(rows: SnippetRow[]): SnippetRow[] {
  const seen = new Set<string>();
  return rows.filter((row) => {
    const key = row.symbolId ?? row.id;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * Collects candidates from exact lookups first, then phrases, symbol text and full text. Each
 * snippet keeps only its strongest reason.
 */
export function collectCandidates(store: IndexStore, descriptor: TaskDescriptor, poolSize: number): Candidate[] {
  const byId = new Map<string, Candidate>();
  const add = (snippet: SnippetRow, reason: CandidateReason, matched: string, base = tierScores[reason], literal?: string) => {
    const existing = byId.get(snippet.id);
    if (!existing || existing.base < base) byId.set(snippet.id, { snippet, reason, base, matched, literal });
  };

  for (const name of descriptor.qualifiedSymbols) {
    for (const row of firstPartPerSymbol(store.declarationSnippets(name, 'qualified'))) add(row, 'exact-qualified-symbol', name);
  }
  for (const requested of descriptor.paths) {
    const matches = store.pathsMatching(requested);
    for (const path of matches.exact) for (const row of store.currentSnippets(path).slice(0, 2)) add(row, 'exact-path', path);
    for (const path of [...matches.basename, ...matches.suffix]) for (const row of store.currentSnippets(path).slice(0, 1)) add(row, 'exact-basename', path);
  }
  for (const name of descriptor.symbols) {
    const exact = firstPartPerSymbol(store.declarationSnippets(name, 'simple'));
    for (const row of exact) add(row, 'exact-symbol', name);
    if (exact.length === 0 && name.length >= 3) {
      for (const row of firstPartPerSymbol(store.declarationSnippetsIgnoringCase(name))) add(row, 'declared-fallback', name);
    }
  }
  for (const phrase of [...descriptor.phrases, ...descriptor.errorMessages]) {
    const words = phrase.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [];
    if (words.length === 0) continue;
    const expression = words.length === 1 ? ftsQuote(words[0]) : `"${words.join(' ')}"`;
    for (const hit of safeFullText(store, expression, poolSize)) {
      for (const row of store.snippetsByRowid([hit.rowid])) add(row, 'exact-phrase', phrase, tierScores['exact-phrase'], phrase);
    }
  }
  const words = searchWords(descriptor);
  if (words.length > 0) {
    const hits = safeFullText(store, words.map(ftsQuote).join(' OR '), poolSize);
    const best = hits[0]?.bm25 ?? 0;
    const rows = store.snippetsByRowid(hits.map((hit) => hit.rowid));
    const rowById = new Map(rows.map((row) => [row.rowid, row]));
    for (const hit of hits) {
      const row = rowById.get(hit.rowid);
      if (!row) continue;
      const nameWords = row.name ? new Set(row.name.toLowerCase().split(/[^a-z0-9]+/)) : undefined;
      const symbolText = row.name !== null && words.some((word) => row.name!.toLowerCase().includes(word) || nameWords?.has(word));
      // Full-text scores spread over 20..60 by bm25 relative to the best hit of this query.
      const relative = best > 0 ? hit.bm25 / best : 0;
      if (symbolText) add(row, 'symbol-text', row.name as string, tierScores['symbol-text'] - 5 + 5 * relative);
      else add(row, 'full-text', words.join(' '), 20 + 40 * relative);
    }
  }
  return [...byId.values()];
}

function safeFullText(store: IndexStore, expression: string, limit: number): Array<{ rowid: number; bm25: number }> {
  try {
    return store.fullText(expression, limit);
  } catch {
    // A query the FTS parser rejects contributes nothing rather than failing the search.
    return [];
  }
}
