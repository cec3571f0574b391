import type { CurationHealth } from './curation';

/**
 * The health lines of pins, memory and the learned ranker. Types only are imported: the extension
 * bundles this with `formatHealth`, and must not pull in the engine (test/core/bundle.test.ts).
 */
export function curationHealthLines(health: CurationHealth): string[] {
  const { memory, labels, model, shadow } = health;
  const retired = `${memory.superseded} superseded, ${memory.invalid} invalid, ${memory.expired} expired`;
  const malformed = labels.malformed ? `, ${labels.malformed} malformed log lines` : '';
  const modelId = model.modelId ? ` ${model.modelId}` : '';
  const lines = [
    `Pins: ${health.pins}  Memory: ${memory.active} active, ${retired}`,
    `Feedback labels: ${labels.useful} useful, ${labels.notUseful} not useful${malformed}`,
    `Ranking: ${health.mode}; model ${model.state}${modelId}${model.detail ? ` (${model.detail})` : ''}`,
  ];
  if (health.fallback) lines.push(`Ranking fallback: static order (${health.fallback})`);
  if (shadow.requests > 0) {
    const pairwise = shadow.pairs === 0 ? 0 : Math.round((shadow.pairwiseDisagreements / shadow.pairs) * 1000) / 10;
    const top = `top differs in ${shadow.topDisagreements}`;
    lines.push(`Shadow: ${shadow.requests} requests, ${top}, ${pairwise}% of pairs reordered, mean rank shift ${shadow.meanRankShift}`);
  }
  return lines;
}
