import { bm25 } from '../tables/bm25';
import type { HistoryTable } from './historyTable';
import { requestTerms } from './messageText';

/** An earlier commit named as evidence for a file: its short id and subject. */
export interface HistoryEvidence {
  commit: string;
  subject: string;
}

/** A file's history score and the earlier commits that gave it, best first. */
export interface FileHistory {
  score: number;
  commits: HistoryEvidence[];
}

/** The similar commits a request found (for the manifest), and each present file's score. */
export interface HistoryMatch {
  files: Map<string, FileHistory>;
  similar: Array<HistoryEvidence & { similarity: number; files: number }>;
}

/** Characters of a commit id shown: enough to be unique in any project's history. */
export const shortIdLength = 10;

/** Commits named per file in its evidence. */
const evidencePerFile = 3;

/**
 * BugLocator's "similar bug reports" score (Zhou, Zhang and Lo, ICSE 2012) over commit messages:
 * the request is matched with bm25 against every stored message, the `topCommits` most similar
 * commits are kept, and each gives every file it changed its similarity divided by the number of
 * files it changed, so a focused fix says more than a sweeping one. Only files `present` accepts
 * (indexed now) get a score. Undefined when the part is empty or nothing matches.
 */
export function similarCommitFiles(
  history: HistoryTable,
  request: string,
  present: (path: string) => boolean,
  topCommits: number,
): HistoryMatch | undefined {
  const terms = requestTerms(request);
  if (terms.length === 0) return undefined;
  const scored = history
    .matching(terms)
    .map((row) => ({ id: row.id, similarity: bm25(row.info, [1]) }))
    .filter((row) => row.similarity > 0)
    .sort((a, b) => b.similarity - a.similarity || b.id - a.id)
    .slice(0, topCommits);
  if (scored.length === 0) return undefined;
  const stored = new Map(history.commits(scored.map((row) => row.id)).map((commit) => [commit.id, commit]));
  const files = new Map<string, FileHistory>();
  const similar: HistoryMatch['similar'] = [];
  for (const { id, similarity } of scored) {
    const commit = stored.get(id);
    if (!commit) continue;
    const evidence = { commit: commit.hash.slice(0, shortIdLength), subject: commit.subject };
    similar.push({ ...evidence, similarity: Math.round(similarity * 1000) / 1000, files: commit.fileCount });
    const share = similarity / Math.max(1, commit.fileCount);
    for (const path of history.pathsOf(id)) {
      if (!present(path)) continue;
      let file = files.get(path);
      if (!file) files.set(path, (file = { score: 0, commits: [] }));
      file.score += share;
      if (file.commits.length < evidencePerFile) file.commits.push(evidence);
    }
  }
  return { files, similar };
}
