import * as crypto from 'node:crypto';

/**
 * Node's one-shot digest (Node 20.12 and later): half the cost of a `Hash` object for the short
 * inputs ids are made of, which a search computes for every row it reads. Older runtimes use the object.
 */
const oneShot = typeof crypto.hash === 'function' ? crypto.hash : undefined;

export function sha256Hex(data: Uint8Array | string): string {
  return oneShot ? oneShot('sha256', data, 'hex') : crypto.createHash('sha256').update(data).digest('hex');
}

/** SHA-256 over fields joined by NUL, so no two field lists collide by concatenation. */
export function idOf(...fields: Array<string | number>): string {
  return sha256Hex(fields.map(String).join('\0'));
}

/** A project's id: a short digest of its canonical root, part of every chunk and symbol id. */
export function projectIdOf(root: string): string {
  return sha256Hex(root).slice(0, 16);
}

/** A declaration's id: its project, file and content, lines, kind and qualified name. */
export function symbolIdOf(
  projectId: string,
  path: string,
  fileHash: string,
  symbol: { startLine: number; endLine: number; kind: string; qualifiedName: string },
): string {
  return idOf(projectId, path, fileHash, symbol.startLine, symbol.endLine, symbol.kind, symbol.qualifiedName);
}

/** A chunk's id: its project, file and content, lines and declaration (32 hex digits). */
export function chunkIdOf(
  projectId: string,
  path: string,
  fileHash: string,
  startLine: number,
  endLine: number,
  symbolId: string | null,
): string {
  return idOf(projectId, path, fileHash, startLine, endLine, symbolId ?? '').slice(0, 32);
}
