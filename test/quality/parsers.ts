/** The structural parsers the quality runs index with, found from the repository root as the CLI finds them. */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ChunkParser } from '../../src/core/parsing/chunkParser';
import { createStructuralParsers } from '../../src/core/parsing/structuralParsers';

export function repositoryRoot(): string {
  for (const start of [__dirname, process.cwd()]) {
    for (let directory = start; ; directory = path.dirname(directory)) {
      if (fs.existsSync(path.join(directory, 'package.json')) && fs.existsSync(path.join(directory, 'grammars'))) return directory;
      if (path.dirname(directory) === directory) break;
    }
  }
  throw new Error('repository root not found (run from the repository)');
}

export function qualityParsers(): ChunkParser[] {
  const repo = repositoryRoot();
  const built = fs.existsSync(path.join(repo, 'dist', 'grammars', 'manifest.json'));
  const wasm = path.join(repo, 'node_modules', '@vscode', 'tree-sitter-wasm', 'wasm');
  const grammarDirectory = built ? path.join(repo, 'dist', 'grammars') : wasm;
  const queryDirectory = built ? path.join(repo, 'dist', 'grammars') : path.join(repo, 'grammars');
  return createStructuralParsers({ grammarDirectory, queryDirectory });
}
