import type { SymbolKind } from './chunkParser';
import { bareTypeName } from './declarationNaming';
import type { RawDeclaration, SourceIndex } from './regexScan';

/** What a pattern scanner found in one file. */
export interface ScanResult {
  raw: RawDeclaration[];
  imports: string[];
}

const name = '[A-Za-z_$][\\w$]*';
const leading = '^[ \\t]*';
const modifiers = '(?:(?:export|default|declare|abstract|async)\\s+)*';
/** Parameters with at most one level of nested parentheses, then an optional return type. */
const typeParameters = '(?:<[^<>]*(?:<[^<>]*>[^<>]*)*>\\s*)?';
const arrowHead = `(?:async\\s+)?(?:function\\b|${typeParameters}(?:\\([^()]*(?:\\([^()]*\\)[^()]*)*\\)|${name})\\s*(?::[^=;{]+)?=>)`;

interface ScriptPattern {
  kind: SymbolKind;
  pattern: RegExp;
  body: 'brace' | 'statement' | 'arrow';
}

const scriptPatterns: ScriptPattern[] = [
  { kind: 'class', pattern: new RegExp(`${leading}${modifiers}class\\s+(${name})`, 'gm'), body: 'brace' },
  { kind: 'interface', pattern: new RegExp(`${leading}${modifiers}interface\\s+(${name})`, 'gm'), body: 'brace' },
  { kind: 'enum', pattern: new RegExp(`${leading}${modifiers}(?:const\\s+)?enum\\s+(${name})`, 'gm'), body: 'brace' },
  {
    kind: 'namespace',
    pattern: new RegExp(`${leading}${modifiers}(?:namespace|module)\\s+(${name}(?:\\.${name})*)(?=\\s*\\{)`, 'gm'),
    body: 'brace',
  },
  { kind: 'type', pattern: new RegExp(`${leading}${modifiers}type\\s+(${name})\\s*(?:<[^;]*?>)?\\s*=`, 'gm'), body: 'statement' },
  { kind: 'function', pattern: new RegExp(`${leading}${modifiers}function\\s*\\*?\\s*(${name})`, 'gm'), body: 'brace' },
  {
    kind: 'function',
    pattern: new RegExp(`${leading}${modifiers}(?:const|let|var)\\s+(${name})\\s*(?::[^=;]+)?=\\s*${arrowHead}`, 'gm'),
    body: 'arrow',
  },
  {
    kind: 'class',
    pattern: new RegExp(`${leading}${modifiers}(?:const|let|var)\\s+(${name})\\s*(?::[^=;]+)?=\\s*class\\b`, 'gm'),
    body: 'brace',
  },
];

/** `Foo.prototype.bar = function` and `exports.bar = () =>` at the start of a line. */
const assignedFunction = new RegExp(`${leading}((?:module\\.)?exports|${name}\\.prototype)\\.(${name})\\s*=\\s*${arrowHead}`, 'gm');
/** `declare module 'name' {`: the name is a string, so it is read from the original text. */
const ambientModule = new RegExp(`${leading}declare\\s+module\\b`, 'gm');

const memberModifiers = '((?:(?:public|private|protected|static|async|readonly|override|abstract|declare|get|set)\\s+)*)';
const memberMethod = new RegExp(`${leading}${memberModifiers}\\*?\\s*(#?${name})\\s*(?:<[^>\\n]*>)?\\s*\\(`, 'gm');
const memberArrow = new RegExp(`${leading}${memberModifiers}(#?${name})\\s*[?!]?\\s*(?::[^=;\\n]+)?=\\s*${arrowHead}`, 'gm');
const memberClass = new RegExp(`${leading}${memberModifiers}(#?${name})\\s*(?::[^=;\\n]+)?=\\s*class\\b`, 'gm');
const notMethodNames = new Set([
  'if',
  'for',
  'while',
  'switch',
  'catch',
  'with',
  'return',
  'function',
  'new',
  'typeof',
  'delete',
  'await',
  'yield',
  'super',
  'import',
  'else',
  'do',
  'throw',
]);

