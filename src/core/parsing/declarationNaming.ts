import type { Node } from 'web-tree-sitter';
import type { SymbolKind } from './chunkParser';

/**
 * Per-language naming rules that a tag query cannot express: which containers turn functions
 * into methods and which method names are constructors.
 */
export interface LanguageRules {
  methodContainers: ReadonlySet<SymbolKind>;
  constructorNames: ReadonlySet<string>;
  /** C++ constructors are named after their class rather than marked by syntax. */
  constructorIsClassName: boolean;
  /** C++ `Foo::bar` may name a class or a namespace; decide by what the file declares. */
  scopedNamesMayBeNamespaces: boolean;
}

const typeContainers: SymbolKind[] = ['class', 'struct', 'interface', 'trait', 'impl', 'enum'];

const baseRules: LanguageRules = {
  methodContainers: new Set(typeContainers),
  constructorNames: new Set(),
  constructorIsClassName: false,
  scopedNamesMayBeNamespaces: false,
};

const rulesByLanguage: Record<string, LanguageRules> = {
  typescript: { ...baseRules, constructorNames: new Set(['constructor']) },
  tsx: { ...baseRules, constructorNames: new Set(['constructor']) },
  javascript: { ...baseRules, constructorNames: new Set(['constructor']) },
  python: { ...baseRules, constructorNames: new Set(['__init__']) },
  php: { ...baseRules, constructorNames: new Set(['__construct']) },
  ruby: { ...baseRules, methodContainers: new Set([...typeContainers, 'module']), constructorNames: new Set(['initialize']) },
  cpp: { ...baseRules, constructorIsClassName: true, scopedNamesMayBeNamespaces: true },
  c: { ...baseRules, constructorIsClassName: true, scopedNamesMayBeNamespaces: true },
};

export function rulesFor(language: string): LanguageRules {
  return rulesByLanguage[language] ?? baseRules;
}

/** Nodes that precede a declaration's keyword but belong to its chunk: decorators, attributes, comments. */
const preambleTypes = new Set([
  'decorator',
  'annotation',
  'marker_annotation',
  'attribute_list',
  'attribute_item',
  'attributes',
  'comment',
  'line_comment',
  'block_comment',
  'doc_comment',
]);

/** Parents that wrap a declaration without being one; the chunk starts where they start. */
const wrapperTypes = new Set([
  'export_statement',
  'decorated_definition',
  'template_declaration',
  'ambient_declaration',
  'type_declaration',
  'var_declaration',
]);

export function isPreamble(node: Node): boolean {
  return preambleTypes.has(node.type) || node.type.endsWith('comment');
}

/** The first token of a declaration that is not a decorator, attribute or comment. */
export function keywordToken(node: Node): Node {
  let current = node;
  for (let depth = 0; depth < 8; depth++) {
    let next: Node | null = null;
    for (let index = 0; index < current.childCount; index++) {
      const child = current.child(index);
      if (child && !isPreamble(child)) {
        next = child;
        break;
      }
    }
    if (!next) return current;
    if (next.childCount === 0) return next;
    current = next;
  }
  return current;
}

/** The last row a node really occupies: a node ending at column 0 ends on the previous line. */
export function lastRow(node: Node): number {
  const end = node.endPosition;
  return end.column === 0 && end.row > node.startPosition.row ? end.row - 1 : end.row;
}

/**
 * The row where a declaration's chunk starts: through wrappers such as `export` and
 * `template <...>`, then back over decorators and doc comments written directly above it.
 */
export function chunkStartRow(node: Node, lines: readonly string[], parent: Node | null = node.parent): number {
  // Each `parent` is a call into the parser's memory that builds a new node, so every one is
  // asked for once: the declaration's comes from the caller, and the last one asked for is the
  // container of the anchor.
  let anchor = node;
  let container = parent;
  for (let depth = 0; depth < 3; depth++) {
    if (!container || !wrapperTypes.has(container.type) || !onlyPreambleBefore(container, anchor)) break;
    anchor = container;
    container = anchor.parent;
  }
  let row = anchor.startPosition.row;
  // Ruby puts a class's doc comment before the body node that begins with the class itself.
  let previous = anchor.previousSibling ?? (container && container.startIndex === anchor.startIndex ? container.previousSibling : null);
  while (previous && isPreamble(previous) && lastRow(previous) >= row - 1 && startsLine(previous, lines)) {
    row = previous.startPosition.row;
    previous = previous.previousSibling;
  }
  return row;
}

function onlyPreambleBefore(parent: Node, child: Node): boolean {
  for (let index = 0; index < parent.namedChildCount; index++) {
    const sibling = parent.namedChild(index);
    if (!sibling || sibling.startIndex >= child.startIndex) return true;
    if (!isPreamble(sibling) && sibling.type !== 'template_parameter_list') return false;
  }
  return true;
}

/** True when only whitespace precedes the node on its line, so it is not a trailing comment. */
function startsLine(node: Node, lines: readonly string[]): boolean {
  const { row, column } = node.startPosition;
  return (lines[row] ?? '').slice(0, column).trim().length === 0;
}

