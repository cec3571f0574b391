/**
 * The plain baseline of the localization set: Okapi BM25 (k1 = 1.2, b = 0.75) over whole files.
 * Tokens are words of letters, digits and `_`, lower-cased; an identifier made of several parts
 * (`parseHttpHeader`, `parse_http_header`) also yields each part, so the query word "header"
 * meets the identifier. Each distinct query term counts once. The IDF is the non-negative
 * `ln(1 + (N - df + 0.5) / (df + 0.5))`. It deliberately shares no code with pk's own
 * tokenizer, so a change to pk's ranking cannot move the baseline.
 */

export interface Bm25Document {
  terms: Map<string, number>;
  length: number;
}

const k1 = 1.2;
const b = 0.75;

function identifierParts(word: string): string[] {
  return word
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter((part) => part.length > 0)
    .map((part) => part.toLowerCase());
}

export function bm25Tokens(text: string): string[] {
  const tokens: string[] = [];
  for (const match of text.matchAll(/[\p{L}\p{N}_]+/gu)) {
    const word = match[0];
    tokens.push(word.toLowerCase());
    const parts = identifierParts(word);
    if (parts.length > 1) tokens.push(...parts);
  }
  return tokens;
}

export function bm25Document(text: string): Bm25Document {
  const terms = new Map<string, number>();
  const tokens = bm25Tokens(text);
  for (const token of tokens) terms.set(token, (terms.get(token) ?? 0) + 1);
  return { terms, length: tokens.length };
}

/** Paths ranked by BM25 score for the query, best first; documents matching no query term are left out. */
export function bm25Rank(query: string, documents: ReadonlyMap<string, Bm25Document>): string[] {
  return bm25Scores(query, documents).map((entry) => entry.path);
}

/** The scores behind `bm25Rank`, best first. */
export function bm25Scores(query: string, documents: ReadonlyMap<string, Bm25Document>): Array<{ path: string; score: number }> {
  const queryTerms = [...new Set(bm25Tokens(query))];
  const count = documents.size;
  if (count === 0 || queryTerms.length === 0) return [];
  let totalLength = 0;
  for (const document of documents.values()) totalLength += document.length;
  const averageLength = totalLength / count || 1;
  const idf = new Map<string, number>();
  for (const term of queryTerms) {
    let df = 0;
    for (const document of documents.values()) if (document.terms.has(term)) df++;
    if (df > 0) idf.set(term, Math.log(1 + (count - df + 0.5) / (df + 0.5)));
  }
  const scored: Array<{ path: string; score: number }> = [];
  for (const [path, document] of documents) {
    let score = 0;
    for (const [term, weight] of idf) {
      const frequency = document.terms.get(term);
      if (!frequency) continue;
      score += (weight * frequency * (k1 + 1)) / (frequency + k1 * (1 - b + (b * document.length) / averageLength));
    }
    if (score > 0) scored.push({ path, score });
  }
  // Ties break by path so the ranking is deterministic.
  scored.sort((left, right) => right.score - left.score || (left.path < right.path ? -1 : left.path > right.path ? 1 : 0));
  return scored;
}
