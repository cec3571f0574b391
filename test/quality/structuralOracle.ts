/**
 * Structural quality on real code (issue 3, "Prove it"): definition recall and precision of the
 * parser chain against each language's own parser as the oracle.
 *
 *   - TypeScript: `.ts` sources shipped in node_modules (@azure/msal-common, -node and -browser
 *     src/, ajv lib/), TypeScript compiler API as the oracle.
 *   - Python: a fixed slice of this machine's standard library, Python's `ast` as the oracle
 *     (test/quality/pyDeclarations.py, run with execFile, no shell).
 *
 * Matching: a declaration found by the chain matches an oracle declaration when both are in the
 * same file with the same simple name and the same 1-based start line, where the start line is
 * the declaration keyword's line (after decorators and doc comments, as SPEC §6 reports it).
 * Several declarations with one name on one line match as a multiset. Kind and qualified-name
 * agreement of the matched pairs are reported beside the score but do not decide a match.
 *
 * Run standalone after a tsc build:
 *   node -e "require('./out/test/quality/structuralOracle.js').runStructuralQuality()"
 * The TypeScript oracle is loaded from the `typescript-api` package (a devDependency alias of a
 * TypeScript with the JS API, since the project's `typescript` is the native v7), else from
 * $PK_TYPESCRIPT_API, else from the TypeScript bundled with the VS Code test toolchain in .cache.
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { ChunkSymbol, ParseResult } from '../../src/core/parsing/chunkParser';
import { ParserChain } from '../../src/core/parsing/parserChain';
import { createStructuralParsers } from '../../src/core/parsing/structuralParsers';
import {
  defaultGrammarPaths,
  findPythonStdlib,
  findRepositoryRoot,
  isTypeScriptSource,
  listFiles,
  maxFileBytes,
  parseWithChain,
  pythonSlicePackages,
  pythonStdlibSlice,
  readSource,
  typeScriptSourcePackages,
} from '../bench/parseBench';

/** Goals of issue 3 for each scored codebase. */
export const recallGoal = 0.98;
export const precisionGoal = 0.97;

/** One declaration, from an oracle or from the parser chain. */
export interface Declared {
  name: string;
  qualifiedName: string;
  kind: string;
  /** 1-based line of the declaration keyword. */
  line: number;
}

export interface CodebaseScore {
  label: string;
  oracle: string;
  files: number;
  bytes: number;
  /** Files the oracle could not read (syntax it rejects), left out of the score. */
  skippedFiles: string[];
  oracleDeclarations: number;
  parsedDeclarations: number;
  matched: number;
  recall: number;
  precision: number;
  /** Share of matched pairs with the same kind (after mapping oracle kinds to SPEC kinds). */
  kindAgreement: number;
  /** Share of matched pairs with the same dotted qualified name. */
  qualifiedNameAgreement: number;
  /** Files per parser that produced them (tree-sitter, regex, text). */
  parsers: Record<string, number>;
  fallbackReasons: Record<string, number>;
  /** Oracle declarations the chain did not report: `path:line kind qualifiedName`. */
  misses: string[];
  /** Chain declarations the oracle does not list. */
  extras: string[];
  kindMismatches: string[];
  seconds: number;
  meetsGoal: boolean;
}

export interface StructuralQuality {
  definitions: string[];
  codebases: CodebaseScore[];
  skipped: string[];
}

// ---- scoring -------------------------------------------------------------------------------

