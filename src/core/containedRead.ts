import * as fs from 'node:fs';
import * as path from 'node:path';

/** Why a read was refused before any byte was returned; the codes match the exclusion reasons. */
export type ContainmentRefusal = 'outside-root' | 'symlink' | 'not-regular-file';

/** A read refused because the path leaves the root, passes through a link, or is not a regular file. */
export class ContainmentError extends Error {
  readonly code = 'ECONTAINMENT';
  constructor(
    readonly refusal: ContainmentRefusal,
    message: string,
  ) {
    super(message);
    this.name = 'ContainmentError';
  }
}

/** An error that says the file grew past the bound while it was being read. */
export class FileTooLargeError extends Error {
  constructor(readonly size: number) {
    super(`file is larger than the bound (${size} bytes)`);
  }
}

/**
 * The segments of a project-relative POSIX path, or a refusal. Empty, `.` and `..` segments, NUL
 * and (on Windows) backslashes, drive colons and stream names could name a file the index never
 * listed, so they never reach the file system.
 */
export function projectSegments(relativePath: string): string[] {
  const segments = relativePath.split('/');
  const windows = process.platform === 'win32';
  const bad = segments.some(
    (segment) =>
      segment === '' ||
      segment === '.' ||
      segment === '..' ||
      segment.includes('\0') ||
      (windows && (segment.includes('\\') || segment.includes(':'))),
  );
  if (bad || path.isAbsolute(relativePath)) throw new ContainmentError('outside-root', `${relativePath} is not a path inside the project`);
  return segments;
}

function kindOf(stat: fs.Stats): string {
  if (stat.isDirectory()) return 'a directory';
  if (stat.isFIFO()) return 'a FIFO';
  if (stat.isSocket()) return 'a socket';
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'a device';
  return 'not a regular file';
}

/**
 * Checks every directory from the root down to the file's parent with `lstat`: each must be a real
 * directory, never a symbolic link (a link to a folder inside the project is refused too: the
 * index holds each file under one path only). The root itself was canonical when the engine
 * opened; a link there now means it was swapped.
 */
function checkDirectories(root: string, segments: string[]): string {
  let current = root;
  for (let index = -1; index < segments.length - 1; index++) {
    if (index >= 0) current = path.join(current, segments[index]);
    const stat = fs.lstatSync(current);
    const shown = index < 0 ? 'the project root' : segments.slice(0, index + 1).join('/');
    if (stat.isSymbolicLink()) throw new ContainmentError('symlink', `${shown} is a symbolic link`);
    if (!stat.isDirectory()) throw Object.assign(new Error(`${shown} is not a directory`), { code: 'ENOTDIR' });
  }
  return current;
}

const openFlags = fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0);

/**
 * Reads a whole regular file named by a project-relative path, refusing anything whose real path
 * could leave `root` (the canonical project root):
 * 1. every directory on the way is `lstat`ed and must not be a symbolic link;
 * 2. the file is `lstat`ed and must be a regular file (a FIFO, socket or device is never opened);
 * 3. it is opened with `O_NOFOLLOW | O_NONBLOCK` (a FIFO swapped in after step 2 cannot block the
 *    open), and `fstat` on the descriptor must show a regular file with the inode of step 2;
 * 4. the directories are checked again after the open, so a parent swapped for a link between
 *    steps 1 and 2 is caught (both 2 and 3 would have followed it to the same outside file).
 * What remains is a swap and a swap back within the few microseconds between 3 and 4; closing it
 * needs `openat` per segment, which Node does not offer.
 */
export function readContainedFileSync(root: string, relativePath: string, maxBytes: number): { bytes: Uint8Array; stat: fs.Stats } {
  const segments = projectSegments(relativePath);
  const directory = checkDirectories(root, segments);
  const absolute = path.join(directory, segments[segments.length - 1]);
  const before = fs.lstatSync(absolute);
  if (before.isSymbolicLink()) throw new ContainmentError('symlink', `${relativePath} is a symbolic link`);
  if (!before.isFile()) throw new ContainmentError('not-regular-file', `${relativePath} is ${kindOf(before)}`);
  const descriptor = fs.openSync(absolute, openFlags);
  try {
    const stat = fs.fstatSync(descriptor);
    if (!stat.isFile()) throw new ContainmentError('not-regular-file', `${relativePath} is ${kindOf(stat)}`);
    if (stat.ino !== before.ino || stat.dev !== before.dev) {
      throw new ContainmentError('not-regular-file', `${relativePath} was replaced while it was opened`);
    }
    checkDirectories(root, segments);
    if (stat.size > maxBytes) throw new FileTooLargeError(stat.size);
    const bytes = Buffer.allocUnsafe(stat.size);
    let offset = 0;
    while (offset < stat.size) {
      const bytesRead = fs.readSync(descriptor, bytes, offset, stat.size - offset, offset);
      if (bytesRead === 0) break;
      offset += bytesRead;
    }
    return { bytes: bytes.subarray(0, offset), stat };
  } finally {
    fs.closeSync(descriptor);
  }
}
