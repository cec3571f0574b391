import type { ChunkParser, ParserRecipe } from './chunkParser';
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

/** The parsers `recipes` describe, built again in this thread (a parse pool worker). */
export function parsersFromRecipes(recipes: readonly ParserRecipe[]): ChunkParser[] {
  return recipes.map((recipe) =>
    recipe.kind === 'regex'
      ? new RegexParser()
      : new TreeSitterParser({ grammarDir: recipe.grammarDir, queryDir: recipe.queryDir, runtimeWasm: recipe.runtimeWasm }),
  );
}
