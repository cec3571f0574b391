import { idOf } from '../hashing';
import { exactTierFloor, type Candidate } from '../retrieval/candidates';
import { featureCount } from './log';

/**
 * `pk-ranking-features-v1`: what the learned ranker may know about a candidate. Nine numbers in
 * [0, 1] and nothing else: no source text, path, symbol, claim or request goes into a feature,
 * and a candidate is named only by a SHA-256 of its identity.
 */
export const featureVersion = 'pk-ranking-features-v1';

export const featureNames = [
  'static',
  'exact-match',
  'full-text',
  'vector',
  'recency',
  'modified',
  'symbol-relation',
  'token-cost',
  'prior-outcome',
] as const;

/** The static score a candidate reaches at most (an exact qualified symbol, modified, tracked). */
const staticCeiling = 203;
/** Recency halves every 30 days: a file edited today is 1, one untouched for a year about 0. */
const recencyHalfLifeMs = 30 * 24 * 3600 * 1000;
/** A snippet of this many tokens or more costs 1 (the prompt budget is 20,000). */
const tokenCostCeiling = 2_000;

export const exactFeature = featureNames.indexOf('exact-match');
export const staticFeature = featureNames.indexOf('static');

export interface FeatureInput {
  candidate: Candidate & { score: number; modified: boolean };
  mtimeMs: number | undefined;
  now: number;
  /** Useful and not-useful labels this candidate already has. */
  prior: { useful: number; notUseful: number };
}

function bounded(value: number): number {
  if (!Number.isFinite(value)) return 0;
  return Math.round(Math.min(1, Math.max(0, value)) * 1e6) / 1e6;
}

const symbolReasons = new Set(['exact-qualified-symbol', 'exact-symbol', 'declared-fallback', 'symbol-text']);

export function featuresOf(input: FeatureInput): number[] {
  const { candidate, prior } = input;
  const { reason, base, snippet } = candidate;
  const exact = base >= exactTierFloor ? 1 : reason === 'exact-phrase' ? 0.5 : 0;
  const fullText = reason === 'full-text' ? (base - 20) / 40 : reason === 'symbol-text' ? 0.5 : 0;
  const cosine = reason === 'semantic' ? Number(candidate.matched.match(/([01](?:\.\d+)?)$/)?.[1] ?? 0) : 0;
  const age = input.mtimeMs === undefined ? Infinity : Math.max(0, input.now - input.mtimeMs);
  const recency = Math.pow(0.5, age / recencyHalfLifeMs);
  const symbol = symbolReasons.has(reason) ? 1 : snippet.symbolId ? 0.5 : 0;
  const outcome = (prior.useful + 1) / (prior.useful + prior.notUseful + 2);
  const features = [
    candidate.score / staticCeiling,
    exact,
    fullText,
    cosine,
    recency,
    candidate.modified ? 1 : 0,
    symbol,
    snippet.tokens / tokenCostCeiling,
    outcome,
  ].map(bounded);
  if (features.length !== featureCount) throw new Error('The feature vector lost its shape.');
  return features;
}

/** A candidate's stable identity, hashed: its path and declaration (or its lines when it has none). */
export function candidateHash(
  projectId: string,
  snippet: { path: string; qualifiedName: string | null; startLine: number; endLine: number },
): string {
  return idOf('candidate', projectId, snippet.path, snippet.qualifiedName ?? `${snippet.startLine}-${snippet.endLine}`);
}

/** A request, hashed for grouping labels (held-out evaluation is per request); the words are not kept. */
export function queryHash(projectId: string, query: string): string {
  return idOf('query', projectId, query.normalize('NFKC').trim().replace(/\s+/g, ' ').toLowerCase());
}
