import { isUtf8 } from 'node:buffer';
import type { ExclusionReason } from './reasons';
import { findSecret, type SecretRule } from './secrets';

/**
 * Exclusions decided from a file's bytes: binary content, encodings other than UTF-8, empty
 * files, secrets and minified text. The byte-level checks use Node's native scans (`indexOf`,
 * `isUtf8`) and fall back to a JavaScript loop only for invalid UTF-8; the text is decoded once and
 * handed back so the caller indexes exactly what was checked.
 */

export type SniffResult = { ok: true; text: string; malformedRatio: number } | { ok: false; reason: ExclusionReason; detail: string };

/** Git's heuristic looks for NUL in the first 8,000 bytes; the detail says when a NUL is that early. */
export const nulScanBytes = 8192;
/** Share of control bytes (other than \t \n \v \f \r and ESC) above which content is binary. */
export const maxControlRatio = 0.1;
/**
 * Malformed UTF-8 is tolerated up to 1% of the decoded characters, and always below 3 sequences:
 * one stray Latin-1 byte (a `©` in a licence header) should not drop a source file, while a file
 * in another encoding, where every accented letter is malformed, is past both limits.
 */
export const maxMalformedRatio = 0.01;
export const minMalformedSequences = 3;
/**
 * Minified or generated text: lines averaging 500+ characters over at least 2 KiB. Hand-written
 * code averages 30–40 characters a line and prose with a paragraph per line stays far below.
 */
export const minifiedMeanLineLength = 500;
export const minifiedMinBytes = 2048;

/**
 * Counts malformed sequences exactly as the WHATWG UTF-8 decoder (and so `TextDecoder`) replaces
 * them with U+FFFD, which tells malformed input apart from a U+FFFD the file legitimately holds.
 * Only called when the fast `isUtf8` check has already failed.
 */
export function countMalformedUtf8(bytes: Uint8Array): number {
  let malformed = 0;
  let needed = 0;
  let seen = 0;
  let lower = 0x80;
  let upper = 0xbf;
  for (let index = 0; index < bytes.length; index++) {
    const byte = bytes[index];
    if (needed === 0) {
      if (byte < 0x80) continue;
      if (byte >= 0xc2 && byte <= 0xdf) needed = 1;
      else if (byte >= 0xe0 && byte <= 0xef) {
        if (byte === 0xe0) lower = 0xa0;
        if (byte === 0xed) upper = 0x9f;
        needed = 2;
      } else if (byte >= 0xf0 && byte <= 0xf4) {
        if (byte === 0xf0) lower = 0x90;
        if (byte === 0xf4) upper = 0x8f;
        needed = 3;
      } else malformed++;
      continue;
    }
    if (byte < lower || byte > upper) {
      // The sequence ends early: one replacement, and this byte starts over.
      malformed++;
      needed = 0;
      seen = 0;
      lower = 0x80;
      upper = 0xbf;
      index--;
      continue;
    }
    lower = 0x80;
    upper = 0xbf;
    seen++;
    if (seen === needed) {
      needed = 0;
      seen = 0;
    }
  }
  return needed === 0 ? malformed : malformed + 1;
}

/** C0 controls other than \t \n \v \f \r and ESC (ANSI colour codes in logs are text), and DEL. */
const isControlByte = new Uint8Array(256);
for (let byte = 0x01; byte < 0x20; byte++) isControlByte[byte] = byte >= 0x09 && byte <= 0x0d ? 0 : byte === 0x1b ? 0 : 1;
isControlByte[0x7f] = 1;

/** A table-driven byte loop: measured ~1.7x faster than a regular expression over the text. */
function countControls(bytes: Uint8Array): number {
  let controls = 0;
  for (let index = 0; index < bytes.length; index++) controls += isControlByte[bytes[index]];
  return controls;
}

/**
 * Whether lines average at least `minifiedMeanLineLength` bytes. Counting stops as soon as there
 * are enough lines to rule that out, so ordinary files cost a few `indexOf` calls.
 */
