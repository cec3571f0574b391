import TreeSitter = require('web-tree-sitter');
import type { Parser, Query, Tree } from 'web-tree-sitter';
import type { ChunkParser, ParseInput, ParseOptions, ParseResult, ParserRecipe } from './chunkParser';
import { buildChunks, looksMinified, referencesFromLines } from './chunkSplitter';
import { extractDeclarations, type Deadline } from './declarationExtractor';
import { recoveryTrees } from './errorRecovery';
import { GrammarRegistry, type GrammarLocations } from './grammarRegistry';
import { identifiersFromTree } from './identifierIndex';

export type TreeSitterParserOptions = GrammarLocations;

/** Languages whose declarations the tag queries in `grammars/` describe. */
export const structuralLanguages: ReadonlySet<string> = new Set([
  'typescript',
  'tsx',
  'javascript',
  'python',
  'go',
  'rust',
  'java',
  'csharp',
  'cpp',
  'c',
  'php',
  'ruby',
  'bash',
]);

/** Bumped by hand when extraction or chunking changes; query edits change the hash part on their own. */
const extractorVersion = 1;

/**
 * Parse time allowed for a file: 250 ms plus 10 ms per KB, never more than 3 s or the caller's
 * bound. Tree-sitter in wasm parses roughly a megabyte a second on an idle core, but the bound is
 * wall time: on a loaded machine (load 16 on 2 cores) jsoup's 54 KB `HttpConnection.java` took
 * 336 ms with its error recovery, and under the earlier 100 ms + 1.3 ms per KB (sync: 100 ms) 14 of
 * jsoup's 196 Java files fell back to text windows, the index's declarations depending on the load.
 */
export function parseBudgetMs(textLength: number, callerTimeoutMs: number): number {
  const adaptive = Math.min(3000, 250 + Math.round((10 * textLength) / 1024));
  return callerTimeoutMs > 0 ? Math.min(adaptive, callerTimeoutMs) : adaptive;
}

/**
 * Structural chunks from web-tree-sitter grammars and the tag queries in `grammars/`.
 * Every failure (missing or corrupt grammar, broken query, timeout, no declarations) is a
 * decline with a reason, so the next parser in the chain can take over.
 */
export class TreeSitterParser implements ChunkParser {
  readonly kind = 'tree-sitter' as const;
  readonly version: string;
  readonly recipe: ParserRecipe;
  private readonly registry: GrammarRegistry;
  private readonly log: (message: string) => void;
  private parser: Parser | undefined;
  private declineReason: string | undefined;

  constructor(options: TreeSitterParserOptions) {
    this.log = options.log ?? (() => undefined);
    this.registry = new GrammarRegistry(options);
    this.version = `tree-sitter-${extractorVersion}-${this.registry.contentHash}`;
    this.recipe = { kind: 'tree-sitter', grammarDir: options.grammarDir, queryDir: options.queryDir, runtimeWasm: options.runtimeWasm };
  }

  supports(language: string): boolean {
    return structuralLanguages.has(language);
  }

  lastDeclineReason(): string | undefined {
    return this.declineReason;
  }

  /** The grammar file `grammars/manifest.json` names for `language` (C's is C++'s). */
  grammarOf(language: string): string | undefined {
    return this.registry.manifest[language]?.grammar;
  }

  async parse(input: ParseInput, options: ParseOptions): Promise<ParseResult | undefined> {
    this.declineReason = undefined;
    try {
      const outcome = await this.parseOrExplain(input, options);
      if (typeof outcome === 'string') {
        this.declineReason = outcome;
        return undefined;
      }
      return outcome;
    } catch (error) {
      this.log(`tree-sitter: ${input.path} failed to parse: ${error instanceof Error ? error.message : String(error)}`);
      // The runtime may be left mid-parse; a fresh parser is cheap and certainly clean.
      this.parser?.delete();
      this.parser = undefined;
      this.declineReason = 'parse-failed';
      return undefined;
    }
  }

  dispose(): void {
    this.parser?.delete();
    this.parser = undefined;
    this.registry.dispose();
  }

  /** Resolves to a result, or to the reason for declining. */
  private async parseOrExplain(input: ParseInput, options: ParseOptions): Promise<ParseResult | string> {
    if (!this.supports(input.language)) return 'unsupported';
    if (looksMinified(input.text, input.lines)) return 'minified';
    const load = await this.registry.load(input.language);
    if (!load.grammar) return load.declineReason;
    const parser = (this.parser ??= new TreeSitter.Parser());
    try {
      parser.setLanguage(load.grammar.language);
    } catch (error) {
      this.log(`tree-sitter: grammar for ${input.language} is incompatible: ${error instanceof Error ? error.message : String(error)}`);
      this.registry.markFailed(input.language, 'grammar-failed');
      return 'grammar-failed';
    }

    const deadline = startDeadline(parseBudgetMs(input.text.length, options.timeoutMs));
    const source = editorLineBreaks(input.text);
    const tree = parser.parse(source, null, { progressCallback: () => deadline.expired() });
    if (!tree) {
      parser.reset();
      return 'timeout';
    }
    const recovered = tree.rootNode.hasError ? recoveryTrees(parser, tree, source, input.lines, deadline) : [];
    try {
      return this.chunkTrees(tree, recovered, source, input, options, load.grammar.query, deadline);
    } finally {
      tree.delete();
      recovered.forEach((extra) => extra.delete());
    }
  }

  private chunkTrees(
    tree: Tree,
    recovered: Tree[],
    source: string,
    input: ParseInput,
    options: ParseOptions,
    query: Query,
    deadline: Deadline,
  ): ParseResult | string {
    const extraction = extractDeclarations([tree, ...recovered], query, input.language, source, input.lines, deadline);
    if (!extraction) return 'timeout';
    if (extraction.declarations.length === 0) return 'no-declarations';
    const identifiers = identifiersFromTree(tree, source, input.lines.length, deadline);
    if (!identifiers) return 'timeout';
    const chunks = buildChunks(extraction.declarations, input.lines, options, referencesFromLines(identifiers));
    const result: ParseResult = { parser: 'tree-sitter', chunks };
    if (extraction.imports.length > 0) result.imports = extraction.imports;
    return result;
  }
}

/**
 * Tree-sitter ends lines only at `\n`, while the editor also ends them at a lone `\r`.
 * Swapping each lone `\r` for `\n` keeps every offset and makes tree rows equal editor lines;
 * a stray byte-order mark becomes a space for the same reason.
 */
function editorLineBreaks(text: string): string {
  const withoutBom = text.charCodeAt(0) === 0xfeff ? ` ${text.slice(1)}` : text;
  return withoutBom.replace(/\r(?!\n)/g, '\n');
}

/**
 * Tree-sitter reports progress about every hundred parse operations; on a 2-core machine a
 * quiet parse makes some 25 such calls per millisecond. The allowance turns a time budget into
 * an amount of work.
 */
const workPerMs = 25;
/** However much work is left, no parse runs longer than this many times its budget. */
const hardLimitFactor = 4;

/**
 * A time bound that a busy machine does not trip: it expires once the budget has passed and
 * the work done exceeds what that budget buys on a quiet machine, or unconditionally at the
 * hard limit. Each `expired()` call counts as one unit of work.
 */
function startDeadline(budgetMs: number): Deadline {
  const start = performance.now();
  const allowance = budgetMs * workPerMs;
  let work = 0;
  return {
    expired: () => {
      work++;
      const elapsed = performance.now() - start;
      return elapsed > budgetMs * hardLimitFactor || (elapsed > budgetMs && work > allowance);
    },
  };
}
