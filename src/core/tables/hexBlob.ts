/**
 * Hashes and ids are stored as bytes, half the size of their hex text (a SHA-256 is 32 bytes,
 * not 64 characters), and read back as the lower-case hex the rest of the code uses.
 */

const hexText = /^(?:[0-9a-f]{2})+$/;

/** `hex` as bytes; anything that is not lower-case hex of whole bytes is kept as text, unchanged. */
export function hexBlob(hex: string): Uint8Array | string {
  return hexText.test(hex) ? Uint8Array.from(Buffer.from(hex, 'hex')) : hex;
}

/** `hexBlob` for an optional value. */
export function optionalHexBlob(hex: string | null): Uint8Array | string | null {
  return hex === null ? null : hexBlob(hex);
}

/** A stored hash or id back as hex (a text value, kept as text by `hexBlob`, is returned as it is). */
export function blobHex(value: unknown): string {
  if (value instanceof Uint8Array) return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('hex');
  return String(value);
}

/** `blobHex` for an optional value. */
export function optionalBlobHex(value: unknown): string | null {
  return value === null || value === undefined ? null : blobHex(value);
}
