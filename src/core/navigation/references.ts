import * as path from 'node:path';
import { languageForPath } from '../language';
import { dialectFor, stripCommentsAndStrings } from '../parsing/sourceStripper';
import { citationOf } from '../retrieval/retrieve';
import type { SymbolRow } from '../store';
import type { SyncContext } from '../sync';
import { splitLines } from '../tokens';
import { NavigationInputError } from './inputError';
import { isTestPath, withLiveCheck, type CurrentFile, type SymbolMatch } from './live';
import { currentMatches, lookupDeclarations, normalizeSymbolName, simpleNameOf } from './symbols';

export interface ReferencesInput {
  symbol: string;
  /** A file or folder holding the declaration, to pick one among declarations of the same name. */
  path?: string;
  limit?: number;
}

export interface Caller {
  qualifiedName: string;
  kind: string;
  startLine: number;
  endLine: number;
}

export interface Reference {
  path: string;
  line: number;
  column: number;
  /** The referencing line, trimmed and cut at 200 characters. */
  text: string;
  /** The innermost declaration holding the use; null at a file's top level. */
  caller: Caller | null;
  /**
   * `extracted`: a parsed identifier (not in a comment or string) in the declaration's own file
   * or in a file importing the declaration's module; `name-match`: the same name, unresolved.
   */
  label: 'extracted' | 'name-match';
  citation: string;
}

export interface ReferencesResult {
  symbol: string;
  declarations: SymbolMatch[];
  references: Reference[];
  /** Uses in test code (files under test folders or named `*test*`), listed apart. */
  tests: Reference[];
  truncated: boolean;
  note?: string;
  unsettled: string[];
}

const defaultReferenceLimit = 200;
/** Files read for one query; a name used in more files than this is too common to list whole. */
const maxFiles = 400;
/** Chunks the full-text lookup may return: each line is indexed once, so this bounds the files too. */
const maxChunks = 20000;
const identifierCharacter = '[\\p{L}\\p{N}_$]';

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Extensions dropped when an import specifier is compared with a file path. */
function stem(filePath: string): string {
  return filePath.replace(/\.(d\.ts|[cm]?[jt]sx?|py|pyi|go|rs|java|cs|php|rb|h|hh|hpp|hxx|c|cc|cpp|cxx)$/i, '');
}

/**
 * Whether a file's import specifier names the module at `target`. Relative specifiers resolve
 * from the importing file; dotted and `::` module names (Python, Java, C#, Rust) and Go package
 * paths match the target's path or folder as a suffix. A bare JavaScript package name never
 * matches a project file: `vscode` is the editor's API, not `src/vscode/`.
 */
