import type { ChunkParser } from './chunkParser';
import { RegexParser } from './regexParser';
import { TreeSitterParser } from './treeSitterParser';

export interface StructuralParserLocations {
  /** Folder holding the grammar `.wasm` files. */
  grammarDirectory: string;
  /** Folder holding the `.scm` tag queries and the grammar manifest. */
  queryDirectory: string;
  log?: (message: string) => void;
}

/**
 * The structural parsers tried before text windows, best first: tree-sitter, then the regex
 * parser for TypeScript/JavaScript, Python and Go when a grammar is missing or fails.
 */
export function createStructuralParsers(locations: StructuralParserLocations): ChunkParser[] {
  return [
    new TreeSitterParser({ grammarDir: locations.grammarDirectory, queryDir: locations.queryDirectory, log: locations.log }),
    new RegexParser(),
  ];
}
