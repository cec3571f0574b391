/**
 * Why a path was left out of the index. Every exclusion carries exactly one of these codes, so the
 * health check can count them and a user can see why a file is missing.
 */
export type ExclusionReason =
  // Categories decided from the path alone (`pathRules.ts`).
  | 'vcs'
  | 'dependency'
  | 'build-output'
  | 'cache'
  | 'virtualenv'
  | 'lockfile'
  | 'source-map'
  | 'minified'
  | 'binary-extension'
  // Decided from the bytes (`contentRules.ts`).
  | 'too-large'
  | 'binary-content'
  | 'malformed-utf8'
  // Secrets, by name or by content.
  | 'private-key'
  | 'env-file'
  | 'credential-file'
  | 'secret-content'
  // Discovery: user rules, the file system and the bounds.
  | 'pkignore'
  | 'user-exclude'
  | 'symlink'
  | 'outside-root'
  | 'not-regular-file'
  | 'bound-files'
  | 'bound-total-bytes'
  | 'bound-directories'
  | 'unreadable'
  | 'empty';

/** One line per reason, written for the health view and the CLI. */
export const exclusionReasonDescriptions: Readonly<Record<ExclusionReason, string>> = {
  vcs: 'Version-control metadata (.git, .hg, .svn, ...).',
  dependency: 'Installed or vendored third-party code (node_modules, vendor, third_party, ...).',
  'build-output': 'Generated build output (dist, out, target, .next, ...).',
  cache: 'Tool caches and generated reports (__pycache__, .cache, coverage, ...).',
  virtualenv: 'A Python virtual environment or installed site-packages.',
  lockfile: 'A dependency lockfile (package-lock.json, Cargo.lock, go.sum, ...).',
  'source-map': 'A generated source map (*.js.map, *.css.map).',
  minified: 'A minified or bundled asset, by name (*.min.js) or by very long lines.',
  'binary-extension': 'A known binary format by extension (images, fonts, archives, media, executables, ...).',
  'too-large': 'Larger than the per-file size bound.',
  'binary-content': 'Binary content: NUL bytes or a high share of control characters.',
  'malformed-utf8': 'Not valid UTF-8: too many malformed byte sequences.',
  'private-key': 'A private key, by file name or by a private-key block in the content.',
  'env-file': 'A .env-style environment file, which usually holds secrets.',
  'credential-file': 'A credential store or a registry configuration holding credentials.',
  'secret-content': 'Contains a high-confidence secret (provider token, credentials in a URL or header, secret assignment).',
  pkignore: 'Matched by a rule in .pkignore.',
  'user-exclude': 'Matched by a user exclusion setting (files.exclude or projectKnowledge settings).',
  symlink: 'A symbolic link; links are never followed.',
  'outside-root': 'Resolves outside the project root.',
  'not-regular-file': 'Not a regular file (a FIFO, socket, device or directory); never opened for reading.',
  'bound-files': 'Left out because the file-count bound was reached.',
  'bound-total-bytes': 'Left out because the total-bytes bound was reached.',
  'bound-directories': 'Left out because the visited-directory bound was reached.',
  unreadable: 'Could not be read.',
  empty: 'Empty or whitespace only.',
};

/** Every reason code, in declaration order. */
export const exclusionReasons: readonly ExclusionReason[] = Object.keys(exclusionReasonDescriptions) as ExclusionReason[];

export function isExclusionReason(value: string): value is ExclusionReason {
  return Object.prototype.hasOwnProperty.call(exclusionReasonDescriptions, value);
}

/** Reasons that mean the file holds (or is presumed to hold) a secret. */
export function isSecretReason(reason: ExclusionReason): boolean {
  return reason === 'private-key' || reason === 'env-file' || reason === 'credential-file' || reason === 'secret-content';
}
