import type { SymbolKind } from './chunkParser';
import type { ScanResult } from './regexBraceLanguages';
import type { RawDeclaration, SourceIndex } from './regexScan';

const pythonDeclaration = /^([ \t]*)(?:async[ \t]+)?(def|class)[ \t]+([A-Za-z_]\w*)/gm;
const accessorDecorator = /^@(?:property\b|[A-Za-z_]\w*\.(?:setter|getter|deleter)\b)/;

/**
 * Python classes and functions by pattern. A block ends before the first non-blank line
 * indented no deeper than its keyword; blanked strings and comments count as blank.
 */
export function scanPython(source: SourceIndex): ScanResult {
  const raw: RawDeclaration[] = [];
  const indents = source.strippedLines.map((line) => (line.trim().length === 0 ? -1 : indentWidth(/^[ \t]*/.exec(line)?.[0] ?? '')));
  for (const match of source.stripped.matchAll(pythonDeclaration)) {
    const indent = indentWidth(match[1]);
    const start = (match.index ?? 0) + match[1].length;
    const colon = headerColon(source.stripped, (match.index ?? 0) + match[0].length);
    const headerLine = source.lineOf(colon);
    const endLine = blockEndLine(indents, headerLine, indent);
    const end = Math.max(start, source.lineStart(endLine + 1) - 1);
    const kind: SymbolKind = match[2] === 'class' ? 'class' : isAccessor(source, source.lineOf(start)) ? 'accessor' : 'function';
    raw.push({ kind, segments: [match[3]], start, end, signature: source.signature(start, colon) });
  }
  return { raw, imports: pythonImports(source.strippedLines) };
}

function indentWidth(indent: string): number {
  let width = 0;
  for (const character of indent) width = character === '\t' ? width + 8 - (width % 8) : width + 1;
  return width;
}

/** The `:` that ends a def or class header, past any parenthesised parameters or bases. */
function headerColon(stripped: string, from: number): number {
  let depth = 0;
  const stop = Math.min(stripped.length, from + 4000);
  for (let index = from; index < stop; index++) {
    const character = stripped[index];
    if ('([{'.includes(character)) depth++;
    else if (')]}'.includes(character)) depth = Math.max(0, depth - 1);
    else if (character === ':' && depth === 0) return index;
  }
  return from;
}

/** `indents` holds each line's indentation width, or -1 for a blank line. */
function blockEndLine(indents: readonly number[], headerLine: number, indent: number): number {
  let last = headerLine;
  for (let line = headerLine + 1; line <= indents.length; line++) {
    const width = indents[line - 1];
    if (width < 0) continue;
    if (width <= indent) break;
    last = line;
  }
  return last;
}

/** `@property` and `@x.setter` directly above a def make it an accessor. */
function isAccessor(source: SourceIndex, keywordLine: number): boolean {
  for (let line = keywordLine - 1; line >= 1; line--) {
    const code = (source.strippedLines[line - 1] ?? '').trim();
    if (!code.startsWith('@')) return false;
    if (accessorDecorator.test(code)) return true;
  }
  return false;
}

function pythonImports(lines: readonly string[]): string[] {
  const imports = new Set<string>();
  for (const line of lines) {
    const from = /^\s*from\s+([.\w]+)\s+import\b/.exec(line);
    if (from) {
      imports.add(from[1]);
      continue;
    }
    const plain = /^\s*import\s+(.+)$/.exec(line);
    if (!plain) continue;
    for (const part of plain[1].split(',')) {
      const module = /^\s*([\w.]+)/.exec(part.replace(/[()\\]/g, ''));
      if (module) imports.add(module[1]);
    }
  }
  return [...imports].slice(0, 50);
}
