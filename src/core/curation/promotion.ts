import { exactFeature, staticFeature } from './features';
import { modelScore, seal, type PromotionReport, type RankerModel } from './ranker';

export type { PromotionReport } from './ranker';
import type { LabelRecord } from './state';

export interface GateOptions {
  maxLatencyMs: number;
  minimumHeldOutQueries: number;
  /** A monotonic clock in milliseconds, for the latency figure. */
  now: () => number;
}

export const cutoff = 5;

interface Scored {
  label: LabelRecord;
  score: number;
}

/** Static order: the static feature, then the candidate hash; model order: the model score, then the same. */
function order(labels: readonly LabelRecord[], score: (label: LabelRecord) => number): LabelRecord[] {
  return labels
    .map((label): Scored => ({ label, score: score(label) }))
    .sort(
      (a, b) =>
        b.score - a.score ||
        b.label.features[staticFeature] - a.label.features[staticFeature] ||
        (a.label.candidate < b.label.candidate ? -1 : a.label.candidate > b.label.candidate ? 1 : 0),
    )
    .map((scored) => scored.label);
}

function ndcg(ranked: readonly LabelRecord[]): number | undefined {
  const gains = ranked.map((label) => (label.label === 'useful' ? 1 : 0));
  const ideal = [...gains].sort((a, b) => b - a);
  const dcg = (list: number[]) => list.slice(0, cutoff).reduce((sum, gain, index) => sum + gain / Math.log2(index + 2), 0);
  const best = dcg(ideal);
  return best === 0 ? undefined : dcg(gains) / best;
}

function groups(labels: readonly LabelRecord[]): LabelRecord[][] {
  const byQuery = new Map<string, LabelRecord[]>();
  for (const label of labels) byQuery.set(label.query, [...(byQuery.get(label.query) ?? []), label]);
  return [...byQuery.keys()].sort().map((query) => byQuery.get(query) ?? []);
}

function mean(values: number[]): number {
  return values.length === 0 ? 0 : Math.round((values.reduce((sum, value) => sum + value, 0) / values.length) * 1e6) / 1e6;
}

export function evaluatePromotion(model: RankerModel, heldOut: readonly LabelRecord[], options: GateOptions): PromotionReport {
  const requests = groups(heldOut);
  const staticQuality: number[] = [];
  const modelQuality: number[] = [];
  let exactUseful = 0;
  let staticExact = 0;
  let modelExact = 0;
  const durations: number[] = [];
  let repeatable = true;
  for (const request of requests) {
    const staticOrder = order(request, (label) => label.features[staticFeature]);
    const started = options.now();
    const modelOrder = order(request, (label) => modelScore(model, label.features));
    durations.push(options.now() - started);
    for (let run = 0; run < 2 && repeatable; run++) {
      const again = order(request, (label) => modelScore(model, label.features));
      repeatable = again.every((label, index) => label.id === modelOrder[index].id);
    }
    const quality = [ndcg(staticOrder), ndcg(modelOrder)];
    if (quality[0] !== undefined && quality[1] !== undefined) {
      staticQuality.push(quality[0]);
      modelQuality.push(quality[1]);
    }
    const isExactUseful = (label: LabelRecord) => label.label === 'useful' && label.features[exactFeature] === 1;
    exactUseful += request.filter(isExactUseful).length;
    staticExact += staticOrder.slice(0, cutoff).filter(isExactUseful).length;
    modelExact += modelOrder.slice(0, cutoff).filter(isExactUseful).length;
  }
  durations.sort((a, b) => a - b);
  const p95Ms =
    durations.length === 0
      ? 0
      : Math.round(durations[Math.min(durations.length - 1, Math.ceil(durations.length * 0.95) - 1)] * 1000) / 1000;
  const report: PromotionReport = {
    passed: false,
    reasons: [],
    heldOutQueries: requests.length,
    heldOutLabels: heldOut.length,
    staticQuality: mean(staticQuality),
    modelQuality: mean(modelQuality),
    staticExactRecall: exactUseful === 0 ? 1 : Math.round((staticExact / exactUseful) * 1e6) / 1e6,
    modelExactRecall: exactUseful === 0 ? 1 : Math.round((modelExact / exactUseful) * 1e6) / 1e6,
    p95Ms,
    repeatable,
  };
  if (requests.length < options.minimumHeldOutQueries)
    report.reasons.push(`only ${requests.length} held-out requests (at least ${options.minimumHeldOutQueries} needed)`);
  if (!(report.modelQuality > report.staticQuality))
    report.reasons.push(`quality does not improve (${report.modelQuality} vs static ${report.staticQuality})`);
  if (report.modelExactRecall < report.staticExactRecall)
    report.reasons.push(`exact-match recall drops (${report.modelExactRecall} vs static ${report.staticExactRecall})`);
  if (p95Ms > options.maxLatencyMs) report.reasons.push(`p95 latency ${p95Ms} ms exceeds ${options.maxLatencyMs} ms`);
  if (!repeatable) report.reasons.push('repeated runs gave different orders');
  report.passed = report.reasons.length === 0;
  return report;
}

/** The model with its promotion report sealed in (a new checksum: the report cannot be edited apart from the weights). */
export function withPromotion(model: RankerModel, report: PromotionReport): RankerModel {
  const { weights, bias, training, trainedThrough } = model;
  return seal({ weights, bias, training, trainedThrough, promotion: report });
}