function looksMinified(bytes: Buffer): { minified: boolean; lines: number } {
  if (bytes.length < minifiedMinBytes) return { minified: false, lines: 0 };
  const maximumLines = bytes.length / minifiedMeanLineLength;
  let lines = 1;
  for (let newline = bytes.indexOf(0x0a); newline !== -1; newline = bytes.indexOf(0x0a, newline + 1)) {
    if (++lines > maximumLines) return { minified: false, lines };
  }
  return { minified: true, lines };
}

const decoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });

/** Whether the bytes open with a UTF-8 byte-order mark, the one `decodeCheckedText` leaves out. */
export function startsWithBom(bytes: Uint8Array): boolean {
  return bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
}

function withoutBom(bytes: Uint8Array): Buffer {
  const skip = startsWithBom(bytes) ? 3 : 0;
  return Buffer.from(bytes.buffer, bytes.byteOffset + skip, bytes.length - skip);
}

/**
 * The text `sniffContent` returns for bytes that pass it (without a UTF-8 BOM), without its checks:
 * for bytes already known to pass them, such as a current indexed file's (same hash, same path).
 */
export function decodeCheckedText(bytes: Uint8Array): string {
  return decoder.decode(withoutBom(bytes));
}

/** Part of such bytes decoded as `decodeCheckedText` decodes (a BOM inside is kept): for lines cut from them. */
export function decodeCheckedPart(bytes: Uint8Array): string {
  return decoder.decode(bytes);
}

function reasonForSecret(rule: SecretRule): ExclusionReason {
  if (rule === 'private-key-block' || rule === 'putty-private-key' || rule === 'age-secret-key') return 'private-key';
  if (rule === 'npmrc-auth-token' || rule === 'registry-password') return 'credential-file';
  return 'secret-content';
}

function percent(ratio: number): string {
  return `${(ratio * 100).toFixed(1)}%`;
}

/**
 * Decides whether a file's bytes may be indexed and, if so, returns its text (without a UTF-8
 * BOM) and the share of malformed sequences that were replaced. A refusal never quotes content:
 * the detail names a rule, a line or a count, so it is safe to store and print.
 */
export function sniffContent(bytes: Uint8Array, relativePath: string): SniffResult {
  const hasBom = startsWithBom(bytes);
  const body = withoutBom(bytes);
  if (body.length === 0) return { ok: false, reason: 'empty', detail: hasBom ? 'only a byte-order mark' : 'no bytes' };

  // A NUL anywhere, not only in the first 8 KiB as git looks: text never needs one, and it would
  // truncate strings on the way into SQLite.
  const firstNul = body.indexOf(0);
  if (firstNul >= 0) {
    const where = firstNul < nulScanBytes ? ` (within the first ${nulScanBytes} bytes)` : '';
    return { ok: false, reason: 'binary-content', detail: `NUL byte at offset ${firstNul}${where}` };
  }

  const controlRatio = countControls(body) / body.length;
  if (controlRatio > maxControlRatio) {
    return { ok: false, reason: 'binary-content', detail: `${percent(controlRatio)} control characters` };
  }

  const text = decoder.decode(body);

  const malformed = isUtf8(body) ? 0 : countMalformedUtf8(body);
  const malformedRatio = malformed / text.length;
  if (malformed >= minMalformedSequences && malformedRatio > maxMalformedRatio) {
    return {
      ok: false,
      reason: 'malformed-utf8',
      detail: `${malformed} malformed UTF-8 sequences (${percent(malformedRatio)} of characters)`,
    };
  }
  if (malformed === 0 ? !/\S/.test(text) : !/[^\s\uFFFD]/.test(text)) {
    return malformed > 0
      ? { ok: false, reason: 'malformed-utf8', detail: `${malformed} malformed UTF-8 sequences and no other text` }
      : { ok: false, reason: 'empty', detail: 'whitespace only' };
  }

  const secret = findSecret(text, relativePath);
  if (secret) return { ok: false, reason: reasonForSecret(secret.rule), detail: `${secret.rule} on line ${secret.line}` };

  const shape = looksMinified(body);
  if (shape.minified) {
    return { ok: false, reason: 'minified', detail: `${shape.lines} line(s) averaging ${Math.round(body.length / shape.lines)} bytes` };
  }
  return { ok: true, text, malformedRatio };
}
