import { createHash } from 'node:crypto';
import type { ChunkParser, ParseInput, ParseOptions, ParseResult, ParserRecipe } from './chunkParser';
import { TextWindowParser } from './textWindows';

/**
 * Tries structural parsers in order and falls back to text windows, recording why each earlier
 * parser declined so health can explain the coverage per language.
 */
export class ParserChain {
  private readonly parsers: ChunkParser[];
  private digest: string | undefined;

  constructor(parsers: ChunkParser[]) {
    this.parsers = [...parsers, new TextWindowParser()];
  }

  /**
   * A string that changes whenever any parser's output could change. Stored on every chunk, so a
   * short digest of the parsers' versions rather than the list; computed once, since every chunk
   * a worker builds asks for it.
   */
  get version(): string {
    return (this.digest ??= createHash('sha256')
      .update(this.parsers.map((parser) => parser.version).join('+'))
      .digest('hex')
      .slice(0, 12));
  }

  /** How a worker thread builds this chain's structural parsers, or undefined when one of them has no recipe. */
  recipes(): ParserRecipe[] | undefined {
    const structural = this.parsers.slice(0, -1);
    const recipes = structural.map((parser) => parser.recipe);
    return recipes.every((recipe): recipe is ParserRecipe => recipe !== undefined) ? recipes : undefined;
  }

  /** The grammar the first structural parser supporting `language` parses it with; the language itself when none names one. */
  grammarOf(language: string): string {
    const parser = this.parsers.find((candidate) => candidate.grammarOf && candidate.supports(language));
    return parser?.grammarOf?.(language) ?? language;
  }

  async parse(input: ParseInput, options: ParseOptions): Promise<ParseResult> {
    let fallbackReason: string | undefined;
    for (const parser of this.parsers) {
      if (!parser.supports(input.language)) continue;
      let result: ParseResult | undefined;
      try {
        result = await parser.parse(input, options);
      } catch (error) {
        fallbackReason = `${parser.kind}: ${error instanceof Error ? error.message : String(error)}`;
        continue;
      }
      if (result && result.chunks.length > 0) {
        return fallbackReason && !result.fallbackReason ? { ...result, fallbackReason } : result;
      }
      fallbackReason = `${parser.kind}: ${parser.lastDeclineReason?.() ?? 'no-declarations'}`;
    }
    // Unreachable in practice: text windows never decline, but an empty file has no windows.
    return { parser: 'text', chunks: [], fallbackReason };
  }

  dispose(): void {
    for (const parser of this.parsers) parser.dispose?.();
  }
}
