/**
 * Builds the file-localization instances from the fix commits of the repositories in
 * `repositories.ts` (run once; the committed `instances.json` is its output):
 *
 *   node out/test/quality/localization/extract.js [--repos DIR] [--per-repo N] [--out FILE]
 *       [--beyond-set | --extra] [--repo OWNER/NAME ...]
 *
 * An instance is a non-merge commit by a person (not a bot) whose message mentions a fix, a bug,
 * an issue or closes/fixes/resolves #N. The query is the commit message (subject and body, less
 * trailers such as Signed-off-by); the answer is the non-test source files the commit modified
 * (files it added cannot be found in the parent checkout). Commits changing no source file or
 * more than five are dropped, and so are commits whose subject is about typos, lint, CI,
 * formatting, docs or dependency bumps, or says nothing beyond "fix" (fewer than three words).
 * The newest N qualifying commits per repository are kept. The split is deterministic: the
 * SHA-256 of `owner/name@commit` taken modulo 3 puts a third in held-out.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { extraRepositories, isSourceFile, localizationRepositories, workTreeName, type LocalizationRepository } from './repositories';

export type Split = 'tune' | 'held-out';

export interface LocalizationInstance {
  repository: string;
  commit: string;
  parent: string;
  /** Committer date of the fix, ISO 8601; the runner processes a repository's instances in this order. */
  date: string;
  query: string;
  answer: string[];
  split: Split;
}

export function splitOf(repository: string, commit: string): Split {
  const digest = createHash('sha256').update(`${repository}@${commit}`).digest();
  return digest.readUInt32BE(0) % 3 === 0 ? 'held-out' : 'tune';
}

const fixPattern = /\b(fix(e[sd]|ing)?|bug(s|fix)?|issues?|regression|crash(es)?|panic(s)?)\b|\b(close[sd]?|resolve[sd]?)\s+#\d+/i;
const noiseWords =
  'typos?|lint(s|ing)?|linter|clippy|rubocop|mypy|ci|workflows?|format(ting)?|prettier|eslint' +
  '|docs?|readme|changelog|bump|deps|dependencies';
const noisePattern = new RegExp(`\\b(${noiseWords})\\b`, 'i');
const trailerPattern = /^(signed-off-by|co-authored-by|reviewed-by|acked-by|tested-by|reported-by|suggested-by|cc):/i;

