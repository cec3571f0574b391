/**
 * The second quality corpus: the whole Hono repository (TypeScript) at one pinned commit, checked
 * out into a temporary `git worktree` of the clone the localization set uses
 * (`PK_LOCALIZATION_REPOS/honojs+hono`). The commit pins every byte the expected locations in
 * `honoQueries.ts` were read from; a clone without it is reported and the set skipped.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export const honoRepository = 'honojs/hono';
export const honoCommit = '28a9c128912de19f3fb28b00ae289c9b93f6f392';

export interface HonoCorpus {
  root: string;
  clone: string;
  files: number;
  cleanup(): void;
}

function git(cwd: string, args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, stdio: ['ignore', 'pipe', 'pipe'] });
}

/** The checked-out corpus, or a one-line reason why it cannot be had. */
export function prepareHonoCorpus(reposDirectory: string): HonoCorpus | string {
  const clone = path.join(reposDirectory, 'honojs+hono');
  try {
    git(clone, ['cat-file', '-e', `${honoCommit}^{commit}`]);
  } catch {
    return `no clone of ${honoRepository} containing ${honoCommit.slice(0, 12)} at ${clone}`;
  }
  git(clone, ['worktree', 'prune']);
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'pk-quality-hono-')));
  git(clone, ['worktree', 'add', '-q', '--detach', '-f', root, honoCommit]);
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
