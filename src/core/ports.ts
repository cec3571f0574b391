import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import { readContainedFileSync } from './containedRead';
import type { DatabaseFileIo } from './storage/fileIo';

/**
 * The core reaches the outside world only through these ports, so the CLI, the tests and the
 * extension can each pass their own implementations and count what happened (the Restricted
 * Mode tests assert that nothing was enumerated, run or opened). The database file is the one
 * exception: `databaseFile.ts` needs lstat, exclusive creation, fsync and process ids, so it uses
 * `node:fs` itself (the Restricted Mode tests hold because no engine is opened there at all);
 * only a save's writes go through a port (`databaseFiles`), so tests can count and fail them.
 */

export interface FileStat {
  size: number;
  mtimeMs: number;
  isFile: boolean;
  isDirectory: boolean;
  isSymbolicLink: boolean;
}

export interface FileSystemHost {
  lstat(absolutePath: string): Promise<FileStat>;
  realpath(absolutePath: string): Promise<string>;
  /**
   * `lstat` and `realpath` without leaving the calling thread, for discovery, which stats every
   * file and checks every directory of the project at each sync: a thread-pool round trip per
   * call cost three times the system call (1.15 against 0.33 CPU-s for 50,000 files).
   */
  lstatBlocking(absolutePath: string): FileStat;
  realpathBlocking(absolutePath: string): string;
  /** Entry names of one directory (not recursive, unsorted). */
  readdir(absolutePath: string): Promise<string[]>;
  /**
   * Reads a whole regular file, named by its project-relative POSIX path under the canonical
   * `root`, through one descriptor (the stat describes the bytes returned), without leaving the
   * calling thread: four thread-pool round trips (open, stat, read, close) cost far more than
   * reading a source file. The engine runs off the editor's thread (see `worker/`), so blocking it
   * freezes nothing. Every project read goes through here, so this is where containment holds:
   * a path through a symbolic link, leaving the root, or naming a FIFO, socket or device throws a
   * `ContainmentError` and never blocks (`containedRead.ts`).
   */
  readFileBlocking(root: string, relativePath: string, maxBytes: number): { bytes: Uint8Array; stat: FileStat };
  readBinary(absolutePath: string): Promise<Uint8Array>;
  homeDirectory(): string;
}

export interface GitRunner {
  /** Runs git with arguments (never through a shell); rejects on a non-zero exit. */
  run(args: string[], cwd: string): Promise<Buffer>;
}

export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string, error?: unknown): void;
}

export interface Clock {
  now(): number;
}

export interface EnginePorts {
  fs: FileSystemHost;
  git: GitRunner;
  log: Logger;
  clock: Clock;
  /** How saves write the database file and its journal (default `nodeDatabaseFileIo`). */
  databaseFiles?: DatabaseFileIo;
}

function toStat(stat: fs.Stats): FileStat {
  return {
    size: stat.size,
    mtimeMs: Math.trunc(stat.mtimeMs),
    isFile: stat.isFile(),
    isDirectory: stat.isDirectory(),
    isSymbolicLink: stat.isSymbolicLink(),
  };
}

export { ContainmentError, FileTooLargeError } from './containedRead';

/** Reads `size` bytes of an open file in pieces: `readFile` refuses files over 2 GiB, and large indexes are. */
export async function readInPieces(handle: fs.promises.FileHandle, size: number, pieceBytes = 64 * 1024 * 1024): Promise<Uint8Array> {
  const bytes = Buffer.allocUnsafe(size);
  let offset = 0;
  while (offset < size) {
    const { bytesRead } = await handle.read(bytes, offset, Math.min(pieceBytes, size - offset), offset);
    if (bytesRead === 0) break;
    offset += bytesRead;
  }
  return bytes.subarray(0, offset);
}

/**
 * Reads a whole file in pieces into one buffer. `fs.readFile` refuses files over 2 GiB, and an
 * index of 50,000 files is larger: it would be discarded as unreadable and rebuilt on every open.
 */
export async function readWhole(absolutePath: string, pieceBytes = 64 * 1024 * 1024): Promise<Uint8Array> {
  const handle = await fs.promises.open(absolutePath, fs.constants.O_RDONLY);
  try {
    return await readInPieces(handle, (await handle.stat()).size, pieceBytes);
  } finally {
    await handle.close();
  }
}

export const nodeFileSystem: FileSystemHost = {
  async lstat(absolutePath) {
    return toStat(await fs.promises.lstat(absolutePath));
  },
  realpath(absolutePath) {
    return fs.promises.realpath(absolutePath);
  },
  lstatBlocking(absolutePath) {
    return toStat(fs.lstatSync(absolutePath));
  },
  realpathBlocking(absolutePath) {
    // The same realpath(3) that `fs.promises.realpath` runs on the thread pool.
    return fs.realpathSync.native(absolutePath);
  },
  readdir(absolutePath) {
    return fs.promises.readdir(absolutePath);
  },
  readFileBlocking(root, relativePath, maxBytes) {
    const { bytes, stat } = readContainedFileSync(root, relativePath, maxBytes);
    return { bytes, stat: { ...toStat(stat), size: bytes.length } };
  },
  async readBinary(absolutePath) {
    return readWhole(absolutePath);
  },
  homeDirectory() {
    return os.homedir();
  },
};

export const nodeGit: GitRunner = {
  run(args, cwd) {
    return new Promise((resolve, reject) => {
      execFile(
        'git',
        args,
        {
          cwd,
          encoding: 'buffer',
          maxBuffer: 256 * 1024 * 1024,
          windowsHide: true,
          // Reading status must not take the index lock the user's own git commands need.
          env: { ...process.env, GIT_OPTIONAL_LOCKS: '0', GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' },
        },
        (error: Error | null, stdout) => (error ? reject(error) : resolve(stdout)),
      );
    });
  },
};

export const silentLogger: Logger = { info() {}, warn() {}, error() {} };

export const systemClock: Clock = { now: () => Date.now() };

export function nodePorts(log: Logger = silentLogger): EnginePorts {
  return { fs: nodeFileSystem, git: nodeGit, log, clock: systemClock };
}

/** Wraps ports so every call is counted; the trust tests assert these stay at zero. */
export interface PortCounters {
  fsCalls: number;
  gitCalls: number;
}

export function countingPorts(ports: EnginePorts, counters: PortCounters): EnginePorts {
  const fsHost = Object.fromEntries(
    Object.entries(ports.fs).map(([name, fn]) => [
      name,
      (...args: unknown[]) => {
        if (name !== 'homeDirectory') counters.fsCalls++;
        return (fn as (...a: unknown[]) => unknown).apply(ports.fs, args);
      },
    ]),
  ) as unknown as FileSystemHost;
  return {
    ...ports,
    fs: fsHost,
    git: {
      run(args, cwd) {
        counters.gitCalls++;
        return ports.git.run(args, cwd);
      },
    },
  };
}
