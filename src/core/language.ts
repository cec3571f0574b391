import * as path from 'node:path';

/** Language ids keyed by lower-case file extension (with the dot). Anything else is `text`. */
const languageByExtension: Record<string, string> = {
  '.ts': 'typescript',
  '.mts': 'typescript',
  '.cts': 'typescript',
  '.tsx': 'tsx',
  '.js': 'javascript',
  '.mjs': 'javascript',
  '.cjs': 'javascript',
  '.jsx': 'javascript',
  '.py': 'python',
  '.pyi': 'python',
  '.go': 'go',
  '.rs': 'rust',
  '.java': 'java',
  '.cs': 'csharp',
  '.cpp': 'cpp',
  '.cc': 'cpp',
  '.cxx': 'cpp',
  '.hpp': 'cpp',
  '.hh': 'cpp',
  '.hxx': 'cpp',
  '.c': 'c',
  '.h': 'c',
  '.php': 'php',
  '.rb': 'ruby',
  '.rake': 'ruby',
  '.sh': 'bash',
  '.bash': 'bash',
  '.zsh': 'bash',
  '.json': 'json',
  '.jsonc': 'json',
  '.md': 'markdown',
  '.markdown': 'markdown',
  '.yml': 'yaml',
  '.yaml': 'yaml',
  '.toml': 'toml',
  '.ini': 'ini',
  '.css': 'css',
  '.scss': 'scss',
  '.less': 'less',
  '.html': 'html',
  '.htm': 'html',
  '.vue': 'vue',
  '.svelte': 'svelte',
  '.sql': 'sql',
  '.xml': 'xml',
  '.kt': 'kotlin',
  '.swift': 'swift',
  '.scala': 'scala',
  '.lua': 'lua',
  '.pl': 'perl',
  '.r': 'r',
  '.dart': 'dart',
  '.ex': 'elixir',
  '.exs': 'elixir',
};

const languageByBasename: Record<string, string> = {
  dockerfile: 'dockerfile',
  makefile: 'makefile',
  rakefile: 'ruby',
  gemfile: 'ruby',
};

/** The language id used for parsing and health, from the file name alone. */
export function languageForPath(relativePath: string): string {
  const base = path.posix.basename(relativePath).toLowerCase();
  return languageByBasename[base] ?? languageByExtension[path.posix.extname(base)] ?? 'text';
}
