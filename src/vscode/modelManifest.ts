import type { Manifest } from '../core/retrieval/manifest';

/** The reason a manifest gives for a block the worker quoted that did not fit the model's input limit. */
export const modelInputLimitReason = 'model-input-limit';

/**
 * The manifest as the record of what the model received: every block dropped because the model's
 * own tokenizer found no room for it becomes an excluded entry (`model-input-limit`, what matched
 * it kept as `matchedBy`), and the used tokens count only what was sent.
 */
export function manifestAsSent(manifest: Manifest, dropped: ReadonlySet<string>): Manifest {
  if (dropped.size === 0) return manifest;
  const entries = manifest.entries.map((entry) =>
    entry.included && dropped.has(entry.snippetId)
      ? { ...entry, included: false, reason: modelInputLimitReason, matchedBy: entry.reason }
      : entry,
  );
  const usedTokens = entries.filter((entry) => entry.included).reduce((sum, entry) => sum + entry.tokens, 0);
  return { ...manifest, entries, usedTokens };
}
