import * as path from 'node:path';
import type { EnginePorts } from './ports';

export interface GitState {
  branch: string | null;
  head: string | null;
  dirty: boolean;
  /** Project-relative paths with working-tree or index changes (untracked included). */
  changedPaths: string[];
}

const noGit: GitState = { branch: null, head: null, dirty: false, changedPaths: [] };

/**
 * Reads branch, HEAD and the changed paths. Any git failure yields "no git information" rather
 * than an error: the index stays usable without it.
 */
export async function readGitState(root: string, gitRoot: string | undefined, ports: EnginePorts): Promise<GitState> {
  if (!gitRoot) return noGit;
  try {
    const [head, branch, status] = await Promise.all([
      ports.git.run(['rev-parse', '--verify', '--quiet', 'HEAD'], root).then(
        (out) => out.toString('utf8').trim() || null,
        () => null,
      ),
      ports.git.run(['symbolic-ref', '--quiet', '--short', 'HEAD'], root).then(
        (out) => out.toString('utf8').trim() || null,
        () => null,
      ),
      ports.git.run(['status', '--porcelain=v1', '-z', '--untracked-files=all', '--', '.'], root),
    ]);
    const changedPaths: string[] = [];
    const entries = status.toString('utf8').split('\0');
    // Status paths are relative to the repository root; the project root may be a subfolder.
    const prefix = path.relative(gitRoot, root).split(path.sep).join('/');
    for (let index = 0; index < entries.length; index++) {
      const entry = entries[index];
      if (entry.length < 4) continue;
      const code = entry.slice(0, 2);
      let repoPath = entry.slice(3);
      if (code[0] === 'R' || code[0] === 'C') index++; // The next entry is the rename source.
      if (prefix) {
        if (!repoPath.startsWith(prefix + '/')) continue;
        repoPath = repoPath.slice(prefix.length + 1);
      }
      changedPaths.push(repoPath);
    }
    changedPaths.sort();
    return { branch, head, dirty: changedPaths.length > 0, changedPaths };
  } catch (error) {
    ports.log.warn(`git state unavailable: ${String(error)}`);
    return noGit;
  }
}
