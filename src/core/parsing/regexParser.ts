import type { ChunkParser, ParseInput, ParseOptions, ParseResult } from './chunkParser';
import { buildChunks, looksMinified, referencesFromLines } from './chunkSplitter';
import { rulesFor } from './declarationNaming';
import { identifiersFromStrippedLines } from './identifierIndex';
import { scanGo, scanScript, type ScanResult } from './regexBraceLanguages';
import { scanPython } from './regexPython';
import { SourceIndex, nestDeclarations } from './regexScan';
import { dialectFor, stripCommentsAndStrings, type StripDialect } from './sourceStripper';

/** Words that are syntax, not references, per dialect. */
const keywords: Record<StripDialect, ReadonlySet<string>> = {
  javascript: new Set(
    `break case catch class const continue debugger default delete do else enum export extends false finally
    for function if import in instanceof new null return super switch this throw true try typeof var void while with yield let
    static implements interface package private protected public await async abstract as declare type namespace module readonly
    keyof infer is of get set string number boolean any unknown never undefined object symbol bigint from`.split(/\s+/),
  ),
  python: new Set(
    `False None True and as assert async await break class continue def del elif else except finally for from
    global if import in is lambda nonlocal not or pass raise return try while with yield`.split(/\s+/),
  ),
  go: new Set(
    `break case chan const continue default defer else fallthrough for func go goto if import interface map package
    range return select struct switch type var nil true false iota int int8 int16 int32 int64 uint uint8 uint16 uint32 uint64
    uintptr float32 float64 string bool byte rune error any`.split(/\s+/),
  ),
};

const scanners: Record<StripDialect, (source: SourceIndex) => ScanResult> = {
  javascript: scanScript,
  python: scanPython,
  go: scanGo,
};

/**
 * The structural fallback for TypeScript/JavaScript, Python and Go when a grammar is missing,
 * fails to load or throws: line patterns over source whose comments and strings are blanked,
 * with brace matching (or indentation, for Python) for extents.
 */
export class RegexParser implements ChunkParser {
  readonly kind = 'regex' as const;
  readonly version = 'regex-1';
  readonly recipe = { kind: 'regex' } as const;
  private declineReason: string | undefined;

  supports(language: string): boolean {
    return dialectFor(language) !== undefined;
  }

  lastDeclineReason(): string | undefined {
    return this.declineReason;
  }

  async parse(input: ParseInput, options: ParseOptions): Promise<ParseResult | undefined> {
    this.declineReason = undefined;
    try {
      const outcome = this.parseOrExplain(input, options);
      if (typeof outcome !== 'string') return outcome;
      this.declineReason = outcome;
    } catch {
      // Patterns over arbitrary text should not throw; if they do, the text windows take over.
      this.declineReason = 'parse-failed';
    }
    return undefined;
  }

  private parseOrExplain(input: ParseInput, options: ParseOptions): ParseResult | string {
    const dialect = dialectFor(input.language);
    if (!dialect) return 'unsupported';
    if (looksMinified(input.text, input.lines)) return 'minified';
    // A stray byte-order mark becomes a space so offsets and the first line's patterns still hold.
    const text = input.text.charCodeAt(0) === 0xfeff ? ` ${input.text.slice(1)}` : input.text;
    const source = new SourceIndex(text, stripCommentsAndStrings(text, dialect));
    const scan = scanners[dialect](source);
    const declarations = nestDeclarations(scan.raw, source, rulesFor(input.language), '@');
    if (declarations.length === 0) return 'no-declarations';
    const identifiers = identifiersFromStrippedLines(source.strippedLines, keywords[dialect]);
    const chunks = buildChunks(declarations, input.lines, options, referencesFromLines(identifiers));
    const result: ParseResult = { parser: 'regex', chunks };
    if (scan.imports.length > 0) result.imports = scan.imports;
    return result;
  }
}