function git(workTree: string, args: string[]): string {
  return execFileSync('git', args, { cwd: workTree, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
}

/** The commit message as a query: trailers and trailing blank lines removed, nothing else. */
export function queryOf(message: string): string {
  const lines = message
    .replace(/\r\n/g, '\n')
    .split('\n')
    .filter((line) => !trailerPattern.test(line.trim()));
  return lines
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** Words of the subject beyond the fix vocabulary and issue references. */
function informativeWords(subject: string): number {
  return subject
    .replace(/\(#\d+\)|#\d+/g, ' ')
    .replace(/^[a-z]+(\([^)]*\))?!?:/i, ' ')
    .split(/\s+/)
    .filter((word) => word.length > 0 && !/^(fix(e[sd])?|bug|issue|for|the|a|an)$/i.test(word)).length;
}

interface Candidate {
  commit: string;
  parents: string[];
  author: string;
  date: string;
  message: string;
}

function candidates(workTree: string): Candidate[] {
  const separator = '\u001e';
  const output = git(workTree, ['log', '--no-merges', '--date-order', `--format=%H%x1f%P%x1f%an <%ae>%x1f%cI%x1f%B${separator}`, 'HEAD']);
  return output
    .split(separator)
    .map((record) => record.replace(/^\n/, ''))
    .filter((record) => record.includes('\u001f'))
    .map((record) => {
      const [commit, parents, author, date, message] = record.split('\u001f');
      return { commit, parents: parents.split(' ').filter(Boolean), author, date, message };
    });
}

function changedFiles(workTree: string, parent: string, commit: string): Array<{ status: string; path: string }> {
  const output = git(workTree, ['diff-tree', '--no-commit-id', '-r', '--no-renames', '--name-status', '-z', parent, commit]);
  const fields = output.split('\u0000').filter((field) => field.length > 0);
  const files: Array<{ status: string; path: string }> = [];
  for (let index = 0; index + 1 < fields.length; index += 2) files.push({ status: fields[index], path: fields[index + 1] });
  return files;
}

export function extractRepository(workTree: string, repository: LocalizationRepository, perRepository: number): LocalizationInstance[] {
  const kept: LocalizationInstance[] = [];
  for (const candidate of candidates(workTree)) {
    if (kept.length >= perRepository) break;
    if (candidate.parents.length !== 1) continue;
    if (/\[bot\]|dependabot|renovate/i.test(candidate.author)) continue;
    const query = queryOf(candidate.message);
    const subject = query.split('\n')[0];
    if (!fixPattern.test(query) || noisePattern.test(subject) || informativeWords(subject) < 3) continue;
    const changed = changedFiles(workTree, candidate.parents[0], candidate.commit);
    const source = changed.filter((file) => isSourceFile(file.path, repository));
    const answer = source
      .filter((file) => file.status === 'M')
      .map((file) => file.path)
      .sort();
    if (source.length === 0 || source.length > 5 || answer.length === 0) continue;
    kept.push({
      repository: repository.name,
      commit: candidate.commit,
      parent: candidate.parents[0],
      date: candidate.date,
      query,
      answer,
      split: splitOf(repository.name, candidate.commit),
    });
  }
  // Oldest first, so a runner checking out parents in this order moves forward through history.
  return kept.reverse();
}

function main(): void {
  const argv = process.argv.slice(2);
  const option = (flag: string) => {
    const index = argv.indexOf(flag);
    return index >= 0 ? argv[index + 1] : undefined;
  };
  const reposDirectory = option('--repos') ?? process.env.PK_LOCALIZATION_REPOS ?? '/work/eval-repos';
  const perRepository = Number(option('--per-repo') ?? 45);
  const committed = path.join(__dirname, '..', '..', '..', '..', 'test', 'quality', 'localization', 'instances.json');
  const out = option('--out') ?? committed;
  // An extra tuning set: the qualifying commits beyond the committed ones (older), all labelled tune.
  const beyond = argv.includes('--beyond-set');
  if (beyond && out === committed) throw new Error('--beyond-set needs --out FILE (the committed instances stay as they are)');
  // A fresh check set: the qualifying commits of repositories outside the committed set, all labelled tune.
  const extra = argv.includes('--extra');
  if (extra && out === committed) throw new Error('--extra needs --out FILE (the committed instances stay as they are)');
  const known = beyond
    ? new Set((JSON.parse(fs.readFileSync(committed, 'utf8')) as LocalizationInstance[]).map((instance) => instance.commit))
    : undefined;
  // `--repo OWNER/NAME` (repeatable) keeps only the named repositories, so a new check set need not re-extract the others.
  const only = argv.flatMap((flag, index) => (flag === '--repo' && argv[index + 1] ? [argv[index + 1]] : []));
  const repositories = (extra ? extraRepositories : localizationRepositories).filter(
    (repository) => only.length === 0 || only.includes(repository.name),
  );
  if (only.length > 0 && repositories.length !== only.length)
    throw new Error(`--repo names a repository outside the list: ${only.join(', ')}`);
  const all: LocalizationInstance[] = [];
  for (const repository of repositories) {
    const workTree = path.join(reposDirectory, workTreeName(repository.name));
    if (!fs.existsSync(workTree)) throw new Error(`missing ${workTree} (clone ${repository.name} there with its full history)`);
    const extracted = extractRepository(workTree, repository, perRepository);
    const instances = known
      ? extracted.filter((instance) => !known.has(instance.commit)).map((instance) => ({ ...instance, split: 'tune' as const }))
      : extra
        ? extracted.map((instance) => ({ ...instance, split: 'tune' as const }))
        : extracted;
    const heldOut = instances.filter((instance) => instance.split === 'held-out').length;
    console.log(`${repository.name}: ${instances.length} instances (${instances.length - heldOut} tune, ${heldOut} held-out)`);
    all.push(...instances);
  }
  fs.writeFileSync(out, `${JSON.stringify(all, null, 1)}\n`);
  console.log(`${all.length} instances written to ${out}`);
}

if (require.main === module) main();
