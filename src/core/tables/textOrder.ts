/**
 * SQLite's BINARY order of two texts (UTF-8 bytes, that is code points), for rows sorted in
 * JavaScript by a value another part stores. JavaScript's `<` compares UTF-16 units, which puts
 * characters past U+FFFF (surrogate pairs) before U+E000..U+FFFF; this does not.
 */
export function compareText(a: string, b: string): number {
  if (a === b) return 0;
  const length = Math.min(a.length, b.length);
  for (let index = 0; index < length; index++) {
    const x = a.charCodeAt(index);
    const y = b.charCodeAt(index);
    if (x === y) continue;
    const xSurrogate = x >= 0xd800 && x <= 0xdfff;
    const ySurrogate = y >= 0xd800 && y <= 0xdfff;
    if (xSurrogate !== ySurrogate && Math.max(x, y) >= 0xe000) return xSurrogate ? 1 : -1;
    return x - y;
  }
  return a.length - b.length;
}
