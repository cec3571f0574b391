import { findSecretlintSecret } from '../exclusion/secretlintLayer';
import { findSecret } from '../exclusion/secrets';
import type { EnginePorts } from '../ports';
import { isAncestor, isShallow, readCommits, type LoggedCommit } from './gitLog';
import type { HistoryCommit, HistoryTable } from './historyTable';
import { cleanMessage, maxMessageChars, subjectOf, textTerms } from './messageText';

/**
 * Commits read from HEAD back: the newest 5,000 (all of the localization set's repositories but
 * a few hundred of fzf's and rich's oldest). Reading them is one `git log` of a few hundred
 * milliseconds and a few megabytes of output; the stored part costs about a kilobyte a commit.
 * Similar earlier commits are mostly recent ones, and an unbounded read of a repository with a
 * hundred thousand commits would cost seconds at every rebuild.
 */
export const maxHistoryCommits = 5_000;

/** The name the secret rules see a message under: no extension, so bare `key=value` pairs count too (the strictest reading). */
const messagePath = 'COMMIT_EDITMSG';

export interface HistorySyncReport {
  /** `unchanged`: the stored head is HEAD; `added`: the new commits since an ancestor; `rebuilt`: read again from HEAD; `empty`: no history. */
  outcome: 'unchanged' | 'added' | 'rebuilt' | 'empty';
  commits: number;
  added: number;
  /** Messages that held a secret: their commits are not stored at all. */
  secretMessages: number;
  ms: number;
  note?: string;
}

export interface HistoryCheckout {
  root: string;
  /** The repository's top level (discovery's `gitRoot`); undefined without git. */
  gitRoot: string | undefined;
  /** HEAD's id, or null (no git, no commit yet). */
  head: string | null;
}

/**
 * Brings the history part to exactly the ancestors of HEAD (the newest `maxCommits`). When the
 * stored head is an ancestor of HEAD only the commits since are read; any other move (a checkout
 * of an older commit, a rebase, another branch) reads the part again, so no commit that is not
 * an ancestor of the checkout (a fix made after it) is ever matched. Without git, without a
 * commit, in a shallow clone or when git fails, the part is emptied and says why in one line.
 */
export async function syncHistory(
  history: HistoryTable,
  checkout: HistoryCheckout,
  ports: EnginePorts,
  maxCommits = maxHistoryCommits,
): Promise<HistorySyncReport> {
  const started = ports.clock.now();
  const done = (report: Omit<HistorySyncReport, 'ms' | 'commits'>): HistorySyncReport => ({
    ...report,
    commits: history.commitCount(),
    ms: ports.clock.now() - started,
  });
  const empty = (note: string): HistorySyncReport => {
    if (history.note() !== note) ports.log.info(`History evidence off: ${note}`);
    history.clear(note);
    return done({ outcome: 'empty', added: 0, secretMessages: 0, note });
  };
  if (!checkout.gitRoot) return empty('the project is not a git repository (or git is unavailable).');
  if (!checkout.head) return empty('the repository has no commit yet.');
  const head = checkout.head;
  const stored = history.head();
  if (stored === head) return done({ outcome: 'unchanged', added: 0, secretMessages: 0, note: history.note() });
  try {
    if (await isShallow(ports.git, checkout.root)) return empty('the repository is a shallow clone, so its earlier commits are missing.');
    const incremental = stored !== undefined && (await isAncestor(ports.git, checkout.root, stored, head));
    if (incremental) {
      const logged = await readCommits(ports.git, checkout.root, [`${stored}..${head}`], maxCommits + 1);
      if (logged.length <= maxCommits) {
        const { commits, secretMessages } = await admit(logged, ports);
        history.append(commits, head, maxCommits);
        return done({ outcome: 'added', added: commits.length, secretMessages });
      }
    }
    const { commits, secretMessages } = await admit(await readCommits(ports.git, checkout.root, [head], maxCommits), ports);
    history.replaceAll(commits, head);
    return done({ outcome: 'rebuilt', added: commits.length, secretMessages });
  } catch (error) {
    const reason = (error instanceof Error ? error.message : String(error)).split('\n')[0];
    return empty(`reading the git history failed (${reason}).`);
  }
}

/**
 * The commits to store, oldest first (root commits left out): each message cleaned (`cleanMessage`) and checked by the
 * same secret layers as a file's content (the project's rules, then secretlint's); a message
 * with a secret, or one secretlint cannot check, leaves its commit out.
 */
async function admit(logged: LoggedCommit[], ports: EnginePorts): Promise<{ commits: HistoryCommit[]; secretMessages: number }> {
  const commits: HistoryCommit[] = [];
  let secretMessages = 0;
  for (const commit of [...logged].reverse()) {
    // A root commit imports the project: it changed every file and says nothing about any one.
    if (commit.root) continue;
    // What is checked is what may be stored: the capped message (cleaning only removes text).
    const message = commit.message.slice(0, maxMessageChars);
    let secret = findSecret(message, messagePath) !== undefined;
    if (!secret) {
      try {
        secret = (await findSecretlintSecret(message, messagePath)) !== undefined;
      } catch (error) {
        ports.log.warn(`secretlint could not check a commit message: ${error instanceof Error ? error.message : String(error)}`);
        secret = true;
      }
    }
    if (secret) {
      secretMessages++;
      continue;
    }
    const cleaned = cleanMessage(message);
    commits.push({
      hash: commit.hash,
      subject: subjectOf(cleaned),
      terms: textTerms(cleaned).join(' '),
      paths: commit.paths,
      fileCount: commit.paths.length,
    });
  }
  return { commits, secretMessages };
}
