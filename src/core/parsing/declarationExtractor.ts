import type { Node, Query, QueryMatch, Tree } from 'web-tree-sitter';
import type { ChunkSymbol, SymbolKind } from './chunkParser';
import type { Declaration } from './chunkSplitter';
import {
  bareTypeName,
  chunkStartRow,
  declaratorName,
  isDeclarationScope,
  keywordToken,
  lastRow,
  nameSegments,
  rulesFor,
  signatureOf,
  type LanguageRules,
} from './declarationNaming';

/** Work stops, and the parse declines, once this says the time bound has passed. */
export interface Deadline {
  expired(): boolean;
}

export interface Extraction {
  declarations: Declaration[];
  imports: string[];
}

/** Declarations nested deeper than this are left inside their ancestors' chunks. */
const maxNesting = 16;
/** A generated file can declare thousands of things; past this the rest stay in windows. */
const maxDeclarations = 4000;
const maxImports = 50;

interface Candidate {
  node: Node;
  patternIndex: number;
  kind: SymbolKind;
  /** Scope written in the name itself (`Foo::bar`, Go receiver) followed by the simple name. */
  segments: string[];
  /** `Foo.prototype.bar = function` is a method of Foo even though it is an assignment. */
  prototypeMember: boolean;
  /** Where the declaration stops enclosing later ones; a body-less namespace reaches further. */
  scopeEnd: number;
}

interface Placed {
  candidate: Candidate;
  qualifiedParts: string[];
  kind: SymbolKind;
  depth: number;
}

/**
 * Runs a language's tag query over a tree (and any error-recovery trees) and turns the matches
 * into declarations with qualified names, parents, kinds, signatures and chunk ranges.
 * Returns undefined on timeout.
 */
export function extractDeclarations(
  trees: readonly Tree[],
  query: Query,
  language: string,
  text: string,
  lines: readonly string[],
  deadline: Deadline,
): Extraction | undefined {
  const imports = new Set<string>();
  const byNode = new Map<string, Candidate>();
  // Trees after the first re-parse error regions; keying by offset lets the first tree win.
  for (const tree of trees) {
    const matches = query.matches(tree.rootNode, { progressCallback: () => deadline.expired() });
    if (deadline.expired()) return undefined;
    const fromTree = new Map<string, Candidate>();
    for (const match of matches) {
      const candidate = readMatch(match, text, imports);
      if (!candidate) continue;
      const key = `${candidate.node.startIndex}:${candidate.segments.join('.')}`;
      const existing = fromTree.get(key);
      if (!existing || existing.patternIndex > candidate.patternIndex) fromTree.set(key, candidate);
    }
    for (const [key, candidate] of fromTree) if (!byNode.has(key)) byNode.set(key, candidate);
  }
  const candidates = [...byNode.values()].filter((candidate) => !isTypedefOfNamedType(candidate, text));
  markOpenEndedScopes(candidates, text.length);
  candidates.sort((a, b) => a.node.startIndex - b.node.startIndex || b.node.endIndex - a.node.endIndex);

  const rules = rulesFor(language);
  const namespaces = new Set(candidates.filter((c) => c.kind === 'namespace').map((c) => c.segments[c.segments.length - 1]));
  const declarations: Declaration[] = [];
  const stack: Placed[] = [];
  for (const candidate of candidates) {
    while (stack.length > 0 && stack[stack.length - 1].candidate.scopeEnd <= candidate.node.startIndex) stack.pop();
    const parent = stack[stack.length - 1];
    const depth = parent ? parent.depth + 1 : 0;
    if (parent && (depth >= maxNesting || declarations.length >= maxDeclarations)) {
      // Too deep or too many: still stacked so descendants nest correctly, but no names are
      // built, which would cost quadratic memory on pathologically nested code.
      stack.push({ ...parent, candidate, depth });
      continue;
    }
    const placed: Placed = {
      candidate,
      qualifiedParts: [...(parent?.qualifiedParts ?? []), ...candidate.segments],
      kind: decideKind(candidate, parent, rules, namespaces),
      depth,
    };
    stack.push(placed);
    if (declarations.length < maxDeclarations) declarations.push(toDeclaration(placed, text, lines));
  }
  return { declarations, imports: [...imports].slice(0, maxImports) };
}

