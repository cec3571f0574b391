import type { SnippetRow } from '../store';
import { tierScores, type Candidate } from './candidates';
import type { TaskDescriptor } from './descriptor';

/**
 * Candidates at or above this base carry literal evidence (exact qualified symbol, path, symbol,
 * basename, declared fallback, exact phrase): vectors never move them. Only the weaker tiers
 * (symbol text, full text) are fused with the cosine pool. This is stricter than "exact tiers
 * (≥ 150) are never displaced", which it implies.
 */
export const fusionCeiling = tierScores['exact-phrase'];

/** Reciprocal-rank fusion constant (the usual 60). */
export const rrfK = 60;

/**
 * Weight of the vector ranks against the lexical ranks (1). A 256-dimension hashed bag of words
 * is a coarse signal: on the quality set (`npm run quality`) its cosine pool alone puts the answer
 * to a natural question in its top 8 about 40% of the time, where bm25 with name coverage does
 * about 90%. So vectors break ties and fill the tail rather than lead (natural recall@8 there:
 * 0.89 at weights 0.1 and 0.2, 0.78 at 0.3, 0.61 at 1).
 */
export const vectorWeight = 0.2;

/** The text whose vector is compared with the chunks': the request's literal and content words. */
export function vectorQueryText(descriptor: TaskDescriptor): string {
  return [...descriptor.phrases, ...descriptor.errorFragments, ...descriptor.identifiers, ...descriptor.symbols, ...descriptor.keywords]
    .join(' ')
    .trim();
}

export interface FusionInput<T extends Candidate> {
  /** Lexical candidates in final lexical order. */
  lexical: T[];
  /** The cosine pool, best first. */
  pool: Array<{ rowid: number; cosine: number }>;
  /** Rows of pool entries (any order); entries without a current row are ignored. */
  poolRows: SnippetRow[];
  /** Builds a candidate for a chunk only the vectors proposed. */
  fromVector(snippet: SnippetRow, cosine: number): T;
}

/**
 * Reciprocal-rank fusion of the weaker lexical tiers with the cosine pool. Protected candidates
 * keep their place and their scores; the fused rest get new bases in 20..60 that follow the
 * fused order, so they stay below every protected candidate. Deterministic: ties fall back to
 * lexical order, then cosine order, then rowid.
 */
export function fuseRankings<T extends Candidate>(input: FusionInput<T>): { protectedCandidates: T[]; fused: T[] } {
  const protectedCandidates = input.lexical.filter((candidate) => candidate.base >= fusionCeiling);
  const protectedRowids = new Set(protectedCandidates.map((candidate) => candidate.snippet.rowid));
  const weaker = input.lexical.filter((candidate) => candidate.base < fusionCeiling);
  const rows = new Map(input.poolRows.map((row) => [row.rowid, row]));

  interface Entry {
    candidate: T;
    lexicalRank?: number;
    vectorRank?: number;
    fused: number;
  }
  const entries = new Map<number, Entry>();
  weaker.forEach((candidate, index) => {
    entries.set(candidate.snippet.rowid, { candidate, lexicalRank: index + 1, fused: 1 / (rrfK + index + 1) });
  });
  input.pool.forEach((hit, index) => {
    if (protectedRowids.has(hit.rowid)) return;
    const existing = entries.get(hit.rowid);
    if (existing) {
      existing.vectorRank = index + 1;
      existing.fused += vectorWeight / (rrfK + index + 1);
      return;
    }
    const row = rows.get(hit.rowid);
    if (!row) return;
    entries.set(hit.rowid, {
      candidate: input.fromVector(row, hit.cosine),
      vectorRank: index + 1,
      fused: vectorWeight / (rrfK + index + 1),
    });
  });
  const ordered = [...entries.values()].sort(
    (a, b) =>
      b.fused - a.fused ||
      (a.lexicalRank ?? Infinity) - (b.lexicalRank ?? Infinity) ||
      (a.vectorRank ?? Infinity) - (b.vectorRank ?? Infinity) ||
      a.candidate.snippet.rowid - b.candidate.snippet.rowid,
  );
  const best = ordered[0]?.fused ?? 1;
  const fused = ordered.map((entry) => {
    const base = Math.round((20 + 40 * (entry.fused / best)) * 1000) / 1000;
    return { ...entry.candidate, base };
  });
  return { protectedCandidates, fused };
}