/** Names compare without quotes and whitespace: `'a-b'` and `a-b`, `[Symbol.iterator]`. */
function normalizeName(name: string): string {
  return name.replace(/^['"`]|['"`]$/g, '').replace(/\s+/g, '');
}

/** Every distinct declaration of a chain result; the parts of one declaration share a symbol. */
export function declarationsOf(result: ParseResult): Declared[] {
  const seen = new Map<string, Declared>();
  for (const chunk of result.chunks) {
    const symbol: ChunkSymbol | undefined = chunk.symbol;
    if (!symbol) continue;
    const key = `${symbol.kind}\u0000${symbol.qualifiedName}\u0000${symbol.startLine}\u0000${symbol.endLine}`;
    if (!seen.has(key))
      seen.set(key, { name: symbol.name, qualifiedName: symbol.qualifiedName, kind: symbol.kind, line: symbol.startLine });
  }
  return [...seen.values()];
}

interface FileComparison {
  matched: Array<[Declared, Declared]>;
  misses: Declared[];
  extras: Declared[];
}

/** Multiset match on (normalized name, line). */
export function compareDeclarations(oracle: readonly Declared[], parsed: readonly Declared[]): FileComparison {
  const keyOf = (declared: Declared) => `${normalizeName(declared.name)}\u0000${declared.line}`;
  const waiting = new Map<string, Declared[]>();
  for (const declared of parsed) {
    const key = keyOf(declared);
    const list = waiting.get(key) ?? [];
    list.push(declared);
    waiting.set(key, list);
  }
  const matched: Array<[Declared, Declared]> = [];
  const misses: Declared[] = [];
  for (const expected of oracle) {
    const list = waiting.get(keyOf(expected));
    if (!list || list.length === 0) {
      misses.push(expected);
      continue;
    }
    // Prefer the candidate of the same kind, so overloads and accessor pairs pair up sensibly.
    const index = Math.max(
      0,
      list.findIndex((candidate) => candidate.kind === expected.kind),
    );
    matched.push([expected, list.splice(index, 1)[0]]);
  }
  const extras = [...waiting.values()].flat();
  return { matched, misses, extras };
}

class ScoreBuilder {
  private readonly score: CodebaseScore;
  private kindAgreements = 0;
  private qualifiedAgreements = 0;
  private readonly started = performance.now();

  constructor(label: string, oracle: string) {
    this.score = {
      label,
      oracle,
      files: 0,
      bytes: 0,
      skippedFiles: [],
      oracleDeclarations: 0,
      parsedDeclarations: 0,
      matched: 0,
      recall: 0,
      precision: 0,
      kindAgreement: 0,
      qualifiedNameAgreement: 0,
      parsers: {},
      fallbackReasons: {},
      misses: [],
      extras: [],
      kindMismatches: [],
      seconds: 0,
      meetsGoal: false,
    };
  }

  skip(file: string, reason: string): void {
    this.score.skippedFiles.push(`${file}: ${reason}`);
  }

  add(file: string, bytes: number, result: ParseResult, oracle: readonly Declared[]): void {
    const score = this.score;
    const parsed = declarationsOf(result);
    const comparison = compareDeclarations(oracle, parsed);
    score.files++;
    score.bytes += bytes;
    score.parsers[result.parser] = (score.parsers[result.parser] ?? 0) + 1;
    if (result.fallbackReason) score.fallbackReasons[result.fallbackReason] = (score.fallbackReasons[result.fallbackReason] ?? 0) + 1;
    score.oracleDeclarations += oracle.length;
    score.parsedDeclarations += parsed.length;
    score.matched += comparison.matched.length;
    const describe = (declared: Declared) => `${file}:${declared.line} ${declared.kind} ${declared.qualifiedName}`;
    score.misses.push(...comparison.misses.map(describe));
    score.extras.push(...comparison.extras.map(describe));
    for (const [expected, found] of comparison.matched) {
      if (expected.kind === found.kind) this.kindAgreements++;
      else score.kindMismatches.push(`${file}:${expected.line} ${expected.qualifiedName}: oracle ${expected.kind}, chain ${found.kind}`);
      if (expected.qualifiedName === found.qualifiedName) this.qualifiedAgreements++;
    }
  }

  finish(): CodebaseScore {
    const score = this.score;
    const ratio = (part: number, whole: number) => (whole === 0 ? 1 : Math.round((part / whole) * 10_000) / 10_000);
    score.recall = ratio(score.matched, score.oracleDeclarations);
    score.precision = ratio(score.matched, score.parsedDeclarations);
    score.kindAgreement = ratio(this.kindAgreements, score.matched);
    score.qualifiedNameAgreement = ratio(this.qualifiedAgreements, score.matched);
    score.seconds = Math.round(performance.now() - this.started) / 1000;
    score.meetsGoal = score.files > 0 && score.recall >= recallGoal && score.precision >= precisionGoal;
    return score;
  }
}

// ---- TypeScript oracle ----------------------------------------------------------------------

/** The few parts of the TypeScript compiler API the oracle uses (any version with the JS API). */
interface TsNode {
  kind: number;
  pos: number;
  end: number;
  flags: number;
  parent: TsNode;
  name?: TsNode;
  text?: string;
  body?: TsNode;
  initializer?: TsNode;
  modifiers?: readonly TsNode[];
  /** TypeScript before 4.8 kept decorators apart from modifiers. */
  decorators?: readonly TsNode[];
  getStart(sourceFile?: TsNode): number;
  getText(sourceFile?: TsNode): string;
}

interface TsApi {
  version: string;
  createSourceFile(fileName: string, text: string, languageVersion: number, setParentNodes: boolean, scriptKind: number): TsNode;
  forEachChild<T>(node: TsNode, visit: (child: TsNode) => T | undefined): T | undefined;
  ScriptTarget: { Latest: number };
  ScriptKind: { TS: number; TSX: number };
  SyntaxKind: Record<string, number>;
  NodeFlags: Record<string, number>;
}

const codeServerTypeScript = path.join(
  '.cache',
  'vscode-toolchain',
  'code-server',
  'node_modules',
  'code-server',
  'lib',
  'vscode',
  'extensions',
  'node_modules',
  'typescript',
);

/** Finds a TypeScript with the JS compiler API: `typescript-api`, $PK_TYPESCRIPT_API, the toolchain copy. */
export function loadTypeScriptOracle(root: string): { api: TsApi; from: string } | { reason: string } {
  const candidates: Array<() => string | undefined> = [
    () => require.resolve('typescript-api', { paths: [root] }),
    () => process.env.PK_TYPESCRIPT_API && require.resolve(process.env.PK_TYPESCRIPT_API, { paths: [root] }),
    () => require.resolve(path.join(root, codeServerTypeScript)),
    () => {
      const cache = path.join(root, '.cache');
      if (!fs.existsSync(cache)) return undefined;
      const [manifest] = listFiles(
        cache,
        (file) => file.endsWith(`${path.sep}node_modules${path.sep}typescript${path.sep}package.json`),
        1,
      );
      return manifest ? require.resolve(path.dirname(manifest)) : undefined;
    },
  ];
  const tried: string[] = [];
  for (const candidate of candidates) {
    let resolved: string | undefined;
    try {
      resolved = candidate();
    } catch {
      resolved = undefined;
    }
    if (!resolved) continue;
    try {
      // The oracle is found at run time, so it is loaded by its resolved path.
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const api = require(resolved) as Partial<TsApi>;
      if (typeof api.createSourceFile === 'function' && typeof api.forEachChild === 'function' && api.SyntaxKind)
        return { api: api as TsApi, from: `${resolved} (TypeScript ${api.version})` };
      tried.push(`${resolved}: no JS compiler API`);
    } catch (error) {
      tried.push(`${resolved}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return {
    reason: `no TypeScript with the JS compiler API found (add the devDependency "typescript-api": "npm:typescript@5.9.3")${tried.length > 0 ? `; tried ${tried.join('; ')}` : ''}`,
  };
}

/** What each oracle counts as a declaration: the kinds of SPEC §6 and issue 3 item 2, nothing else. */
export const declarationKinds =
  'Declaration kinds (SPEC §6, issue 3 item 2): class, interface, type alias, enum, function, method (constructors and accessors too), struct, trait, impl, namespace/module, and const/let bound to arrow or function expressions.';

export const typeScriptDefinition = [
  'TypeScript oracle (compiler API) lists, wherever written (top level, namespaces, function bodies, blocks):',
  '  named class, interface, type alias, enum, function declarations (overload signatures and `declare function` each count);',
  '  namespace/module declarations, `namespace A.B` counting once as B (qualified A.B), `declare module "x"` named x; `declare global` is a scope, not a declaration;',
  '  members of every class body, named or anonymous: methods and their overload signatures, constructors, get/set accessors,',
  '  and fields initialised directly with an arrow/function expression (method) or a class expression (class);',
  '  interface members that are method signatures or accessors (property, call, construct and index signatures are not declarations);',
  '  const/let/var bound by a plain identifier directly to an arrow function, function expression or class expression.',
  '  Not declarations: object-literal members, type-literal members, anonymous default exports, destructuring, parameters, enum members.',
  '  Start line: the first token after decorators (`export`, `abstract`, `class`, …); for variables the `const`/`let`/`var` keyword.',
];

export const pythonDefinition = [
  'Python oracle (ast) lists every `class`, `def` and `async def`, wherever written (module, class bodies, nested functions,',
  '  if/try/with blocks), each overload and property accessor separately; lambdas are expressions and are not declarations.',
  '  Start line: ast `lineno`, the `class`/`def`/`async` keyword line after decorators.',
];

function typeScriptDeclarations(ts: TsApi, fileName: string, text: string, lineOf: (offset: number) => number): Declared[] {
  const K = ts.SyntaxKind;
  const scriptKind = fileName.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const sourceFile = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, scriptKind);
  const found: Declared[] = [];
  const isClassLike = (node: TsNode | undefined) =>
    node !== undefined && (node.kind === K.ClassDeclaration || node.kind === K.ClassExpression);
  const isFunctionValue = (node: TsNode | undefined) =>
    node !== undefined && (node.kind === K.ArrowFunction || node.kind === K.FunctionExpression);
  const nameOf = (node: TsNode | undefined): string | undefined => {
    if (!node) return undefined;
    if (node.kind === K.StringLiteral || node.kind === K.NoSubstitutionTemplateLiteral || node.kind === K.NumericLiteral) return node.text;
    return node.getText(sourceFile).replace(/\s+/g, '');
  };
  /** First token after the decorators: where the declaration keyword (or its modifiers) starts. */
  const keywordStart = (node: TsNode): number => {
    const decorators = [...(node.decorators ?? []), ...(node.modifiers ?? []).filter((modifier) => modifier.kind === K.Decorator)];
    if (decorators.length === 0) return node.getStart(sourceFile);
    return skipTrivia(text, Math.max(...decorators.map((decorator) => decorator.end)));
  };
  /** `declare global { … }`: flagged by the compiler, and written without `module`/`namespace`. */
  const isGlobalAugmentation = (node: TsNode) =>
    (node.flags & (ts.NodeFlags.GlobalAugmentation ?? 0)) !== 0 ||
    (node.name?.kind === K.Identifier &&
      node.name.text === 'global' &&
      !/\b(module|namespace)\s*$/.test(text.slice(node.getStart(sourceFile), node.name.getStart(sourceFile))));

  /** The declaration a node makes, if it is one in the sense of SPEC §6. */
  const declarationOf = (node: TsNode): { name: string; kind: string; start: number } | undefined => {
    const kind = node.kind;
    const named = (declarationKind: string, start = keywordStart(node)) => {
      const name = nameOf(node.name);
      return name ? { name, kind: declarationKind, start } : undefined;
    };
    if (kind === K.ClassDeclaration) return named('class');
    if (kind === K.InterfaceDeclaration) return named('interface');
    if (kind === K.TypeAliasDeclaration) return named('type');
    if (kind === K.EnumDeclaration) return named('enum');
    if (kind === K.FunctionDeclaration) return named('function');
    if (kind === K.ModuleDeclaration) {
      if (isGlobalAugmentation(node)) return undefined;
      if (node.body?.kind === K.ModuleDeclaration) return undefined; // `namespace A.B`: declared once, as B.
      let outermost = node;
      while (outermost.parent.kind === K.ModuleDeclaration && outermost.parent.body === outermost) outermost = outermost.parent;
      const keyword = (node.flags & ts.NodeFlags.Namespace) !== 0 ? 'namespace' : 'module';
      return named(keyword, keywordStart(outermost));
    }
    const parent = node.parent;
    if (kind === K.MethodDeclaration && isClassLike(parent)) return named('method');
    if (kind === K.Constructor && isClassLike(parent)) return { name: 'constructor', kind: 'constructor', start: keywordStart(node) };
    if ((kind === K.GetAccessor || kind === K.SetAccessor) && (isClassLike(parent) || parent.kind === K.InterfaceDeclaration))
      return named('accessor');
    if (kind === K.MethodSignature && parent.kind === K.InterfaceDeclaration) return named('method');
    if (kind === K.PropertyDeclaration && isClassLike(parent)) {
      if (isFunctionValue(node.initializer)) return named('method');
      if (node.initializer?.kind === K.ClassExpression) return named('class');
      return undefined;
    }
    if (kind === K.VariableDeclaration && node.name?.kind === K.Identifier) {
      const start = parent.kind === K.VariableDeclarationList ? parent.getStart(sourceFile) : node.getStart(sourceFile);
      if (isFunctionValue(node.initializer)) return named('function', start);
      if (node.initializer?.kind === K.ClassExpression) return named('class', start);
    }
    return undefined;
  };

  const visit = (node: TsNode, scope: string[]): undefined => {
    const declaration = declarationOf(node);
    let inner = scope;
    if (declaration) {
      inner = [...scope, declaration.name];
      found.push({ name: declaration.name, qualifiedName: inner.join('.'), kind: declaration.kind, line: lineOf(declaration.start) });
    } else if (node.kind === K.ModuleDeclaration && node.body?.kind === K.ModuleDeclaration) {
      const name = nameOf(node.name);
      if (name) inner = [...scope, name];
    }
    ts.forEachChild(node, (child) => visit(child, inner));
    return undefined;
  };
  visit(sourceFile, []);
  return found;
}

/** Skips whitespace and comments from an offset. */
function skipTrivia(text: string, offset: number): number {
  let index = offset;
  while (index < text.length) {
    const character = text[index];
    if (/\s/.test(character)) index++;
    else if (text.startsWith('//', index)) index = text.indexOf('\n', index) === -1 ? text.length : text.indexOf('\n', index);
    else if (text.startsWith('/*', index)) index = text.indexOf('*/', index + 2) === -1 ? text.length : text.indexOf('*/', index + 2) + 2;
    else break;
  }
  return index;
}

/** Line numbers as the editor (and the engine's splitLines) count them: \r\n, \r and \n end a line. */
function lineCounter(text: string): (offset: number) => number {
  const starts = [0];
  const breaks = /\r\n|\r|\n/g;
  for (let match = breaks.exec(text); match; match = breaks.exec(text)) starts.push(match.index + match[0].length);
  return (offset) => {
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (starts[middle] <= offset) low = middle;
      else high = middle - 1;
    }
    return low + 1;
  };
}

async function scoreTypeScript(
  root: string,
  chain: ParserChain,
  log: (line: string) => void,
): Promise<{ scores: CodebaseScore[]; skipped?: string }> {
  const oracle = loadTypeScriptOracle(root);
  if ('reason' in oracle) return { scores: [], skipped: `TypeScript: ${oracle.reason}` };
  log(`TypeScript oracle: ${oracle.from}`);
  const scores: CodebaseScore[] = [];
  for (const packagePath of typeScriptSourcePackages) {
    const directory = path.join(root, 'node_modules', packagePath);
    if (!fs.existsSync(directory)) {
      log(`  ${packagePath}: not installed, skipped`);
      continue;
    }
    const packageName = packagePath
      .split('/')
      .slice(0, packagePath.startsWith('@') ? 2 : 1)
      .join('/');
    const version =
      (JSON.parse(fs.readFileSync(path.join(root, 'node_modules', packageName, 'package.json'), 'utf8')) as { version?: string }).version ??
      '?';
    const builder = new ScoreBuilder(`${packagePath} (${packageName}@${version})`, `typescript ${oracle.api.version}`);
    const files = listFiles(directory, isTypeScriptSource, 5000, (name) => name === 'node_modules');
    if (files.length === 0) {
      log(`  ${packagePath}: no .ts sources, skipped`);
      continue;
    }
    for (const file of files) {
      const relative = path.relative(path.join(root, 'node_modules'), file).split(path.sep).join('/');
      const source = readSource(file);
      if (source.bytes > maxFileBytes) {
        builder.skip(relative, 'larger than the 512 KB file bound');
        continue;
      }
      const language = file.endsWith('.tsx') ? 'tsx' : 'typescript';
      const expected = typeScriptDeclarations(oracle.api, file, source.text, lineCounter(source.text));
      builder.add(relative, source.bytes, await parseWithChain(chain, relative, language, source.text, source.lines), expected);
    }
    scores.push(builder.finish());
  }
  return { scores };
}

// ---- Python oracle --------------------------------------------------------------------------

interface PythonOracleOutput {
  python: string;
  files: Record<string, { declarations?: Array<{ name: string; qualifiedName: string; kind: string; line: number }>; error?: string }>;
}

function runPythonOracle(python: string, helper: string, files: string[]): Promise<PythonOracleOutput> {
  return new Promise((resolve, reject) => {
    const child = execFile(python, [helper], { maxBuffer: 256 * 1024 * 1024, timeout: 300_000 }, (error: Error | null, stdout) => {
      if (error) {
        reject(error);
        return;
      }
      try {
        resolve(JSON.parse(stdout.toString()) as PythonOracleOutput);
      } catch (parseError) {
        reject(parseError instanceof Error ? parseError : new Error(String(parseError)));
      }
    });
    child.stdin?.end(JSON.stringify(files));
  });
}

async function scorePython(
  root: string,
  chain: ParserChain,
  log: (line: string) => void,
): Promise<{ scores: CodebaseScore[]; skipped?: string }> {
  const python = process.env.PK_PYTHON ?? 'python3';
  const helper = path.join(root, 'test', 'quality', 'pyDeclarations.py');
  if (!fs.existsSync(helper)) return { scores: [], skipped: `Python: ${helper} is missing` };
  const stdlib = await findPythonStdlib(python);
  if (!stdlib) return { scores: [], skipped: `Python: no standard library found (is ${python} on PATH?)` };
  const files = pythonStdlibSlice(stdlib);
  let output: PythonOracleOutput;
  try {
    output = await runPythonOracle(python, helper, files);
  } catch (error) {
    return { scores: [], skipped: `Python: the ast oracle failed: ${error instanceof Error ? error.message : String(error)}` };
  }
  log(
    `Python oracle: ${python} ${output.python} ast, standard library slice ${stdlib}: top-level modules + ${pythonSlicePackages.join(', ')} (no test folders, files ≤ 512 KB)`,
  );
  const builder = new ScoreBuilder(`python ${output.python} stdlib slice (${files.length} files)`, `python ${output.python} ast`);
  for (const file of files) {
    const relative = path.relative(stdlib, file).split(path.sep).join('/');
    const listed = output.files[file];
    if (!listed?.declarations) {
      builder.skip(relative, listed?.error ?? 'not read by the oracle');
      continue;
    }
    const source = readSource(file);
    builder.add(relative, source.bytes, await parseWithChain(chain, relative, 'python', source.text, source.lines), listed.declarations);
  }
  return { scores: [builder.finish()] };
}

// ---- report ---------------------------------------------------------------------------------

/** Scores every available codebase and returns the figures without printing a verdict. */
export async function scoreStructuralQuality(options: { root?: string; log?: (line: string) => void } = {}): Promise<StructuralQuality> {
  const log = options.log ?? ((line: string) => console.log(line));
  const root = options.root ?? findRepositoryRoot();
  const chain = new ParserChain(createStructuralParsers(defaultGrammarPaths(root)));
  try {
    const typeScript = await scoreTypeScript(root, chain, log);
    const python = await scorePython(root, chain, log);
    return {
      definitions: [declarationKinds, ...typeScriptDefinition, ...pythonDefinition],
      codebases: [...typeScript.scores, ...python.scores],
      skipped: [typeScript.skipped, python.skipped].filter((reason): reason is string => reason !== undefined),
    };
  } finally {
    chain.dispose();
  }
}

const percent = (value: number) => `${(value * 100).toFixed(2)}%`;

/**
 * `npm run quality` part for issue 3: prints recall and precision per codebase against the
 * language's own parser, the first misses and extras, and sets a failing exit code when a scored
 * codebase misses the goal (recall ≥ 0.98, precision ≥ 0.97). A missing oracle is reported and
 * skipped, not failed.
 */
export async function runStructuralQuality(): Promise<void> {
  const log = (line: string) => console.log(line);
  const shown = 12;
  log("== Structural declarations against each language's own parser ==");
  log('Match: same file, same simple name, same 1-based start line (the declaration keyword line, after decorators and doc comments);');
  log('  duplicates match as a multiset; kind and qualified name are compared for matched pairs but do not decide a match.');
  log('Parsed through createStructuralParsers + ParserChain with sync.ts time bounds, as the engine parses.');
  const quality = await scoreStructuralQuality({ log });
  for (const line of quality.definitions) log(line);
  for (const score of quality.codebases) {
    log('');
    log(
      `-- ${score.label}: oracle ${score.oracle}, ${score.files} files, ${(score.bytes / 1024).toFixed(0)} KB, ${score.seconds.toFixed(1)} s`,
    );
    log(
      `   recall ${score.recall.toFixed(4)} (${score.matched}/${score.oracleDeclarations})  precision ${score.precision.toFixed(4)} (${score.matched}/${score.parsedDeclarations})  ` +
        `goal recall ≥ ${recallGoal}, precision ≥ ${precisionGoal}: ${score.meetsGoal ? 'met' : 'NOT MET'}`,
    );
    log(`   matched pairs: same kind ${percent(score.kindAgreement)}, same qualified name ${percent(score.qualifiedNameAgreement)}`);
    log(
      `   parsers: ${Object.entries(score.parsers)
        .map(([parser, files]) => `${parser} ${files}`)
        .join(', ')}${
        Object.keys(score.fallbackReasons).length > 0
          ? `; fallbacks: ${Object.entries(score.fallbackReasons)
              .map(([reason, files]) => `${reason} ${files}`)
              .join(', ')}`
          : ''
      }`,
    );
    if (score.skippedFiles.length > 0)
      log(
        `   left out (oracle rejects them): ${score.skippedFiles.slice(0, 5).join('; ')}${score.skippedFiles.length > 5 ? `; … ${score.skippedFiles.length} in all` : ''}`,
      );
    log(`   first misses (${score.misses.length}):${score.misses.length === 0 ? ' none' : ''}`);
    for (const miss of score.misses.slice(0, shown)) log(`     - ${miss}`);
    log(`   first extras, not in the oracle (${score.extras.length}):${score.extras.length === 0 ? ' none' : ''}`);
    for (const extra of score.extras.slice(0, shown)) log(`     + ${extra}`);
    if (score.kindMismatches.length > 0) {
      log(`   first kind differences (${score.kindMismatches.length}):`);
      for (const mismatch of score.kindMismatches.slice(0, 5)) log(`     ~ ${mismatch}`);
    }
  }
  for (const reason of quality.skipped) log(`skipped: ${reason}`);
  const failing = quality.codebases.filter((score) => !score.meetsGoal);
  log('');
  log(
    quality.codebases.length === 0
      ? 'structural quality: no codebase could be scored'
      : `structural quality: ${quality.codebases.length - failing.length}/${quality.codebases.length} codebases meet the goal${failing.length > 0 ? ` (below: ${failing.map((score) => score.label).join(', ')})` : ''}`,
  );
  if (failing.length > 0) process.exitCode = 1;
}

if (require.main === module) {
  runStructuralQuality().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
