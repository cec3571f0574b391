import { createHash } from 'node:crypto';

export function sha256Hex(data: Uint8Array | string): string {
  return createHash('sha256').update(data).digest('hex');
}

/** SHA-256 over fields joined by NUL, so no two field lists collide by concatenation. */
export function idOf(...fields: Array<string | number>): string {
  return sha256Hex(fields.map(String).join('\0'));
}
