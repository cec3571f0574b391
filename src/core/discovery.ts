import * as path from 'node:path';
import { classifyDirectory, classifyPath } from './exclusion/pathRules';
import type { ExclusionReason } from './exclusion/reasons';
import { IgnoreRules } from './ignoreRules';
import type { IndexBounds } from './options';
import type { EnginePorts, FileStat } from './ports';

/** Raised when the root must not be indexed; its message is one line meant for the user. */
export class RootRefusedError extends Error {
  constructor(
    message: string,
    readonly reason: 'filesystem-root' | 'home-directory' | 'missing' | 'not-directory',
  ) {
    super(message);
    this.name = 'RootRefusedError';
  }
}

export interface Exclusion {
  path: string;
  reason: ExclusionReason;
  detail?: string;
}

export interface Candidate {
  path: string;
  stat: FileStat;
  tracked: boolean;
}

export interface Discovery {
  root: string;
  gitRoot?: string;
  usedGit: boolean;
  candidates: Candidate[];
  exclusions: Exclusion[];
  /** Bounds that were hit, as one-line notes for health and the CLI. */
  boundNotes: string[];
  directoriesVisited: number;
}

/** Resolves the canonical root and refuses the filesystem root and the home directory. */
export async function canonicalRoot(root: string, ports: EnginePorts): Promise<string> {
  let real: string;
  try {
    real = await ports.fs.realpath(path.resolve(root));
  } catch {
    throw new RootRefusedError(`The folder ${root} does not exist.`, 'missing');
  }
  const stat = await ports.fs.lstat(real);
  if (!stat.isDirectory) throw new RootRefusedError(`${root} is not a folder.`, 'not-directory');
  if (path.parse(real).root === real) {
    throw new RootRefusedError('Refusing to index the filesystem root; open the project folder instead.', 'filesystem-root');
  }
  let home: string | undefined;
  try {
    home = await ports.fs.realpath(ports.fs.homeDirectory());
  } catch {
    home = undefined;
  }
  if (home !== undefined && real === home) {
    throw new RootRefusedError('Refusing to index the home directory; open the project folder instead.', 'home-directory');
  }
  return real;
}

function splitNul(buffer: Buffer): string[] {
  return buffer
    .toString('utf8')
    .split('\0')
    .filter((entry) => entry.length > 0);
}

async function gitListing(
  root: string,
  ports: EnginePorts,
  onGitRoot?: (root: string, gitRoot: string) => void,
): Promise<{ gitRoot: string; tracked: string[]; untracked: string[] } | undefined> {
  let gitRoot: string;
  try {
    gitRoot = (await ports.git.run(['rev-parse', '--show-toplevel'], root)).toString('utf8').trim();
  } catch {
    return undefined;
  }
  onGitRoot?.(root, gitRoot);
  const [tracked, untracked] = await Promise.all([
    ports.git.run(['ls-files', '-z', '--cached'], root),
    ports.git.run(['ls-files', '-z', '--others', '--exclude-standard'], root),
  ]);
  return { gitRoot, tracked: splitNul(tracked), untracked: splitNul(untracked) };
}

async function walk(
  root: string,
  ports: EnginePorts,
  isExcludedDirectory: (relative: string) => boolean,
  maxDirectories: number,
): Promise<{ files: string[]; directories: number; truncated: boolean }> {
  const files: string[] = [];
  let directories = 0;
  let truncated = false;
  const pending: string[] = [''];
  while (pending.length > 0) {
    const relativeDirectory = pending.shift() as string;
    if (directories >= maxDirectories) {
      truncated = true;
      break;
    }
    directories++;
    let names: string[];
    try {
      names = (await ports.fs.readdir(path.join(root, relativeDirectory))).sort();
    } catch {
      continue;
    }
    const subdirectories: string[] = [];
    for (const name of names) {
      const relative = relativeDirectory ? `${relativeDirectory}/${name}` : name;
      let stat: FileStat;
      try {
        stat = ports.fs.lstatBlocking(path.join(root, relative));
      } catch {
        continue;
      }
      if (stat.isDirectory && !stat.isSymbolicLink) {
        if (!isExcludedDirectory(relative)) subdirectories.push(relative);
      } else {
        files.push(relative);
      }
    }
    // Depth-first in sorted order keeps the walk deterministic and the queue small.
    pending.unshift(...subdirectories);
  }
  return { files, directories, truncated };
}

/**
 * Lists the files a project index may read, in sorted order, with the reason for every path it
 * leaves out. Content checks (binary, secrets) happen later, when the file is read. `onGitRoot`
 * hears of the repository as soon as git names it, so a caller can read its state meanwhile.
 */
