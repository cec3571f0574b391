/**
 * A question's first snippet from the file ranking: when one file clearly leads the ranking of the
 * question's files (its snippets' evidence, its whole-file score and the files earlier commits with
 * messages like the question changed), the best declaration of that file answers first. The
 * snippet order alone knows only how many of the question's words a chunk holds; a question names
 * a topic, and the file that holds the topic and that similar commits changed is more often
 * where the answer is than the one chunk that shares the most words.
 */

/** What a question lead reads of a ranked file. */
export interface LeadFile {
  path: string;
  score: number;
}

/** What a question lead reads of a snippet candidate. */
export interface LeadCandidate {
  snippet: { path: string; qualifiedName: string | null };
  score: number;
}

/**
 * The points (of the file ranking's 0..100) the top file leads the next by before its best
 * declaration goes first. Tune questions and the just check set, lead margins 8, 12, 16, 24: see
 * docs/measurements.md ("Question lead from the top file").
 */
export const questionLeadMargin = 16;

/** What the lead's score is lifted above the former first's. */
const leadStep = 0.01;

/**
 * `answer` (in score order) with the best declaration (the first candidate holding a declared
 * name) of `ranking`'s top file moved to the front, when that file leads the next by at least
 * `margin`; otherwise `answer` unchanged. The moved candidate's score is lifted just above the
 * former first's, so the answer stays in score order through verification; the rest keeps its
 * order and scores.
 */
export function leadFromTopFile<T extends LeadCandidate>(answer: T[], ranking: readonly LeadFile[], margin = questionLeadMargin): T[] {
  const [top, next] = ranking;
  if (top === undefined || top.score - (next?.score ?? 0) < margin) return answer;
  const index = answer.findIndex((candidate) => candidate.snippet.path === top.path && candidate.snippet.qualifiedName !== null);
  if (index <= 0) return answer;
  const lead = { ...answer[index], score: Math.round((answer[0].score + leadStep) * 100) / 100 };
  return [lead, ...answer.slice(0, index), ...answer.slice(index + 1)];
}
