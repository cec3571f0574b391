import type { Node, Parser, Range, Tree } from 'web-tree-sitter';
import type { Deadline } from './declarationExtractor';
import { lastRow } from './declarationNaming';

/** At most this many extra parses per file, so a file full of errors stays cheap. */
const maxRecoveryParses = 4;

/** A line that starts in column 0 with a word, decorator or attribute may begin a new declaration. */
const declarationLikeStart = /^[\p{L}_$@#[]/u;

/**
 * Tree-sitter's error recovery sometimes folds everything after a syntax error into one ERROR
 * node, hiding valid declarations that follow it. For each top-level ERROR that spans lines,
 * this re-parses only the text from the first later line that starts in column 0, so those
 * declarations come back with their original offsets and rows. Returns the extra trees; the
 * caller deletes them.
 */
export function recoveryTrees(parser: Parser, tree: Tree, source: string, lines: readonly string[], deadline: Deadline): Tree[] {
  const lineStarts = lineOffsets(source);
  const recovered: Tree[] = [];
  const pending: Tree[] = [tree];
  while (pending.length > 0 && recovered.length < maxRecoveryParses) {
    const current = pending.shift();
    if (!current) break;
    for (const error of topLevelErrors(current.rootNode)) {
      if (recovered.length >= maxRecoveryParses) break;
      const range = tailRange(error, lines, lineStarts);
      if (!range) continue;
      const tail = parser.parse(source, null, { includedRanges: [range], progressCallback: () => deadline.expired() });
      if (!tail) {
        parser.reset();
        return recovered;
      }
      recovered.push(tail);
      if (tail.rootNode.hasError) pending.push(tail);
    }
  }
  return recovered;
}

function topLevelErrors(root: Node): Node[] {
  if (!root.hasError) return [];
  return root.children.filter((child): child is Node => child !== null && child.type === 'ERROR');
}

function tailRange(error: Node, lines: readonly string[], lineStarts: number[]): Range | undefined {
  const endRow = lastRow(error);
  for (let row = error.startPosition.row + 1; row <= endRow; row++) {
    if (!declarationLikeStart.test(lines[row] ?? '')) continue;
    const startIndex = lineStarts[row];
    if (startIndex === undefined || startIndex >= error.endIndex) return undefined;
    return { startIndex, endIndex: error.endIndex, startPosition: { row, column: 0 }, endPosition: error.endPosition };
  }
  return undefined;
}

/** Offsets of line starts in text whose every line break ends in `\n`. */
function lineOffsets(source: string): number[] {
  const starts = [0];
  for (let index = source.indexOf('\n'); index >= 0; index = source.indexOf('\n', index + 1)) starts.push(index + 1);
  return starts;
}
