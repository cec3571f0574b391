/**
 * Characters that a line splitter, a terminal or a reader's eye may act on instead of showing:
 * C0 and C1 controls (ESC, CR, VT, FF, the file/group/record separators, NEL U+0085), the line and
 * paragraph separators U+2028/U+2029, every format character (bidi embeddings, overrides and
 * isolates U+202A-202E/U+2066-2069, the marks U+200E/U+200F/U+061C, zero-width U+200B-200D, U+2060,
 * U+FEFF, soft hyphen) and the tag block U+E0000-E007F (most of it unassigned, so not in `Cf`).
 * Python's `str.splitlines()` splits on \n \r \v \f \x1c \x1d \x1e \x85 \u2028 \u2029: all are here.
 */
const unsafeCharacters = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\u{E0000}-\u{E007F}]/gu;

/** `\uXXXX` per UTF-16 code unit, so an astral character becomes its surrogate pair (JSON's own spelling). */
function escapeCodeUnits(character: string): string {
  let escaped = '';
  for (let index = 0; index < character.length; index++) escaped += `\\u${character.charCodeAt(index).toString(16).padStart(4, '0')}`;
  return escaped;
}

/**
 * Text for one line of plain output (CLI, tree labels, prompt header fields): every unsafe
 * character is shown as `\uXXXX`, so the line stays one line and reads as what it holds.
 */
export function displayText(text: string): string {
  return text.replace(unsafeCharacters, escapeCodeUnits);
}

/**
 * `JSON.stringify(value)` with the unsafe characters it leaves raw (U+2028, U+0085, bidi,
 * zero-width, tags, DEL and C1) escaped as well: any JSON parser reads back the same string, and
 * any line splitter sees one line.
 */
export function quoteJson(value: string): string {
  return displayText(JSON.stringify(value));
}