/** TypeScript and JavaScript declarations, including methods directly inside class bodies. */
export function scanScript(source: SourceIndex): ScanResult {
  const raw: RawDeclaration[] = [];
  const containers: Array<{ open: number; close: number }> = [];
  for (const { kind, pattern, body } of scriptPatterns) {
    for (const match of source.stripped.matchAll(pattern)) {
      const start = keywordOffset(match);
      const afterName = (match.index ?? 0) + match[0].length;
      const range =
        body === 'brace'
          ? braceRange(source, start, afterName)
          : body === 'arrow'
            ? arrowRange(source, afterName, match[0].endsWith('function'))
            : { open: undefined, end: source.statementEnd(afterName) };
      raw.push({ kind, segments: match[1].split('.'), start, end: range.end, signature: source.signature(start, range.open) });
      if ((kind === 'class' || kind === 'interface') && range.open !== undefined) containers.push({ open: range.open, close: range.end });
    }
  }
  for (const match of source.stripped.matchAll(assignedFunction)) {
    const start = keywordOffset(match);
    const range = arrowRange(source, (match.index ?? 0) + match[0].length, match[0].endsWith('function'));
    const owner = match[1].endsWith('.prototype') ? match[1].slice(0, -'.prototype'.length) : undefined;
    const segments = owner ? [owner, match[2]] : [match[2]];
    raw.push({ kind: owner ? 'method' : 'function', segments, start, end: range.end, signature: source.signature(start, range.open) });
  }
  for (const match of source.stripped.matchAll(ambientModule)) {
    const afterKeyword = (match.index ?? 0) + match[0].length;
    const moduleName = /^\s*['"]([^'"\n]+)['"]/.exec(source.text.slice(afterKeyword, afterKeyword + 300));
    if (!moduleName) continue;
    const start = keywordOffset(match);
    const range = braceRange(source, start, afterKeyword + moduleName[0].length);
    raw.push({ kind: 'module', segments: [moduleName[1]], start, end: range.end, signature: source.signature(start, range.open) });
    if (range.open !== undefined) containers.push({ open: range.open, close: range.end });
  }
  // Member classes (`static Entry = class {...}`) are containers too, so the list grows as it is read.
  for (let index = 0; index < containers.length && index < 2000; index++) {
    for (const member of scanMembers(source, containers[index])) {
      raw.push(member);
      if (member.kind === 'class' && member.bodyOpen !== undefined) containers.push({ open: member.bodyOpen, close: member.end });
    }
  }
  return { raw, imports: scriptImports(source) };
}

function scanMembers(source: SourceIndex, container: { open: number; close: number }): Array<RawDeclaration & { bodyOpen?: number }> {
  const members: Array<RawDeclaration & { bodyOpen?: number }> = [];
  const bodyDepth = source.depthAt(container.open) + 1;
  const body = source.stripped.slice(0, container.close);
  for (const pattern of [memberClass, memberArrow, memberMethod]) {
    pattern.lastIndex = container.open + 1;
    for (let match = pattern.exec(body); match; match = pattern.exec(body)) {
      const start = keywordOffset(match);
      const memberName = match[2];
      if (source.depthAt(start) !== bodyDepth || notMethodNames.has(memberName) || members.some((member) => member.start === start))
        continue;
      const afterName = match.index + match[0].length;
      const range =
        pattern === memberArrow
          ? arrowRange(source, afterName, match[0].endsWith('function'))
          : braceRange(source, start, pattern === memberClass ? afterName : afterName - 1);
      const kind: SymbolKind = pattern === memberClass ? 'class' : /\b(get|set)\s+$/.test(match[1]) ? 'accessor' : 'method';
      members.push({
        kind,
        segments: [memberName],
        start,
        end: range.end,
        signature: source.signature(start, range.open),
        bodyOpen: range.open,
      });
    }
  }
  return members;
}

/** Offset of the first non-blank character of a line-anchored match. */
function keywordOffset(match: RegExpMatchArray): number {
  return (match.index ?? 0) + (match[0].length - match[0].trimStart().length);
}

/** A header's body from its `{` to the matching `}`, or just the header when it has none. */
function braceRange(source: SourceIndex, start: number, from: number): { open: number | undefined; end: number } {
  const open = source.bodyBrace(from);
  const close = open === undefined ? undefined : source.closingBrace(open);
  if (open === undefined || close === undefined) return { open: undefined, end: source.statementEnd(from) };
  return { open, end: Math.max(start, close) };
}

/**
 * The body of a bound function: after `function` a header and braces follow; after `=>`
 * either braces or a single expression statement.
 */
function arrowRange(source: SourceIndex, after: number, afterFunctionKeyword: boolean): { open: number | undefined; end: number } {
  if (afterFunctionKeyword) return braceRange(source, after, after);
  let first = after;
  while (first < source.stripped.length && /\s/.test(source.stripped[first])) first++;
  const close = source.stripped[first] === '{' ? source.closingBrace(first) : undefined;
  if (close !== undefined) return { open: first, end: close };
  return { open: undefined, end: source.statementEnd(after) };
}

const scriptImportStart = /^[ \t]*(?:import\b|export\b[^;\n]*\bfrom\b)|\brequire\s*\(/gm;

function scriptImports(source: SourceIndex): string[] {
  const imports = new Set<string>();
  for (const match of source.stripped.matchAll(scriptImportStart)) {
    const window = source.text.slice(match.index ?? 0, (match.index ?? 0) + 500);
    const specifier = /(?:from\s*|import\s*|require\s*\(\s*)['"]([^'"\n]+)['"]/.exec(window);
    if (specifier) imports.add(specifier[1]);
    if (imports.size >= 50) break;
  }
  return [...imports];
}

const goFunction = /^func[ \t]*(?:\(([^)]*)\)[ \t]*)?([A-Za-z_]\w*)/gm;
const goType = /^type[ \t]+([A-Za-z_]\w*)[ \t]*(?:\[[^\]\n]*\])?[ \t]*=?[ \t]*(struct|interface)?/gm;
const goTypeGroup = /^type[ \t]*\(/gm;
const goGroupedType = /^[ \t]+([A-Za-z_]\w*)[ \t]*(?:\[[^\]\n]*\])?[ \t]*=?[ \t]*(struct|interface)?/gm;
const goFunctionVariable = /^var[ \t]+([A-Za-z_]\w*)[^=\n]*=[ \t]*func\b/gm;

