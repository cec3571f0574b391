import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * How a save writes the database file, its temporary copy and its journal: a port, so tests
 * count the bytes a save writes and fail it at any step, and the benchmark reports what an edit
 * costs on disk. Reading the file at open stays in `databaseFile.ts` (lstat, `O_NOFOLLOW`).
 */
export interface DatabaseFileIo {
  /** `create`: a new file, exclusively (`O_EXCL`); `update`: an existing regular file, for writing in place; `read`: reading only. */
  open(filePath: string, mode: 'create' | 'update' | 'read'): Promise<WritableFile>;
  rename(from: string, to: string): Promise<void>;
  /** Removes a file if it exists. */
  remove(filePath: string): Promise<void>;
  /** Flushes a directory, so a created, renamed or removed name survives a power loss. */
  syncDirectory(directory: string): Promise<void>;
  exists(filePath: string): Promise<boolean>;
  /** Inode, size and nanosecond mtime of the file (not followed), undefined when it is missing: tells whether a journal changed. */
  signature(filePath: string): Promise<string | undefined>;
}

export interface WritableFile {
  write(bytes: Uint8Array, position: number): Promise<void>;
  /** Reads into `into` from `position`; the count read (0 at the end). */
  read(into: Uint8Array, position: number): Promise<number>;
  truncate(size: number): Promise<void>;
  sync(): Promise<void>;
  size(): Promise<number>;
  /** Device and inode, to check that the file written in place is the one whose identity was checked. */
  inode(): Promise<string>;
  close(): Promise<void>;
}

const noFollow = fs.constants.O_NOFOLLOW ?? 0;

class NodeFile implements WritableFile {
  constructor(private readonly handle: fs.promises.FileHandle) {}

  async write(bytes: Uint8Array, position: number): Promise<void> {
    let done = 0;
    while (done < bytes.length) {
      const { bytesWritten } = await this.handle.write(bytes, done, bytes.length - done, position + done);
      done += bytesWritten;
    }
  }

  async read(into: Uint8Array, position: number): Promise<number> {
    return (await this.handle.read(into, 0, into.length, position)).bytesRead;
  }

  truncate(size: number): Promise<void> {
    return this.handle.truncate(size);
  }

  sync(): Promise<void> {
    return this.handle.sync();
  }

  async size(): Promise<number> {
    return (await this.handle.stat()).size;
  }

  async inode(): Promise<string> {
    const stat = await this.handle.stat({ bigint: true });
    if (!stat.isFile()) throw new Error('not a regular file');
    return `${stat.dev}:${stat.ino}`;
  }

  close(): Promise<void> {
    return this.handle.close();
  }
}

export const nodeDatabaseFileIo: DatabaseFileIo = {
  async open(filePath, mode) {
    const flags =
      mode === 'create'
        ? fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | noFollow
        : mode === 'update'
          ? fs.constants.O_RDWR | noFollow
          : fs.constants.O_RDONLY | noFollow;
    return new NodeFile(await fs.promises.open(filePath, flags, 0o600));
  },
  rename(from, to) {
    return fs.promises.rename(from, to);
  },
  remove(filePath) {
    return fs.promises.rm(filePath, { force: true });
  },
  async syncDirectory(directory) {
    let handle: fs.promises.FileHandle | undefined;
    try {
      handle = await fs.promises.open(directory, fs.constants.O_RDONLY);
      await handle.sync();
    } catch (error) {
      // Some file systems (and Windows) cannot open or flush a directory; the rename stays atomic.
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'EISDIR' && code !== 'EPERM' && code !== 'EINVAL' && code !== 'EACCES') throw error;
    } finally {
      await handle?.close();
    }
  },
  async exists(filePath) {
    try {
      await fs.promises.lstat(filePath);
      return true;
    } catch {
      return false;
    }
  },
  async signature(filePath) {
    try {
      const stat = await fs.promises.lstat(filePath, { bigint: true });
      return `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeNs}`;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  },
};

/** What a counting `DatabaseFileIo` saw: bytes written and flushes, per file kind. */
export interface DatabaseWriteCounts {
  /** Bytes written into the database file in place. */
  inPlaceBytes: number;
  /** Bytes written into temporary copies (whole-file saves). */
  wholeBytes: number;
  /** Bytes written into journals. */
  journalBytes: number;
  syncs: number;
  writes: number;
}

export function emptyWriteCounts(): DatabaseWriteCounts {
  return { inPlaceBytes: 0, wholeBytes: 0, journalBytes: 0, syncs: 0, writes: 0 };
}

/** The bytes of all kinds a save wrote. */
export function bytesWritten(counts: DatabaseWriteCounts): number {
  return counts.inPlaceBytes + counts.wholeBytes + counts.journalBytes;
}

function kindOf(filePath: string): 'journalBytes' | 'wholeBytes' | 'inPlaceBytes' {
  const name = path.basename(filePath);
  if (name.endsWith('.pkjournal')) return 'journalBytes';
  if (name.endsWith('.tmp')) return 'wholeBytes';
  return 'inPlaceBytes';
}

/** Wraps `io` so that every byte written and every flush is added to `counts`. */
export function countingDatabaseFileIo(io: DatabaseFileIo, counts: DatabaseWriteCounts): DatabaseFileIo {
  return {
    ...io,
    async open(filePath, mode) {
      const file = await io.open(filePath, mode);
      const kind = kindOf(filePath);
      return {
        write: async (bytes, position) => {
          await file.write(bytes, position);
          counts[kind] += bytes.length;
          counts.writes++;
        },
        read: (into, position) => file.read(into, position),
        truncate: (size) => file.truncate(size),
        sync: async () => {
          await file.sync();
          counts.syncs++;
        },
        size: () => file.size(),
        inode: () => file.inode(),
        close: () => file.close(),
      };
    },
  };
}