/** The node where a declaration's body begins, so the signature can stop there. */
function bodyOf(node: Node): Node | null {
  const direct = node.childForFieldName('body') ?? node.childForFieldName('accessors');
  if (direct) return direct;
  // `const f = () => {...}` and Go's `var f = func() {...}` keep the body inside the bound value.
  for (const holder of [node, ...node.namedChildren]) {
    let value = holder?.childForFieldName('value') ?? null;
    if (value?.type === 'expression_list') value = value.firstNamedChild;
    const body = value?.childForFieldName('body');
    if (body && (body.type === 'statement_block' || body.type === 'block')) return body;
  }
  return null;
}

/** Go writes `type`/`var` on the enclosing group, so a lone spec's signature starts there. */
function signatureStart(parent: Node | null, keywordStart: number): number {
  const single = parent && (parent.type === 'type_declaration' || parent.type === 'var_declaration') && parent.namedChildCount === 1;
  return single ? parent.startIndex : keywordStart;
}

/** One line from the keyword to the body, whitespace collapsed; the first line when there is no body. */
export function signatureOf(node: Node, keywordStart: number, text: string, parent: Node | null = node.parent): string {
  const start = signatureStart(parent, keywordStart);
  const body = bodyOf(node);
  const end = Math.min(body && body.startIndex > start ? body.startIndex : node.endIndex, start + 600);
  let slice = withoutComments(node, start, end, text);
  if (!body) slice = slice.split('\n', 1)[0].split(' {', 1)[0].split(';', 1)[0];
  const collapsed = slice
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/\s*[{:;=]\s*$/, '');
  return collapsed.length > 200 ? `${collapsed.slice(0, 199)}…` : collapsed;
}

/** The text between two offsets minus the declaration's own comments (Ruby keeps them as children). */
function withoutComments(node: Node, start: number, end: number, text: string): string {
  let result = '';
  let from = start;
  for (const child of node.children) {
    if (!child || child.startIndex >= end) break;
    if (child.startIndex < from || !child.type.endsWith('comment')) continue;
    result += text.slice(from, child.startIndex);
    from = child.endIndex;
  }
  return result + text.slice(from, end);
}

/**
 * Splits a written name into its scope and its own name: `Foo::bar` → [Foo, bar],
 * `App\Models` → [App, Models], `N.M` → [N, M]; template and generic arguments are dropped.
 */
export function nameSegments(written: string): string[] {
  const trimmed = written.trim();
  if (/^['"`]/.test(trimmed)) return [trimmed.replace(/^['"`]|['"`]$/g, '')];
  // Operator names such as Ruby's `<=>` or C++'s `operator<` are names, not paths with arguments.
  if (!/^[\p{L}_$~]/u.test(trimmed) || /^operator\b/.test(trimmed)) return [trimmed.replace(/\s+/g, ' ')];
  const segments: string[] = [];
  for (const part of stripTypeArguments(trimmed).split(/::|\\|\./)) {
    const clean = part.replace(/[\s*&]+/g, '');
    if (clean) segments.push(clean);
  }
  const operatorAt = trimmed.search(/\boperator\b/);
  if (operatorAt > 0 && segments.length > 0) segments[segments.length - 1] = trimmed.slice(operatorAt).replace(/\s+/g, ' ');
  return segments;
}

/** The bare type a Go receiver or Rust impl is about: no pointer, reference, package or type arguments. */
export function bareTypeName(written: string): string {
  const segments = nameSegments(written.replace(/^[\s*&(]+|[\s)]+$/g, '').replace(/^(mut|dyn)\s+/, ''));
  return segments[segments.length - 1] ?? written.trim();
}

function stripTypeArguments(written: string): string {
  let depth = 0;
  let result = '';
  for (const character of written) {
    if (character === '<' || character === '[') depth++;
    else if (character === '>' || character === ']') depth = Math.max(0, depth - 1);
    else if (depth === 0) result += character;
  }
  return result;
}

/** Function names in C and C++ sit inside declarators; returns the name node or nothing. */
export function declaratorName(declarator: Node): Node | null {
  let current: Node | null = declarator;
  for (let depth = 0; current && depth < 8; depth++) {
    switch (current.type) {
      case 'function_declarator': {
        const inner = current.childForFieldName('declarator');
        return inner && isCallableName(inner) ? inner : null;
      }
      case 'pointer_declarator':
      case 'reference_declarator':
      case 'attributed_declarator':
        current = current.childForFieldName('declarator') ?? current.lastNamedChild;
        break;
      default:
        return null;
    }
  }
  return null;
}

function isCallableName(node: Node): boolean {
  return ['identifier', 'field_identifier', 'qualified_identifier', 'destructor_name', 'operator_name', 'template_function'].includes(
    node.type,
  );
}

/** C and C++ prototypes count only at file, namespace, class or linkage level, never inside a body. */
export function isDeclarationScope(node: Node): boolean {
  let current = node.parent;
  for (let depth = 0; current && depth < 8; depth++) {
    switch (current.type) {
      case 'translation_unit':
      case 'declaration_list':
      case 'field_declaration_list':
        return true;
      case 'compound_statement':
      case 'function_definition':
      case 'parameter_list':
        return false;
      default:
        current = current.parent;
    }
  }
  return false;
}
