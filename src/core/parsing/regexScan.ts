import type { ChunkSymbol, SymbolKind } from './chunkParser';
import type { Declaration } from './chunkSplitter';
import type { LanguageRules } from './declarationNaming';

/** A declaration found by pattern, before nesting gives it a parent and a qualified name. */
export interface RawDeclaration {
  kind: SymbolKind;
  /** Scope written in the declaration itself (a Go receiver) followed by the simple name. */
  segments: string[];
  /** Offset of the declaration keyword (after indentation). */
  start: number;
  /** Offset of the declaration's last character. */
  end: number;
  signature: string;
}

const maxNesting = 16;
const maxDeclarations = 4000;

/**
 * Offsets, lines and brace structure of one source text and its stripped twin (same length,
 * comments and strings blanked), shared by the pattern scanners.
 */
export class SourceIndex {
  readonly strippedLines: string[];
  private readonly lineStarts: number[] = [0];
  private readonly closeOf = new Map<number, number>();
  private readonly depthBefore: Int32Array;

  constructor(
    readonly text: string,
    readonly stripped: string,
  ) {
    this.strippedLines = stripped.split(/\r\n|\r|\n/);
    const opens: number[] = [];
    this.depthBefore = new Int32Array(stripped.length + 1);
    for (let index = 0; index < stripped.length; index++) {
      const character = stripped[index];
      this.depthBefore[index] = opens.length;
      if (character === '\n' || (character === '\r' && stripped[index + 1] !== '\n')) this.lineStarts.push(index + 1);
      else if (character === '{' || character === '(' || character === '[') opens.push(index);
      else if (character === '}' || character === ')' || character === ']') closeBracket(stripped, opens, index, this.closeOf);
    }
    this.depthBefore[stripped.length] = opens.length;
  }