export async function discover(
  rootInput: string,
  bounds: IndexBounds,
  excludeGlobs: string[],
  useGit: boolean,
  ports: EnginePorts,
  onGitRoot?: (root: string, gitRoot: string) => void,
): Promise<Discovery> {
  const root = await canonicalRoot(rootInput, ports);
  const exclusions: Exclusion[] = [];
  const boundNotes: string[] = [];
  let pkignore = new IgnoreRules([]);
  try {
    // Read like any project file: a .pkignore that is a link, a FIFO or too large is refused, never followed or waited on.
    const { bytes } = ports.fs.readFileBlocking(root, '.pkignore', bounds.maxFileBytes);
    pkignore = IgnoreRules.fromText(Buffer.from(bytes).toString('utf8'));
  } catch (error) {
    // No .pkignore is the common case; any other failure is said once and the file's rules are left out.
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
      ports.log.warn(`.pkignore was not read: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  const userRules = new IgnoreRules(excludeGlobs);

  let listing: { gitRoot: string; tracked: string[]; untracked: string[] } | undefined;
  if (useGit) {
    try {
      listing = await gitListing(root, ports, onGitRoot);
    } catch (error) {
      ports.log.warn(`git listing failed, walking the folder instead: ${String(error)}`);
    }
  }

  const trackedSet = new Set<string>();
  let paths: string[];
  let directoriesVisited: number;
  if (listing) {
    for (const entry of listing.tracked) trackedSet.add(entry);
    paths = [...new Set([...listing.tracked, ...listing.untracked])].sort();
    const directories = new Set<string>();
    for (const entry of paths) {
      for (let slash = entry.indexOf('/'); slash !== -1; slash = entry.indexOf('/', slash + 1)) directories.add(entry.slice(0, slash));
    }
    directoriesVisited = directories.size + 1;
  } else {
    const walked = await walk(
      root,
      ports,
      (relative) => {
        const reason = classifyDirectory(relative);
        if (reason || pkignore.ignores(relative, true) || userRules.ignores(relative, true)) {
          exclusions.push({ path: `${relative}/`, reason: reason ?? (pkignore.ignores(relative, true) ? 'pkignore' : 'user-exclude') });
          return true;
        }
        return false;
      },
      bounds.maxDirectories,
    );
    paths = walked.files.sort();
    directoriesVisited = walked.directories;
    if (walked.truncated) {
      boundNotes.push(`Stopped after ${bounds.maxDirectories} directories (bound maxDirectories).`);
      exclusions.push({ path: '.', reason: 'bound-directories', detail: `more than ${bounds.maxDirectories} directories` });
    }
  }
  if (listing && directoriesVisited > bounds.maxDirectories) {
    boundNotes.push(
      `The project has ${directoriesVisited} directories, over the bound of ${bounds.maxDirectories}; files in later directories were left out.`,
    );
  }

  const allowedDirectories = new Set<string>();
  const accepted: string[] = [];
  for (const relative of paths) {
    if (relative.split('/').some((segment) => segment === '..' || segment === '')) {
      exclusions.push({ path: relative, reason: 'outside-root' });
      continue;
    }
    const reason = classifyPath(relative);
    if (reason) {
      exclusions.push({ path: relative, reason });
      continue;
    }
    if (pkignore.ignores(relative)) {
      exclusions.push({ path: relative, reason: 'pkignore' });
      continue;
    }
    if (userRules.ignores(relative)) {
      exclusions.push({ path: relative, reason: 'user-exclude' });
      continue;
    }
    if (listing) {
      const directory = path.posix.dirname(relative);
      if (!allowedDirectories.has(directory) && allowedDirectories.size >= bounds.maxDirectories) {
        exclusions.push({ path: relative, reason: 'bound-directories' });
        continue;
      }
      allowedDirectories.add(directory);
    }
    accepted.push(relative);
  }

  const candidates: Candidate[] = [];
  const realDirectoryCache = new Map<string, boolean>();
  for (const relative of accepted) {
    let stat: FileStat;
    try {
      stat = ports.fs.lstatBlocking(path.join(root, relative));
    } catch {
      continue; // Listed by git but gone from the disk: it is simply not there.
    }
    if (stat.isSymbolicLink) {
      exclusions.push({ path: relative, reason: 'symlink' });
      continue;
    }
    if (!stat.isFile) continue;
    const directory = path.posix.dirname(relative);
    if (listing && directory !== '.') {
      // git does not descend through symlinked directories, but the tree can change under us.
      let inside = realDirectoryCache.get(directory);
      if (inside === undefined) {
        try {
          const real = ports.fs.realpathBlocking(path.join(root, directory));
          inside = real === root || real.startsWith(root + path.sep);
        } catch {
          inside = false;
        }
        realDirectoryCache.set(directory, inside);
      }
      if (!inside) {
        exclusions.push({ path: relative, reason: 'outside-root' });
        continue;
      }
    }
    if (stat.size > bounds.maxFileBytes) {
      exclusions.push({ path: relative, reason: 'too-large', detail: `${stat.size} bytes` });
      continue;
    }
    candidates.push({ path: relative, stat, tracked: trackedSet.has(relative) });
  }

  return {
    root,
    gitRoot: listing?.gitRoot,
    usedGit: listing !== undefined,
    candidates,
    exclusions,
    boundNotes,
    directoriesVisited,
  };
}
