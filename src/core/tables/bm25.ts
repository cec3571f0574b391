/** bm25 column weights, in `search_index` column order: body, path, idents. */
export const fullTextWeights = [1.0, 2.0, 1.5];

/** Okapi BM25 from FTS4 matchinfo 'pcnalx' (k1 = 1.2, b = 0.75). */
export function bm25(info: Uint32Array, weights: number[]): number {
  const phraseCount = info[0];
  const columnCount = info[1];
  const documentCount = info[2];
  const averageLengthOffset = 3;
  const lengthOffset = averageLengthOffset + columnCount;
  const hitsOffset = lengthOffset + columnCount;
  let score = 0;
  for (let phrase = 0; phrase < phraseCount; phrase++) {
    for (let column = 0; column < columnCount; column++) {
      const base = hitsOffset + 3 * (column + phrase * columnCount);
      const hitsHere = info[base];
      const documentsWithHits = info[base + 2];
      if (hitsHere === 0) continue;
      score +=
        (weights[column] ?? 1) *
        bm25Idf(documentCount, documentsWithHits) *
        bm25Frequency(hitsHere, info[lengthOffset + column], info[averageLengthOffset + column]);
    }
  }
  return score;
}

/**
 * Okapi BM25 (k1 = 1.2, b = 0.75) from FTS4 matchinfo 'pcy' at `info[base]`, known idf per
 * phrase and column, the row's column lengths at `lengths[lengthBase]` and the column averages.
 */
export function bm25WithIdf(
  info: Uint32Array,
  base: number,
  idf: number[],
  weights: number[],
  lengths: ArrayLike<number>,
  lengthBase: number,
  averages: number[],
  lengthNormalization = defaultLengthNormalization,
): number {
  const phraseCount = info[base];
  const columnCount = info[base + 1];
  const hitsOffset = base + 2;
  let score = 0;
  for (let phrase = 0; phrase < phraseCount; phrase++) {
    for (let column = 0; column < columnCount; column++) {
      const hitsHere = info[hitsOffset + phrase * columnCount + column];
      const weight = idf[phrase * columnCount + column] ?? 0;
      if (hitsHere === 0 || weight === 0) continue;
      score +=
        (weights[column] ?? 1) *
        weight *
        bm25Frequency(hitsHere, lengths[lengthBase + column] ?? 0, averages[column] ?? 0, lengthNormalization);
    }
  }
  return score;
}

/**
 * As `bm25WithIdf`, with the phrases in groups that stand for one term (a prose word and its
 * inflections, `match`, `matches`, `matching`): a group's hits in a column are summed and
 * saturated once, under the largest idf its phrases have there, so a chunk that holds three
 * forms of one word is not scored as if it held three words. `groups[phrase]` is the phrase's
 * group (0-based); `scratch` holds two numbers per group and is overwritten.
 */
export function bm25GroupedWithIdf(
  info: Uint32Array,
  base: number,
  idf: number[],
  groups: ArrayLike<number>,
  scratch: Float64Array,
  weights: number[],
  lengths: ArrayLike<number>,
  lengthBase: number,
  averages: number[],
  lengthNormalization = defaultLengthNormalization,
): number {
  const phraseCount = info[base];
  const columnCount = info[base + 1];
  const hitsOffset = base + 2;
  const groupCount = scratch.length >>> 1;
  let score = 0;
  for (let column = 0; column < columnCount; column++) {
    scratch.fill(0);
    for (let phrase = 0; phrase < phraseCount; phrase++) {
      const hitsHere = info[hitsOffset + phrase * columnCount + column];
      const weight = idf[phrase * columnCount + column] ?? 0;
      const group = groups[phrase] ?? -1;
      if (hitsHere === 0 || weight === 0 || group < 0 || group >= groupCount) continue;
      scratch[group * 2] += hitsHere;
      scratch[group * 2 + 1] = Math.max(scratch[group * 2 + 1], weight);
    }
    for (let group = 0; group < groupCount; group++) {
      const hits = scratch[group * 2];
      if (hits === 0) continue;
      score +=
        (weights[column] ?? 1) *
        scratch[group * 2 + 1] *
        bm25Frequency(hits, lengths[lengthBase + column] ?? 0, averages[column] ?? 0, lengthNormalization);
    }
  }
  return score;
}

/** bm25's length normalization `b`: how much a long row's hits are discounted against the average row's. */
export const defaultLengthNormalization = 0.75;

/** bm25's saturated term frequency for a column holding `hits` of the term in `length` tokens (k1 = 1.2, b = 0.75 unless given). */
function bm25Frequency(hits: number, length: number, averageLength: number, b = defaultLengthNormalization): number {
  const k1 = 1.2;
  return (hits * (k1 + 1)) / (hits + k1 * (1 - b + (b * length) / Math.max(1, averageLength)));
}

/** bm25's idf for a column where `withTerm` of `documents` rows hold the term. */
export function bm25Idf(documents: number, withTerm: number): number {
  return Math.log(1 + (documents - withTerm + 0.5) / (withTerm + 0.5));
}