  /** 1-based line of an offset. */
  lineOf(offset: number): number {
    let low = 0;
    let high = this.lineStarts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (this.lineStarts[middle] <= offset) low = middle;
      else high = middle - 1;
    }
    return low + 1;
  }

  lineStart(line: number): number {
    return this.lineStarts[line - 1] ?? this.text.length;
  }

  /** Number of unclosed brackets of any kind before an offset, so members are told from arguments. */
  depthAt(offset: number): number {
    return this.depthBefore[Math.min(Math.max(0, offset), this.depthBefore.length - 1)];
  }

  closingBrace(open: number): number | undefined {
    return this.closeOf.get(open);
  }

  /**
   * The `{` that opens a body after a header, skipping balanced parentheses and brackets
   * (parameters may hold braces); undefined when a `;` ends the header first (an overload).
   */
  bodyBrace(from: number, limit = 4000): number | undefined {
    let depth = 0;
    // In a header, `<` opens type arguments (`extends Base<{ a: T }>`), whose braces are types.
    let angles = 0;
    const stop = Math.min(this.stripped.length, from + limit);
    for (let index = from; index < stop; index++) {
      const character = this.stripped[index];
      if (character === '(' || character === '[') depth++;
      else if (character === ')' || character === ']') depth = Math.max(0, depth - 1);
      else if (depth > 0) continue;
      else if (character === '<') angles++;
      else if (character === '>' && this.stripped[index - 1] !== '=') angles = Math.max(0, angles - 1);
      else if (angles > 0) continue;
      else if (character === '{') return index;
      else if (character === ';') return undefined;
    }
    return undefined;
  }

  /**
   * The last offset of an expression statement starting at `from`: a `;` or a line break at
   * nesting depth zero, unless the next line continues a union (`|`) or intersection (`&`).
   */
  statementEnd(from: number, limit = 20000): number {
    let depth = 0;
    const stop = Math.min(this.stripped.length, from + limit);
    for (let index = from; index < stop; index++) {
      const character = this.stripped[index];
      if ('([{'.includes(character)) depth++;
      else if (')]}'.includes(character)) {
        if (depth === 0) return Math.max(from, index - 1);
        depth--;
      } else if (depth === 0 && character === ';') return index;
      else if (depth === 0 && (character === '\n' || character === '\r')) {
        const rest = this.stripped.slice(index, index + 200).trimStart();
        if (!/^[|&]/.test(rest) && !/[=|&,(]\s*$/.test(this.stripped.slice(Math.max(from, index - 80), index)))
          return Math.max(from, index - 1);
      }
    }
    return stop - 1;
  }

  /** The header from a keyword to its body (or line end), collapsed to one line of original text. */
  signature(start: number, bodyOpen: number | undefined): string {
    const lineEnd = this.lineStart(this.lineOf(start) + 1) - 1;
    const end = bodyOpen !== undefined && bodyOpen - start < 600 ? bodyOpen : Math.min(lineEnd, start + 600);
    const collapsed = this.text
      .slice(start, end)
      .replace(/\s+/g, ' ')
      .trim()
      .replace(/\s*[{:;=]\s*$/, '');
    return collapsed.length > 200 ? `${collapsed.slice(0, 199)}…` : collapsed;
  }

  /**
   * The first line of a declaration's chunk: back over doc comments and decorators written
   * directly above the keyword line. Lines inside a multi-line decorator call are taken only
   * once the `@` line that opens the call is found.
   */
  preambleStart(keywordLine: number, decoratorPrefix: string): number {
    let committed = keywordLine;
    let unclosed = 0;
    for (let line = keywordLine - 1; line >= 1; line--) {
      const original = this.text.slice(this.lineStart(line), this.lineStart(line + 1)).trim();
      if (original.length === 0) break;
      const code = (this.strippedLines[line - 1] ?? '').trim();
      if (code.length === 0) {
        if (unclosed === 0) committed = line;
        continue;
      }
      unclosed += count(code, ')') - count(code, '(');
      if (code.startsWith(decoratorPrefix) && isDecoratorOnly(code, decoratorPrefix)) {
        if (unclosed <= 0) {
          unclosed = 0;
          committed = line;
        }
        continue;
      }
      if (unclosed <= 0) break;
    }
    return committed;
  }
}

const openerOf: Record<string, string> = { '}': '{', ')': '(', ']': '[' };

/**
 * Pops the opener a closing bracket matches. A stray closer (left by a misread regex literal or
 * JSX text) is ignored, and unclosed openers above a match are dropped, so one slip does not
 * shift every later pairing.
 */
function closeBracket(stripped: string, opens: number[], index: number, closeOf: Map<number, number>): void {
  const opener = openerOf[stripped[index]];
  for (let depth = opens.length - 1; depth >= Math.max(0, opens.length - 4); depth--) {
    if (stripped[opens[depth]] !== opener) continue;
    if (opener === '{') closeOf.set(opens[depth], index);
    opens.length = depth;
    return;
  }
}

/**
 * True for a line of decorators alone (`@a @b(x)`), or one that opens a multi-line decorator
 * call; `@Input() name: string;` is a decorated member, not a decorator of the next line.
 */
function isDecoratorOnly(code: string, decoratorPrefix: string): boolean {
  let rest = code;
  while (rest.startsWith(decoratorPrefix)) {
    rest = rest.slice(decoratorPrefix.length).replace(/^[\w$.]+\s*/, '');
    if (!rest.startsWith('(')) continue;
    let depth = 0;
    let index = 0;
    for (; index < rest.length; index++) {
      if (rest[index] === '(') depth++;
      else if (rest[index] === ')' && --depth === 0) break;
    }
    if (depth > 0) return true;
    rest = rest.slice(index + 1).trimStart();
  }
  return rest.trim().length === 0;
}

function count(text: string, character: string): number {
  let total = 0;
  for (const each of text) if (each === character) total++;
  return total;
}

/**
 * Gives pattern-found declarations parents by containment and turns them into declarations,
 * applying the same naming rules as the tree-sitter extractor.
 */
export function nestDeclarations(raw: RawDeclaration[], source: SourceIndex, rules: LanguageRules, decoratorPrefix: string): Declaration[] {
  const sorted = [...raw].sort((a, b) => a.start - b.start || b.end - a.end);
  const stack: Array<{ raw: RawDeclaration; parts: string[]; kind: SymbolKind; depth: number }> = [];
  const declarations: Declaration[] = [];
  for (const item of sorted) {
    while (stack.length > 0 && stack[stack.length - 1].raw.end < item.start) stack.pop();
    const parent = stack[stack.length - 1];
    const depth = parent ? parent.depth + 1 : 0;
    if (parent && (depth >= maxNesting || declarations.length >= maxDeclarations)) {
      // Stacked for nesting but unnamed, so pathological nesting costs no quadratic memory.
      stack.push({ ...parent, raw: item, depth });
      continue;
    }
    const parts = [...(parent?.parts ?? []), ...item.segments];
    const name = parts[parts.length - 1];
    let kind = item.kind;
    if (kind === 'function' && parent && rules.methodContainers.has(parent.kind)) kind = 'method';
    if (kind === 'method' && rules.constructorNames.has(name)) kind = 'constructor';
    stack.push({ raw: item, parts, kind, depth });
    if (declarations.length >= maxDeclarations) continue;
    const startLine = source.lineOf(item.start);
    const symbol: ChunkSymbol = {
      name,
      qualifiedName: parts.join('.'),
      kind,
      signature: item.signature,
      startLine,
      endLine: Math.max(startLine, source.lineOf(item.end)),
    };
    if (parts.length > 1) symbol.parent = parts.slice(0, -1).join('.');
    declarations.push({ symbol, chunkStartLine: source.preambleStart(startLine, decoratorPrefix) });
  }
  return declarations;
}
