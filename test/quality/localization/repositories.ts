/**
 * The repositories of the file-localization set and the rules that decide which of their files
 * are "source" (answers and BM25 documents) and which are tests, docs or generated files.
 * None of them is a repository that published localization or issue-resolution benchmarks draw
 * from (SWE-bench and its Multilingual/Java variants, Multi-SWE-bench, SWE-PolyBench, LocBench).
 */
import * as path from 'node:path';

export interface LocalizationRepository {
  /** `owner/name` on GitHub. */
  name: string;
  language: string;
  /** The history's newest commit when the instances were extracted (any clone containing it will do). */
  head: string;
  /** File name endings counted as source code. */
  sourceExtensions: string[];
}

export const localizationRepositories: LocalizationRepository[] = [
  { name: 'Textualize/rich', language: 'Python', head: '42899d8a0a96b121a514516f4be9db44ff7aeaf3', sourceExtensions: ['.py'] },
  {
    name: 'honojs/hono',
    language: 'TypeScript',
    head: '28a9c128912de19f3fb28b00ae289c9b93f6f392',
    sourceExtensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs', '.jsx'],
  },
  {
    name: 'junegunn/fzf',
    language: 'Go',
    head: '956562daaa82ddf55ea8f7aeab56883377b742c6',
    sourceExtensions: ['.go', '.sh', '.bash', '.zsh', '.fish', '.vim', '.ps1'],
  },
  { name: 'casey/just', language: 'Rust', head: '4f41f609278edb6f1024e3dd7a9912946e1e7bc3', sourceExtensions: ['.rs'] },
  { name: 'jhy/jsoup', language: 'Java', head: '46b620860af930eedc193a705eaf7cea5aec89a6', sourceExtensions: ['.java'] },
];

/**
 * Repositories of fresh check sets only (`extract.ts --extra`): none of their commits is in
 * `instances.json`, so a ranking change tuned on the tune split and the older commits can be
 * checked on code it was never looked at with. Gitleaks (Go), pipx (Python) and delta (Rust) are
 * in none of the benchmarks above.
 */
export const extraRepositories: LocalizationRepository[] = [
  { name: 'gitleaks/gitleaks', language: 'Go', head: 'b58d3f102cf3a2c84cb7f923d05c25c9b1aed84b', sourceExtensions: ['.go'] },
  { name: 'pypa/pipx', language: 'Python', head: '9bb766c055d47b44ea36c342b87ed569e7c442b1', sourceExtensions: ['.py'] },
  { name: 'dandavison/delta', language: 'Rust', head: 'f85c46ba8b913aa3208af0f3573db90286e56e18', sourceExtensions: ['.rs'] },
];

/** Every repository a runner knows, the committed set's first. */
export const allRepositories: LocalizationRepository[] = [...localizationRepositories, ...extraRepositories];

/** The work tree's directory name for a repository: `owner+name`, as the fetch tool names its mirrors. */
export function workTreeName(repository: string): string {
  return repository.replace('/', '+');
}

const nonSourceSegments = new Set([
  'test',
  'tests',
  '__tests__',
  'testdata',
  'testing',
  'spec',
  'specs',
  'fixtures',
  'bench',
  'benches',
  'benchmark',
  'benchmarks',
  'perf-measures',
  'runtime-tests',
  'doc',
  'docs',
  'example',
  'examples',
  '.github',
  'vendor',
  'node_modules',
  'dist',
  'build',
]);

/** Whether a repository-relative path is a non-test, non-doc, non-generated source file of this repository. */
export function isSourceFile(relativePath: string, repository: LocalizationRepository): boolean {
  const normalized = relativePath.split(path.sep).join('/');
  const base = normalized.slice(normalized.lastIndexOf('/') + 1);
  if (!repository.sourceExtensions.some((extension) => base.endsWith(extension))) return false;
  const segments = normalized.split('/').slice(0, -1);
  if (segments.some((segment) => nonSourceSegments.has(segment.toLowerCase()))) return false;
  // Test files that live beside the code they test, in each language's naming convention.
  if (/(^test_.*\.py$|_test\.(py|go|rs)$|\.(test|spec)\.[cm]?[jt]sx?$|Tests?\.java$|^conftest\.py$)/.test(base)) return false;
  // Declarations, minified bundles and other generated files.
  if (/\.d\.[cm]?ts$|\.min\.js$|\.generated\.|_generated\./.test(base)) return false;
  return true;
}
