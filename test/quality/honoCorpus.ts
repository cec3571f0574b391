/**
 * The second and third quality corpora: the whole Hono repository (TypeScript) and the whole jsoup
 * repository (Java), each at one pinned commit, checked out into a temporary `git worktree` of the
 * clone the localization set uses (`PK_LOCALIZATION_REPOS/honojs+hono`, `.../jhy+jsoup`). The
 * commit pins every byte the expected locations in `honoQueries.ts` and `jsoupQueries.ts` were
 * read from; a clone without it is reported and the set skipped.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export const honoRepository = 'honojs/hono';
export const honoCommit = '28a9c128912de19f3fb28b00ae289c9b93f6f392';
export const jsoupRepository = 'jhy/jsoup';
/** The localization set's head for jsoup (`localization/repositories.ts`). */
export const jsoupCommit = '46b620860af930eedc193a705eaf7cea5aec89a6';
export const justRepository = 'casey/just';
/** The localization set's head for just (`localization/repositories.ts`). */
export const justCommit = '4f41f609278edb6f1024e3dd7a9912946e1e7bc3';

export interface HonoCorpus {
  root: string;
  clone: string;
  files: number;
  cleanup(): void;
}

function git(cwd: string, args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, stdio: ['ignore', 'pipe', 'pipe'] });
}

/** The checked-out Hono corpus, or a one-line reason why it cannot be had. */
export function prepareHonoCorpus(reposDirectory: string): HonoCorpus | string {
  return preparePinnedCorpus(reposDirectory, honoRepository, honoCommit);
}

/** One fetched repository checked out at a pinned commit, or a one-line reason why it cannot be had. */
export function preparePinnedCorpus(reposDirectory: string, repository: string, commit: string): HonoCorpus | string {
  const clone = path.join(reposDirectory, repository.replace('/', '+'));
  try {
    git(clone, ['cat-file', '-e', `${commit}^{commit}`]);
  } catch {
    return `no clone of ${repository} containing ${commit.slice(0, 12)} at ${clone}`;
  }
  git(clone, ['worktree', 'prune']);
  const name = repository.slice(repository.indexOf('/') + 1);
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `pk-quality-${name}-`)));
  git(clone, ['worktree', 'add', '-q', '--detach', '-f', root, commit]);
  const files = git(root, ['ls-files', '-z']).split('\u0000').filter(Boolean).length;
  return {
    root,
    clone,
    files,
    cleanup: () => {
      git(clone, ['worktree', 'remove', '--force', root]);
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
}