function readMatch(match: QueryMatch, text: string, imports: Set<string>): Candidate | undefined {
  let definition: Node | undefined;
  let kind: SymbolKind | undefined;
  const parts: Record<string, Node> = {};
  for (const capture of match.captures) {
    if (capture.name === 'import') {
      const specifier = normalizeImport(textOf(capture.node, text));
      if (specifier && imports.size < maxImports) imports.add(specifier);
    } else if (capture.name.startsWith('definition.')) {
      definition = capture.node;
      kind = capture.name.slice('definition.'.length) as SymbolKind;
    } else {
      parts[capture.name] = capture.node;
    }
  }
  if (!definition || !kind) return undefined;

  let nameNode: Node | null = parts.name ?? null;
  if (parts.declarator) {
    if (definition.type !== 'function_definition' && !isDeclarationScope(definition)) return undefined;
    nameNode = declaratorName(parts.declarator);
  }
  if (!nameNode) return undefined;
  let segments = nameSegments(textOf(nameNode, text));
  if (segments.length === 0) return undefined;
  if (kind === 'impl') segments = [bareTypeName(textOf(nameNode, text))];
  if (parts.receiver) segments = [bareTypeName(textOf(parts.receiver, text)), segments[segments.length - 1]];
  if (definition.type === 'destructor_declaration') segments[segments.length - 1] = `~${segments[segments.length - 1]}`;

  let prototypeMember = false;
  if (parts.scope) {
    const owner = textOf(parts.scope, text).replace(/\s+/g, '');
    if (owner === 'this') return undefined;
    prototypeMember = /\.prototype$/.test(owner);
    const ownerSegments = /^(module\.exports|exports|module)$/.test(owner) ? [] : owner.replace(/\.prototype$/, '').split('.');
    segments = [...ownerSegments, ...segments];
  }
  return { node: definition, patternIndex: match.patternIndex, kind, segments, prototypeMember, scopeEnd: definition.endIndex };
}

/** `typedef struct Point {...} Point;` is one declaration: the struct, not also a type alias. */
function isTypedefOfNamedType(candidate: Candidate, text: string): boolean {
  if (candidate.node.type !== 'type_definition' || candidate.kind !== 'type') return false;
  const typeName = candidate.node.childForFieldName('type')?.childForFieldName('name');
  return typeName !== null && typeName !== undefined && textOf(typeName, text) === candidate.segments[candidate.segments.length - 1];
}

/**
 * C#'s `namespace X;` and PHP's `namespace X;` have no braces: they enclose everything up to
 * the next such statement or the end of the file.
 */
function markOpenEndedScopes(candidates: Candidate[], textLength: number): void {
  const openEnded = candidates
    .filter((c) => (c.kind === 'namespace' || c.kind === 'module') && !c.node.childForFieldName('body'))
    .sort((a, b) => a.node.startIndex - b.node.startIndex);
  openEnded.forEach((candidate, index) => {
    candidate.scopeEnd = openEnded[index + 1]?.node.startIndex ?? textLength;
  });
}

function decideKind(candidate: Candidate, parent: Placed | undefined, rules: LanguageRules, namespaces: ReadonlySet<string>): SymbolKind {
  const name = candidate.segments[candidate.segments.length - 1];
  const writtenScope = candidate.segments.length > 1 ? candidate.segments[candidate.segments.length - 2] : undefined;
  let kind = candidate.kind;
  if (kind === 'function') {
    if (parent && rules.methodContainers.has(parent.kind)) kind = 'method';
    else if (candidate.prototypeMember) kind = 'method';
    else if (rules.scopedNamesMayBeNamespaces && writtenScope !== undefined && !namespaces.has(writtenScope)) kind = 'method';
  }
  if (kind === 'method') {
    const owner = writtenScope ?? parent?.qualifiedParts[parent.qualifiedParts.length - 1];
    if (rules.constructorNames.has(name) || (rules.constructorIsClassName && owner === name)) kind = 'constructor';
  }
  return kind;
}

function toDeclaration(placed: Placed, text: string, lines: readonly string[]): Declaration {
  const node = placed.candidate.node;
  const keyword = keywordToken(node);
  // The declaration's parent, asked for once for the signature and the chunk's start.
  const parent = node.parent;
  const qualifiedName = placed.qualifiedParts.join('.');
  const symbol: ChunkSymbol = {
    name: placed.qualifiedParts[placed.qualifiedParts.length - 1],
    qualifiedName,
    kind: placed.kind,
    signature: signatureOf(node, keyword.startIndex, text, parent),
    startLine: keyword.startPosition.row + 1,
    endLine: lastRow(node) + 1,
  };
  if (placed.qualifiedParts.length > 1) symbol.parent = placed.qualifiedParts.slice(0, -1).join('.');
  return { symbol, chunkStartLine: Math.min(chunkStartRow(node, lines, parent), keyword.startPosition.row) + 1 };
}

function normalizeImport(written: string): string {
  return written
    .replace(/^['"<]|['">]$/g, '')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 200);
}

function textOf(node: Node, text: string): string {
  return text.slice(node.startIndex, Math.min(node.endIndex, node.startIndex + 500));
}