export function importResolvesTo(importer: string, specifier: string, target: string): boolean {
  const language = languageForPath(importer);
  const scriptLike = dialectFor(language) === 'javascript';
  const targetStem = stem(target);
  const targetFolder = path.posix.dirname(target);
  if (specifier.startsWith('.')) {
    let resolved: string;
    if (language === 'python') {
      const dots = specifier.match(/^\.+/)?.[0].length ?? 1;
      const base = path.posix.join(path.posix.dirname(importer), ...Array<string>(dots - 1).fill('..'));
      resolved = path.posix.join(base, specifier.slice(dots).replace(/\./g, '/'));
    } else {
      resolved = path.posix.join(path.posix.dirname(importer), specifier);
    }
    const resolvedStem = stem(resolved);
    return (
      targetStem === resolvedStem ||
      targetStem === `${resolvedStem}/index` ||
      targetStem === `${resolvedStem}/__init__` ||
      (!scriptLike && targetFolder === resolvedStem)
    );
  }
  if (scriptLike && !specifier.includes('/')) return false;
  const written = specifier
    .replace(/^(@|~)\//, '')
    .replace(/^crate::/, '')
    .replace(/::/g, '/');
  const modulePath = stem(written.includes('/') ? written : written.replace(/\./g, '/')).replace(/\/\*$/, '');
  if (modulePath === '') return false;
  const suffixOf = (candidate: string) => candidate === modulePath || candidate.endsWith(`/${modulePath}`);
  // A Go import path starts with the module's name, which no project path holds: the folder is its tail.
  const goPackage = language === 'go' && targetFolder !== '.' && (modulePath === targetFolder || modulePath.endsWith(`/${targetFolder}`));
  return suffixOf(targetStem) || (!scriptLike && suffixOf(targetFolder)) || goPackage;
}

const scriptImport = /(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)['"]([^'"\n]+)['"]/g;
const pythonImport = /^[ \t]*(?:from[ \t]+([\w.]+)[ \t]+import\b|import[ \t]+([\w.]+))/gm;

/**
 * Import specifiers read from a file's live text, for files the parsers stored none for (a file
 * with no declarations is cut into text windows, which carry no imports).
 */
export function liveImports(relativePath: string, lines: readonly string[]): string[] {
  const language = languageForPath(relativePath);
  const text = lines.join('\n');
  if (dialectFor(language) === 'javascript') return [...text.matchAll(scriptImport)].map((match) => match[1]);
  if (language === 'python') return [...text.matchAll(pythonImport)].map((match) => match[1] ?? match[2]);
  return [];
}

const typeKinds = new Set(['class', 'interface', 'struct', 'trait', 'impl']);
const heritageKeywords = new Set([
  'extends',
  'implements',
  'public',
  'private',
  'protected',
  'internal',
  'virtual',
  'sealed',
  'abstract',
  'final',
  'object',
  'where',
  'for',
]);

/** The types a class or interface signature names as its supertypes (`extends B implements C`, `: B, C`, `(B, C)`). */
export function supertypesOf(signature: string | null): string[] {
  if (!signature) return [];
  const rest = signature.replace(/^.*?\b(?:class|interface|struct|trait|impl)\s+[\p{L}_$][\p{L}\p{N}_$]*(?:<[^>]*>)?/u, '');
  if (rest === signature) return [];
  return [
    ...new Set([...rest.matchAll(/[\p{L}_$][\p{L}\p{N}_$]*/gu)].map((match) => match[0]).filter((word) => !heritageKeywords.has(word))),
  ];
}

/**
 * Files declaring the supertypes and subtypes of the classes holding `declarations`: a method is
 * also reached through a variable typed as its interface or as a class implementing it, so a
 * file importing one of those is resolved too (one level each way).
 */
function relatedTypeFiles(context: SyncContext, declarations: SymbolMatch[]): string[] {
  const files = new Set<string>();
  for (const declaration of declarations) {
    if (!declaration.parent) continue;
    const parentName = simpleNameOf(declaration.parent);
    const owner = context.store.chunks.symbolsNamed(declaration.parent, 'qualified').find((row) => row.path === declaration.path);
    for (const supertype of supertypesOf(owner?.signature ?? null)) {
      for (const row of context.store.chunks.symbolsNamed(supertype, 'simple'))
        if (row.kind !== 'method' && row.kind !== 'function') files.add(row.path);
    }
    // Subtypes name the class in their signature: only files holding the name as a word (a full-text lookup, not a scan).
    const word = /^[\p{L}\p{N}_]+$/u.test(parentName) ? parentName.toLowerCase() : undefined;
    const mentioning = word ? context.store.pathsMatching(`body:${word}`, 2000).slice(0, 200) : [];
    for (const row of context.store.chunks.symbolsOfPaths(mentioning)) {
      if (typeKinds.has(row.kind) && supertypesOf(row.signature).includes(parentName)) files.add(row.path);
    }
  }
  return [...files];
}

/** The innermost declaration of `rows` (one file's) whose range holds `line`, other than a declaration starting on it with `name`. */
function callerAt(rows: SymbolRow[], line: number, name: string): Caller | null {
  let best: SymbolRow | undefined;
  for (const row of rows) {
    if (row.startLine > line || row.endLine < line) continue;
    if (row.startLine === line && row.name === name) continue;
    if (!best || row.endLine - row.startLine < best.endLine - best.startLine) best = row;
  }
  return best ? { qualifiedName: best.qualifiedName, kind: best.kind, startLine: best.startLine, endLine: best.endLine } : null;
}

/** Languages where a class calls its own members without a receiver (`save()` for `this.save()`). */
const implicitReceiver = new Set(['java', 'csharp', 'cpp', 'c', 'ruby']);

interface UseRules {
  /** The symbol is a member (a method): a use is written after a member operator (`.`, `?.`, `::`, `->`). */
  member: boolean;
  /** The file is the declaration's own or imports its module: other declarations of the name there are implementations or overrides. */
  resolved: boolean;
  /** Lines declaring the symbol itself in this file, never a use. */
  ownLines: ReadonlySet<number>;
}

/**
 * Uses of `name` in one current file: identifiers outside comments and strings. A declaration of
 * the same name elsewhere in a resolved file is listed (an implementation or override, as the
 * TypeScript language service lists it); in an unresolved file it is not a use.
 */
function usesInFile(
  filePath: string,
  file: CurrentFile,
  name: string,
  symbols: SymbolRow[],
  rules: UseRules,
): Array<Omit<Reference, 'label'>> {
  const language = languageForPath(filePath);
  const dialect = dialectFor(language);
  const declaredOn = new Set(symbols.filter((row) => row.name === name).map((row) => row.startLine));
  const memberOperator = rules.member && !(implicitReceiver.has(language) && rules.ownLines.size > 0);
  const prefix = memberOperator ? '(?:\\.|->|::)\\s*' : `(?<!${identifierCharacter})`;
  const pattern = new RegExp(`${prefix}${escapeRegExp(name)}(?!${identifierCharacter})`, 'gu');
  const bare = new RegExp(`(?<!${identifierCharacter})${escapeRegExp(name)}(?!${identifierCharacter})`, 'gu');
  // Blanking comments and strings only removes matches, so a file whose raw text has no use form
  // (a method name never written after a member operator) has none; most candidate files of a
  // common method name stop here, before the costlier stripping.
  const listsDeclarations = rules.resolved && [...declaredOn].some((line) => !rules.ownLines.has(line));
  const probe = new RegExp(pattern.source, 'u');
  if (!listsDeclarations && !file.lines.some((line) => line.includes(name) && probe.test(line))) return [];
  const lines = dialect ? splitLines(stripCommentsAndStrings(file.lines.join('\n'), dialect)) : file.lines;
  const uses: Array<Omit<Reference, 'label'>> = [];
  lines.forEach((line, index) => {
    const lineNumber = index + 1;
    if (!line.includes(name) || rules.ownLines.has(lineNumber)) return;
    const declaration = declaredOn.has(lineNumber);
    if (declaration && !rules.resolved) return;
    const first = (declaration ? line.matchAll(bare) : line.matchAll(pattern)).next();
    if (first.done) return;
    const text = file.lines[index].trim();
    const column = (first.value.index ?? 0) + first.value[0].length - name.length + 1;
    uses.push({
      path: filePath,
      line: lineNumber,
      column,
      text: text.length > 200 ? `${text.slice(0, 200)}…` : text,
      caller: callerAt(symbols, lineNumber, name),
      citation: citationOf({ path: filePath, startLine: lineNumber, endLine: lineNumber, sha256: file.sha256 }),
    });
  });
  return uses;
}

/**
 * The places that use a symbol. Candidate files come from the full-text index (the name as a
 * word); each is read live and hash-checked, and its uses are found on the stripped source, so a
 * comment or string that mentions the name is not a use.
 */
export async function findReferences(context: SyncContext, input: ReferencesInput): Promise<ReferencesResult> {
  const symbol = normalizeSymbolName(input.symbol);
  const name = simpleNameOf(symbol);
  const limit = input.limit ?? defaultReferenceLimit;
  if (!/^[\p{L}\p{N}_$]+$/u.test(name)) throw new NavigationInputError(`Not an identifier: ${JSON.stringify(name)}.`);
  const { value, unsettled } = await withLiveCheck(context, async (check) => {
    const { rows } = lookupDeclarations(context, { name: symbol, path: input.path });
    const declarations = await currentMatches(rows, check);
    // A method is used as `receiver.name`; a bare `name` is then a local, a parameter or another function.
    const member =
      declarations.length > 0 && declarations.every((declaration) => declaration.kind === 'method' && declaration.parent !== null);
    const declarationFiles = [...new Set(declarations.map((declaration) => declaration.path))];
    const resolutionFiles = member ? [...new Set([...declarationFiles, ...relatedTypeFiles(context, declarations)])] : declarationFiles;
    // FTS4 tokens hold letters, digits and `_`; a `$` splits a word, so its longest part is looked up.
    const word = name
      .split('$')
      .sort((a, b) => b.length - a.length)[0]
      .toLowerCase();
    const candidates = word ? context.store.pathsMatching(`body:${word}`, maxChunks) : [];
    const paths = [...new Set([...declarationFiles, ...candidates])].sort();
    const read = paths.slice(0, maxFiles);
    const imports = context.store.chunks.importsOf(read);
    const symbolsByPath = new Map<string, SymbolRow[]>();
    for (let start = 0; start < read.length; start += 200) {
      for (const row of context.store.chunks.symbolsOfPaths(read.slice(start, start + 200))) {
        const list = symbolsByPath.get(row.path) ?? [];
        list.push(row);
        symbolsByPath.set(row.path, list);
      }
    }
    const resolved = (filePath: string, file: CurrentFile) =>
      resolutionFiles.includes(filePath) ||
      (imports.get(filePath) ?? liveImports(filePath, file.lines)).some((specifier) =>
        resolutionFiles.some((target) => importResolvesTo(filePath, specifier, target)),
      );
    const references: Reference[] = [];
    const tests: Reference[] = [];
    let truncated = paths.length > read.length;
    for (const filePath of read) {
      const file = await check.current(filePath);
      if (!file) continue;
      const label: Reference['label'] = resolved(filePath, file) ? 'extracted' : 'name-match';
      const ownLines = new Set(
        declarations.filter((declaration) => declaration.path === filePath).map((declaration) => declaration.startLine),
      );
      const rules = { member, resolved: label === 'extracted', ownLines };
      for (const use of usesInFile(filePath, file, name, symbolsByPath.get(filePath) ?? [], rules)) {
        const list = isTestPath(filePath) ? tests : references;
        if (references.length + tests.length >= limit) {
          truncated = true;
          break;
        }
        list.push({ ...use, label });
      }
    }
    const order = (a: Reference, b: Reference) =>
      (a.label === b.label ? 0 : a.label === 'extracted' ? -1 : 1) || (a.path < b.path ? -1 : a.path > b.path ? 1 : a.line - b.line);
    return { declarations, references: references.sort(order), tests: tests.sort(order), truncated };
  });
  const note =
    value.declarations.length === 0
      ? `No current declaration named ${symbol} is indexed; every use listed is a name match.`
      : value.truncated
        ? `More uses exist than listed (at most ${limit} uses in ${maxFiles} files).`
        : undefined;
  return { symbol, ...value, ...(note ? { note } : {}), unsettled };
}
