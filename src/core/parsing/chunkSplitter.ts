import type { ChunkSymbol, ParsedChunk, ParseOptions } from './chunkParser';

/**
 * What a structural parser found, before it is cut into chunks. Both the tree-sitter parser and
 * the regex fallback produce these, so chunking behaves the same whichever parser won.
 */
export interface Declaration {
  symbol: ChunkSymbol;
  /** 1-based first line of the chunk text: decorators, attributes and doc comments included. */
  chunkStartLine: number;
}

/** Lists the identifiers a chunk refers to, given its 1-based inclusive line range. */
export type ReferenceLookup = (startLine: number, endLine: number, ownName?: string) => string[];

export const defaultParseOptions: ParseOptions = { windowLines: 80, overlapLines: 12, timeoutMs: 750 };

/** The most identifiers kept per chunk; enough to find a chunk by what it uses, small enough to store. */
export const maxReferencesPerChunk = 40;

/**
 * Turns declarations into chunks: one per small declaration, bounded overlapping parts for large
 * ones, and text windows over whatever lies between top-level declarations so search still sees
 * the whole file.
 */
export function buildChunks(
  declarations: readonly Declaration[],
  lines: readonly string[],
  options: ParseOptions,
  references: ReferenceLookup,
): ParsedChunk[] {
  const { windowLines, stepLines } = windowShape(options);
  const lineCount = lines.length;
  const covered = new Uint8Array(lineCount + 2);
  const chunks: ParsedChunk[] = [];

  for (const declaration of declarations) {
    const start = clampLine(declaration.chunkStartLine, lineCount);
    const end = clampLine(Math.max(declaration.symbol.endLine, start), lineCount);
    covered.fill(1, start, end + 1);
    const name = declaration.symbol.name;
    if (end - start + 1 <= windowLines) {
      chunks.push({
        startLine: start,
        endLine: end,
        chunkKind: 'declaration',
        symbol: declaration.symbol,
        references: references(start, end, name),
      });
      continue;
    }
    for (const [partStart, partEnd] of windowRanges(start, end, windowLines, stepLines)) {
      chunks.push({
        startLine: partStart,
        endLine: partEnd,
        chunkKind: 'part',
        symbol: declaration.symbol,
        references: references(partStart, partEnd, name),
      });
    }
  }

  for (const [gapStart, gapEnd] of uncoveredRuns(covered, lines)) {
    for (const [windowStart, windowEnd] of windowRanges(gapStart, gapEnd, windowLines, stepLines)) {
      chunks.push({ startLine: windowStart, endLine: windowEnd, chunkKind: 'window', references: references(windowStart, windowEnd) });
    }
  }

  chunks.sort((a, b) => a.startLine - b.startLine || b.endLine - a.endLine || kindOrder(a) - kindOrder(b));
  return chunks;
}

/** Consecutive windows of at most `windowLines` lines, each starting `stepLines` after the last. */
export function windowRanges(start: number, end: number, windowLines: number, stepLines: number): Array<[number, number]> {
  const ranges: Array<[number, number]> = [];
  for (let from = start; from <= end; from += stepLines) {
    const to = Math.min(from + windowLines - 1, end);
    ranges.push([from, to]);
    if (to >= end) break;
  }
  return ranges;
}

/**
 * Minified and generated files put thousands of declarations on a handful of enormous lines;
 * a line-based chunk for each would repeat the same megabyte, so such files go to text windows.
 */
export function looksMinified(text: string, lines: readonly string[]): boolean {
  if (text.length < 32 * 1024) return false;
  const averageLineLength = text.length / Math.max(1, lines.length);
  if (averageLineLength < 300) return false;
  return lines.some((line) => line.length > 8 * 1024);
}

function windowShape(options: ParseOptions): { windowLines: number; stepLines: number } {
  const windowLines =
    Number.isFinite(options.windowLines) && options.windowLines >= 1 ? Math.floor(options.windowLines) : defaultParseOptions.windowLines;
  const overlap =
    Number.isFinite(options.overlapLines) && options.overlapLines >= 0
      ? Math.floor(options.overlapLines)
      : defaultParseOptions.overlapLines;
  return { windowLines, stepLines: Math.max(1, windowLines - Math.min(overlap, windowLines - 1)) };
}

/** Maximal runs of lines no declaration covers, trimmed of blank lines at both ends. */
function uncoveredRuns(covered: Uint8Array, lines: readonly string[]): Array<[number, number]> {
  const runs: Array<[number, number]> = [];
  let line = 1;
  while (line <= lines.length) {
    if (covered[line] || isBlank(lines[line - 1])) {
      line++;
      continue;
    }
    let last = line;
    let probe = line;
    while (probe <= lines.length && !covered[probe]) {
      if (!isBlank(lines[probe - 1])) last = probe;
      probe++;
    }
    runs.push([line, last]);
    line = probe;
  }
  return runs;
}

function isBlank(line: string | undefined): boolean {
  return line === undefined || line.trim().length === 0;
}

function clampLine(line: number, lineCount: number): number {
  return Math.min(Math.max(1, Math.floor(line)), Math.max(1, lineCount));
}

function kindOrder(chunk: ParsedChunk): number {
  return chunk.chunkKind === 'window' ? 1 : 0;
}

/**
 * Collects referenced identifiers line by line from a per-line list, skipping the chunk's own
 * name, so both parsers share the same bound and order (first appearance wins).
 */
export function referencesFromLines(identifiersByLine: ReadonlyArray<readonly string[] | undefined>): ReferenceLookup {
  return (startLine, endLine, ownName) => {
    const seen = new Set<string>();
    for (let line = startLine; line <= endLine && seen.size < maxReferencesPerChunk; line++) {
      const identifiers = identifiersByLine[line - 1];
      if (!identifiers) continue;
      for (const identifier of identifiers) {
        if (identifier === ownName || seen.has(identifier)) continue;
        seen.add(identifier);
        if (seen.size >= maxReferencesPerChunk) break;
      }
    }
    return [...seen];
  };
}