/** Go functions, methods (as `Recv.Method`), types and function variables. */
export function scanGo(source: SourceIndex): ScanResult {
  const raw: Array<RawDeclaration & { bodyOpen?: number }> = [];
  for (const match of source.stripped.matchAll(goFunction)) {
    const start = match.index ?? 0;
    const range = braceRange(source, start, start + match[0].length);
    const receiver = match[1]
      ?.replace(/\[[^\]]*\]/g, '')
      .trim()
      .split(/\s+/)
      .pop();
    const segments = receiver ? [bareTypeName(receiver), match[2]] : [match[2]];
    raw.push({ kind: receiver ? 'method' : 'function', segments, start, end: range.end, signature: source.signature(start, range.open) });
  }
  for (const match of source.stripped.matchAll(goType)) raw.push(goTypeDeclaration(source, match, match.index ?? 0));
  for (const group of source.stripped.matchAll(goTypeGroup)) {
    const groupStart = group.index ?? 0;
    const groupDepth = source.depthAt(groupStart);
    const close = parenClose(source.stripped, groupStart + group[0].length - 1);
    goGroupedType.lastIndex = groupStart + group[0].length;
    const region = source.stripped.slice(0, close);
    for (let match = goGroupedType.exec(region); match; match = goGroupedType.exec(region)) {
      const start = keywordOffset(match);
      if (source.depthAt(start) === groupDepth + 1) raw.push(goTypeDeclaration(source, match, start));
    }
  }
  for (const declaration of [...raw]) {
    if (declaration.kind === 'interface') raw.push(...goInterfaceMethods(source, declaration));
  }
  for (const match of source.stripped.matchAll(goFunctionVariable)) {
    const start = match.index ?? 0;
    const range = arrowRange(source, start + match[0].length, true);
    raw.push({ kind: 'function', segments: [match[1]], start, end: range.end, signature: source.signature(start, range.open) });
  }
  return { raw, imports: goImports(source) };
}

function goTypeDeclaration(
  source: SourceIndex,
  match: RegExpExecArray | RegExpMatchArray,
  start: number,
): RawDeclaration & { bodyOpen?: number } {
  const shape = match[2];
  const afterHeader = (match.index ?? 0) + match[0].length;
  const range = shape ? braceRange(source, start, afterHeader) : { open: undefined, end: source.statementEnd(afterHeader) };
  const kind: SymbolKind = shape === 'struct' ? 'struct' : shape === 'interface' ? 'interface' : 'type';
  return { kind, segments: [match[1]], start, end: range.end, signature: source.signature(start, range.open), bodyOpen: range.open };
}

const goInterfaceMethod = /^[ \t]+([A-Za-z_]\w*)[ \t]*\(/gm;

/** Method lines directly inside an interface body become `Interface.Method`. */
function goInterfaceMethods(source: SourceIndex, declaration: RawDeclaration & { bodyOpen?: number }): RawDeclaration[] {
  if (declaration.bodyOpen === undefined) return [];
  const methods: RawDeclaration[] = [];
  const bodyDepth = source.depthAt(declaration.bodyOpen) + 1;
  const region = source.stripped.slice(0, declaration.end);
  goInterfaceMethod.lastIndex = declaration.bodyOpen + 1;
  for (let match = goInterfaceMethod.exec(region); match; match = goInterfaceMethod.exec(region)) {
    const start = keywordOffset(match);
    if (source.depthAt(start) !== bodyDepth) continue;
    const end = source.lineStart(source.lineOf(start) + 1) - 1;
    methods.push({ kind: 'method', segments: [match[1]], start, end, signature: source.signature(start, undefined) });
  }
  return methods;
}

function parenClose(text: string, open: number): number {
  let depth = 0;
  for (let index = open; index < text.length; index++) {
    if (text[index] === '(') depth++;
    else if (text[index] === ')' && --depth === 0) return index;
  }
  return text.length;
}

function goImports(source: SourceIndex): string[] {
  const imports = new Set<string>();
  for (const match of source.stripped.matchAll(/^import[ \t]*(\()?/gm)) {
    const start = match.index ?? 0;
    const end = match[1] ? parenClose(source.stripped, start + match[0].length - 1) : source.lineStart(source.lineOf(start) + 1);
    for (const path of source.text.slice(start, end).matchAll(/"([^"\n]+)"|`([^`\n]+)`/g)) imports.add(path[1] ?? path[2]);
  }
  return [...imports].slice(0, 50);
}
