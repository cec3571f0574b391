/** Id lists for `IN (...)` queries, shared by the parts that look rows up by id. */

export function placeholders(count: number): string {
  return Array.from({ length: count }, () => '?').join(',');
}

/** The sizes an id list is padded to, so a few prepared statements (kept by `Database.all`) serve every list. */
const batchSizes = [8, 64];

/**
 * `ids` in lists of at most 64, each padded with NULLs (which `IN` never matches) to the next of
 * `batchSizes`: a query of any length reuses one of two prepared statements instead of
 * compiling a statement of its own for each length (a pasted text's 256 full-text hits did).
 */
export function paddedBatches(ids: number[]): Array<Array<number | null>> {
  const batches: Array<Array<number | null>> = [];
  const largest = batchSizes[batchSizes.length - 1];
  for (let start = 0; start < ids.length; start += largest) {
    const slice: Array<number | null> = ids.slice(start, start + largest);
    const size = batchSizes.find((candidate) => candidate >= slice.length) ?? largest;
    while (slice.length < size) slice.push(null);
    batches.push(slice);
  }
  return batches;
}
