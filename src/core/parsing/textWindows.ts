import type { ChunkParser, ParseInput, ParseOptions, ParseResult, ParsedChunk } from './chunkParser';

/** Overlapping fixed-size windows over the lines of a file. */
export function textWindows(
  lineCount: number,
  windowLines: number,
  overlapLines: number,
  firstLine = 1,
  lastLine = lineCount,
): ParsedChunk[] {
  const chunks: ParsedChunk[] = [];
  if (lastLine < firstLine) return chunks;
  const step = Math.max(1, windowLines - overlapLines);
  for (let start = firstLine; ; start += step) {
    const end = Math.min(lastLine, start + windowLines - 1);
    chunks.push({ startLine: start, endLine: end, chunkKind: 'window' });
    if (end >= lastLine) break;
  }
  return chunks;
}

/** The last parser of every chain: it never declines. */
export class TextWindowParser implements ChunkParser {
  readonly kind = 'text' as const;
  readonly version = 'text-1';

  supports(): boolean {
    return true;
  }

  async parse(input: ParseInput, options: ParseOptions): Promise<ParseResult> {
    let last = input.lines.length;
    // A trailing newline yields an empty last "line" that editors do not count as content.
    while (last > 1 && input.lines[last - 1] === '') last--;
    return { parser: 'text', chunks: textWindows(last, options.windowLines, options.overlapLines) };
  }
}
