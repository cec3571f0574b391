import { splitIdentifier } from '../tokens';
import { isAscii, wordsIn } from '../words';
import { stemWord } from './descriptor';

/** Chunks up to this many lines are returned whole; longer ones are cut to the lines that match. */
export const maxWholeSpanLines = 40;

/**
 * How a long chunk is cut: chunks up to `wholeLines` stay whole; of longer ones the `windowLines`
 * holding the most distinct request words are kept, with `contextLines` around. A window that
 * starts within the chunk's first `headLines` (its declaration and docstring) counts `headBonus`
 * more words: the head says what the code does.
 */
export interface SpanShape {
  wholeLines: number;
  windowLines: number;
  contextLines: number;
  headLines: number;
  headBonus: number;
}

export const defaultSpanShape: SpanShape = { wholeLines: maxWholeSpanLines, windowLines: 24, contextLines: 3, headLines: 0, headBonus: 0 };

/**
 * Weaker evidence (symbol text, full text, semantic: words the request shares with the chunk, not
 * a name or a line it quotes) is cut from 21 lines on, to 16 lines of matches, preferring the head.
 * On the quality tune split this took tokens per found answer from 594 to 506 (CPython) and 761
 * to 602 (Hono) with no answer lost (one Hono question found that was not).
 */
export const weakerEvidenceShape: SpanShape = { wholeLines: 20, windowLines: 16, contextLines: 3, headLines: 3, headBonus: 1 };

/** A word's stems (its own and its identifier parts'), by word: a long chunk's lines repeat their words. */
const stemsByWord = new Map<string, readonly string[]>();
const maxStemmedWords = 16_384;

function wordStems(word: string): readonly string[] {
  let stems = stemsByWord.get(word);
  if (!stems) {
    if (stemsByWord.size >= maxStemmedWords) stemsByWord.clear();
    stems = [stemWord(word), ...splitIdentifier(word).map(stemWord)];
    stemsByWord.set(word, stems);
  }
  return stems;
}

/**
 * The stems of `wanted` a line holds (its words and their identifier parts: `parseCookieHeader` →
 * pars, cooki, header). Checked from the line's side: a pasted text wants a hundred stems, and a
 * long chunk's lines hold a few words each.
 */
export function wantedStems(line: string, wanted: ReadonlySet<string>, anchors?: readonly string[]): Set<string> {
  if (anchors && isAscii(line)) {
    const lower = line.toLowerCase();
    if (!anchors.some((anchor) => lower.includes(anchor))) return new Set();
  }
  const found = new Set<string>();
  for (const word of wordsIn(line)) for (const stem of wordStems(word)) if (wanted.has(stem)) found.add(stem);
  return found;
}

/** Up to this many wanted stems, `stemAnchors` lets a line skip its words' stems. */
const maxAnchoredStems = 24;

/**
 * What a word must hold, lower-cased, for a wanted stem to be its or one of its parts': the stem
 * without its last letter. `stemWord` only cuts endings off a lower-case word, and changes only
 * the last letter it keeps (`query` → `queri`), so every word or part that stems to `w` starts
 * with `w` less one letter; on an ASCII line, lower-casing the line lower-cases each of its words
 * and parts alike. A line holding no anchor holds no wanted stem, and its words need no stems
 * (most of a long chunk's lines, and most of a first request's stemming). Undefined for many
 * stems (a pasted text), where the searches would cost more than the stems.
 */
export function stemAnchors(wanted: ReadonlySet<string>): string[] | undefined {
  if (wanted.size > maxAnchoredStems) return undefined;
  return [...wanted].map((stem) => stem.slice(0, -1));
}

/**
 * The smallest span of a long chunk that answers: the lines holding the request's words, at most
 * `windowLines` of them, with `contextLines` around (0-based offsets into `lines`, inclusive; see
 * `SpanShape`). The window with the most distinct request stems wins (the earliest on ties); a
 * chunk of at most `wholeLines` lines, or one no line of which holds a request word, stays whole (undefined).
 * A `literal` (an exact phrase) anchors the window on its first line instead.
 */
export function focusSpan(
  lines: string[],
  requestWords: readonly string[],
  literal?: string,
  shape: SpanShape = defaultSpanShape,
): { from: number; to: number } | undefined {
  const { windowLines, contextLines } = shape;
  if (lines.length <= shape.wholeLines) return undefined;
  const wanted = new Set(requestWords.map(stemWord));
  const anchors = stemAnchors(wanted);
  const perLine = lines.map((line) => wantedStems(line, wanted, anchors));
  if (literal) {
    const first = phraseLine(lines, literal);
    if (first !== undefined) return { from: Math.max(0, first - contextLines), to: Math.min(lines.length - 1, first + contextLines) };
  }
  // A declaration's leading doc comment (its summary, `@param` lines, a usage example) names the
  // same words as its code; the code is what behaves, so it wins when it holds any request word.
  const code = leadingCommentLines(lines);
  if (code > 0 && perLine.slice(code).some((stems) => stems.size > 0)) for (let line = 0; line < code; line++) perLine[line].clear();
  let best: { from: number; covered: number } | undefined;
  for (let from = 0; from < lines.length; from++) {
    if (perLine[from].size === 0) continue;
    const covered = new Set<string>();
    for (let line = from; line < Math.min(lines.length, from + windowLines); line++) for (const stem of perLine[line]) covered.add(stem);
    const score = covered.size + (from < shape.headLines ? shape.headBonus : 0);
    if (!best || score > best.covered) best = { from, covered: score };
  }
  if (!best) return undefined;
  let last = best.from;
  for (let line = best.from; line < Math.min(lines.length, best.from + windowLines); line++) if (perLine[line].size > 0) last = line;
  return { from: Math.max(0, best.from - contextLines), to: Math.min(lines.length - 1, last + contextLines) };
}

/** A line of a comment block (opening with a slash and a star, continuing with a star, `//`, `#`), or a blank one. */
const commentLine = /^\s*(?:\/\*|\*|\/\/|#(?![![])|$)/;

/** How many lines a chunk's leading comment block spans (0 when it starts with code). */
function leadingCommentLines(lines: string[]): number {
  let line = 0;
  while (line < lines.length && commentLine.test(lines[line])) line++;
  return line === lines.length ? 0 : line;
}

/** The first line on which the phrase's words start (the phrase may run on over the next two lines). */
function phraseLine(lines: string[], literal: string): number | undefined {
  const words = (text: string) => wordsIn(text.toLowerCase());
  const wanted = words(literal);
  if (wanted.length === 0) return undefined;
  for (let line = 0; line < lines.length; line++) {
    const own = words(lines[line]).length;
    const joined = words(lines.slice(line, line + 3).join(' '));
    for (let start = 0; start < own; start++) {
      if (wanted.every((word, offset) => joined[start + offset] === word)) return line;
    }
  }
  return undefined;
}
