import { exactTierFloor, tierScores, type Candidate } from '../retrieval/candidates';
import { modelScore, type LoadedModel } from './ranker';

/**
 * How the learned model takes part in one retrieval. `off` never evaluates it; `shadow` computes
 * its order and keeps only aggregate disagreement with the static order; `active` reorders the
 * non-exact candidates, and only with a model whose sealed promotion report passed. Exact matches
 * (exact tiers and literal phrases) keep their places in every mode.
 */
export type Ranked = Candidate & { score: number; modified: boolean };

export interface ShadowTotals {
  requests: number;
  /** Requests whose first non-exact candidate differs between the two orders. */
  topDisagreements: number;
  /** Pairs of candidates the two orders rank the other way round, over all requests. */
  pairwiseDisagreements: number;
  pairs: number;
  /** Mean absolute move of a candidate between the two orders. */
  meanRankShift: number;
}

export function emptyShadowTotals(): ShadowTotals {
  return { requests: 0, topDisagreements: 0, pairwiseDisagreements: 0, pairs: 0, meanRankShift: 0 };
}

/** Exact tiers, declared fallbacks and literal phrases: the candidates no learned model may move. */
function isProtected(candidate: Candidate): boolean {
  return candidate.base >= Math.min(exactTierFloor, tierScores['exact-phrase']) || candidate.reason === 'exact-phrase';
}

/** At most this many candidates are scored by the model per request: the rest are cut anyway. */
export const maxLearnedCandidates = 64;

/**
 * The candidates in the model's order: the non-exact ones within the first `maxLearnedCandidates`
 * take the same slots, re-sorted by model score (then static score, then snippet id). Their scores
 * are redistributed in the new order, so the multiset of scores (and every later cut by score) is
 * the static one and later sorts keep the model's order.
 */
export function learnedOrder<T extends Ranked>(
  candidates: readonly T[],
  features: ReadonlyMap<string, number[]>,
  model: Parameters<typeof modelScore>[0],
): T[] {
  const head = candidates.slice(0, maxLearnedCandidates);
  const slots = head.map((candidate, index) => ({ candidate, index })).filter((entry) => !isProtected(entry.candidate));
  const scored = slots.map((slot) => ({ ...slot, learned: modelScore(model, features.get(slot.candidate.snippet.id) ?? []) }));
  const reordered = [...scored].sort(
    (a, b) =>
      b.learned - a.learned ||
      b.candidate.score - a.candidate.score ||
      (a.candidate.snippet.id < b.candidate.snippet.id ? -1 : a.candidate.snippet.id > b.candidate.snippet.id ? 1 : 0),
  );
  const result = [...candidates];
  reordered.forEach((entry, position) => {
    const slot = slots[position];
    result[slot.index] = { ...entry.candidate, score: slot.candidate.score };
  });
  return result;
}

/** Aggregate disagreement between two orders of the same candidates; no id or feature is kept. */
export function addDisagreement<T extends Ranked>(totals: ShadowTotals, staticOrder: readonly T[], modelOrder: readonly T[]): ShadowTotals {
  const position = new Map(modelOrder.map((candidate, index) => [candidate.snippet.id, index]));
  const ids = staticOrder.slice(0, maxLearnedCandidates).map((candidate) => candidate.snippet.id);
  let discordant = 0;
  let pairs = 0;
  let shift = 0;
  for (let i = 0; i < ids.length; i++) {
    shift += Math.abs((position.get(ids[i]) ?? i) - i);
    for (let j = i + 1; j < ids.length; j++) {
      pairs++;
      if ((position.get(ids[i]) ?? i) > (position.get(ids[j]) ?? j)) discordant++;
    }
  }
  const firstFree = (list: readonly T[]) => list.find((candidate) => !isProtected(candidate))?.snippet.id;
  const requests = totals.requests + 1;
  return {
    requests,
    topDisagreements: totals.topDisagreements + (firstFree(staticOrder) !== firstFree(modelOrder) ? 1 : 0),
    pairwiseDisagreements: totals.pairwiseDisagreements + discordant,
    pairs: totals.pairs + pairs,
    meanRankShift: Math.round(((totals.meanRankShift * totals.requests + (ids.length ? shift / ids.length : 0)) / requests) * 1000) / 1000,
  };
}

/** Whether `active` mode may use the loaded model, or why not. */
export function activeRefusal(loaded: LoadedModel): string | undefined {
  if (!loaded.ok) return `model ${loaded.reason}: ${loaded.detail}`;
  if (!loaded.model.promotion) return 'model not promoted (no promotion report)';
  if (!loaded.model.promotion.passed) return `model not promoted: ${loaded.model.promotion.reasons.join('; ')}`;
  return undefined;
}
