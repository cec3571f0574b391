import type { Language, Tree } from 'web-tree-sitter';
import type { Deadline } from './declarationExtractor';

/**
 * Identifiers per line, the raw material for a chunk's `references`. A chunk only needs a
 * bounded handful, so each line keeps at most this many.
 */
const maxIdentifiersPerLine = 64;

/** What an identifier looks like to `references`: a letter, `_` or `$`, then letters, digits, `_` or `$`. */
export const identifierPattern = /^[\p{L}_$][\p{L}\p{N}_$]*$/u;

/** Code units of ASCII letters, digits, `_` and `$`: 1 may start an identifier, 2 only continue one. */
const asciiIdentifierUnits = new Uint8Array(128);
for (let unit = 0; unit < 128; unit++) {
  const character = String.fromCharCode(unit);
  if (/[A-Za-z_$]/.test(character)) asciiIdentifierUnits[unit] = 1;
  else if (/[0-9]/.test(character)) asciiIdentifierUnits[unit] = 2;
}

/**
 * `identifierPattern.test(value)`, without the Unicode pattern for ASCII text (most names): a
 * parse worker tests every identifier node of every file.
 */
export function isIdentifier(value: string): boolean {
  for (let index = 0; index < value.length; index++) {
    const unit = value.charCodeAt(index);
    if (unit >= 128) return identifierPattern.test(value);
    const kind = asciiIdentifierUnits[unit];
    if (kind === 0 || (index === 0 && kind === 2)) return false;
  }
  return value.length > 0;
}

/** Receivers and keywords-as-identifiers say nothing about what a chunk is about. */
const uninformative = new Set(['self', 'this', 'cls', 'super', 'Self']);

/** Node types that are names in some grammar besides the many `*identifier` types. */
const nameTypes = new Set(['constant', 'name', 'variable_name', 'command_name']);

/** Name node types per grammar, computed once from the grammar's own list of node types. */
const nameTypesByLanguage = new WeakMap<Language, string[]>();

function nameTypesOf(language: Language): string[] {
  let types = nameTypesByLanguage.get(language);
  if (!types) {
    types = [
      ...new Set(
        language.types.filter((type): type is string => typeof type === 'string' && (type.endsWith('identifier') || nameTypes.has(type))),
      ),
    ];
    nameTypesByLanguage.set(language, types);
  }
  return types;
}

/**
 * Records identifier tokens by row. The search runs inside the runtime in one call (several
 * times faster than stepping a cursor from JavaScript, and safe on deeply nested code).
 * Comments and strings hold no identifier nodes, so they never contribute. Returns undefined
 * if the deadline has passed.
 */
export function identifiersFromTree(tree: Tree, text: string, lineCount: number, deadline: Deadline): string[][] | undefined {
  if (deadline.expired()) return undefined;
  const byLine: string[][] = new Array<string[]>(lineCount);
  for (const node of tree.rootNode.descendantsOfType(nameTypesOf(tree.language))) {
    if (node) record(byLine, node.startPosition.row, text.slice(node.startIndex, Math.min(node.endIndex, node.startIndex + 200)));
  }
  return byLine;
}

/** Identifiers from source lines whose comments and strings are already blanked out. */
export function identifiersFromStrippedLines(strippedLines: readonly string[], keywords: ReadonlySet<string>): string[][] {
  const byLine: string[][] = new Array<string[]>(strippedLines.length);
  const word = /[\p{L}_$][\p{L}\p{N}_$]*/gu;
  strippedLines.forEach((line, row) => {
    for (const match of line.matchAll(word)) {
      if (!keywords.has(match[0])) record(byLine, row, match[0]);
    }
  });
  return byLine;
}

function record(byLine: string[][], row: number, written: string): void {
  const first = written.charCodeAt(0);
  const value = first === 0x24 || first === 0x40 ? written.replace(/^[$@]+/, '') : written;
  if (value.length < 2 || uninformative.has(value) || !isIdentifier(value)) return;
  const list = (byLine[row] ??= []);
  if (list.length < maxIdentifiersPerLine) list.push(value);
}
