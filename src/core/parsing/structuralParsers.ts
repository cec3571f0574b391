import type { ChunkParser } from './chunkParser';

export interface StructuralParserLocations {
  /** Folder holding the grammar `.wasm` files. */
  grammarDirectory: string;
  /** Folder holding the `.scm` tag queries and the grammar manifest. */
  queryDirectory: string;
}

/** The structural parsers tried before text windows, best first. */
export function createStructuralParsers(_locations: StructuralParserLocations): ChunkParser[] {
  return [];
}
