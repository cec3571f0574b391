import type { ExclusionReason } from './reasons';

/**
 * Exclusions decided from a project-relative POSIX path alone, before any byte is read.
 *
 * Directory names are compared lower-cased (Windows and macOS folders are case-insensitive), except
 * the few whose capitalised spelling is the convention and whose lower-case spelling is an ordinary
 * word (`Pods`, `Carthage`). Where a path matches several rules, the outermost excluded directory
 * wins: `node_modules/pkg/.env` is counted as `dependency`, which is what a user would fix.
 */

/** Version-control metadata. `.git` is also a *file* in worktrees and submodules. */
const vcsNames = new Set(['.git', '.hg', '.svn', '.bzr', '_darcs', '.jj', '.pijul', '.fossil-settings']);
const caseSensitiveVcsNames = new Set(['CVS']);

/**
 * Installed or vendored third-party code. `third_party` is excluded everywhere: by the Google,
 * Chromium and Bazel convention it only ever holds copies of external code (often larger than the
 * project itself), never the project's own sources.
 */
const dependencyNames = new Set([
  'node_modules',
  'bower_components',
  'jspm_packages',
  'web_modules',
  '.pnpm-store',
  '.yarn',
  'third_party',
  'third-party',
  'thirdparty',
  'elm-stuff',
  '.eggs',
  '.bundle',
  '.terraform',
  '.m2',
  '.ivy2',
]);
const caseSensitiveDependencyNames = new Set(['Pods', 'Carthage']);

/**
 * `vendor` (Go, PHP Composer, Ruby) and `deps` (Elixir, C) hold third-party code at a module root,
 * but they are also domain words: `src/vendor/` may be a marketplace app's own feature. Beneath a
 * source root they are kept.
 */
const guardedDependencyNames = new Set(['vendor', 'deps']);

const virtualenvNames = new Set(['.venv', '.virtualenv', '.direnv', 'site-packages', '.conda', '.pixi']);
/** `venv` is also the standard-library module `Lib/venv/`; beneath a source root it is kept. */
const guardedVirtualenvNames = new Set(['venv']);

const cacheNames = new Set([
  '.cache',
  '__pycache__',
  '.pytest_cache',
  '.mypy_cache',
  '.ruff_cache',
  '.pytype',
  '.tox',
  '.nox',
  '.hypothesis',
  '.turbo',
  '.gradle',
  '.nyc_output',
  'htmlcov',
  '.sass-cache',
  '.parcel-cache',
  '.angular',
  '.vs',
  '.vscode-test',
  '.dart_tool',
  '.pub-cache',
  '.npm',
  '.nx',
  '.ipynb_checkpoints',
  '.vite',
  '.swc',
  '.eslintcache',
  '.jekyll-cache',
  '.cpcache',
  '.bloop',
  '.metals',
  '.bsp',
  '.ccls-cache',
  '.clangd',
  '.cxx',
  '.externalnativebuild',
  '.expo',
  '.pants.d',
  '.stylelintcache',
  '.rpt2_cache',
  '.temp',
  '.tmp',
  '.docusaurus',
]);
/** `coverage` reports are generated, but `coverage` is also an insurance domain word; beneath a source root it is kept. */
const guardedCacheNames = new Set(['coverage']);

/** Build outputs whose names are not ordinary words, excluded wherever they appear. */
const buildOutputNames = new Set([
  'dist',
  '.next',
  '.nuxt',
  '.output',
  '.svelte-kit',
  '.vercel',
  '.netlify',
  '.serverless',
  '.aws-sam',
  'storybook-static',
  '_site',
  'dist-newstyle',
  '.stack-work',
  '_build',
  'cmakefiles',
  'bazel-bin',
  'bazel-out',
  'bazel-testlogs',
  'bazel-genfiles',
  'deriveddata',
  '.webpack',
]);
const buildOutputPrefixes = ['cmake-build-'];
const buildOutputSuffixes = ['.egg-info'];

/**
 * `build`, `out`, `target` and `obj` are build outputs at a project or package root (CMake, Gradle,
 * Android `app/build`, tsc `out`, Cargo and Maven `target`, .NET `obj`), but ordinary package names
 * inside a source tree (`src/main/java/org/acme/build/`, Go `pkg/build/`). They are excluded unless
 * some ancestor is a conventional source root.
 */
const guardedBuildOutputNames = new Set(['build', 'out', 'target', 'obj']);

/**
 * `bin` is usually hand-written scripts (`bin/pk.js`, Rust's `src/bin/`), so it is only a build
 * output in the .NET shape `bin/Debug/...` or `bin/Release/...`.
 */
const dotnetConfigurationNames = new Set(['debug', 'release']);

/** Ancestors under which the guarded names (`build`, `vendor`, `coverage`, ...) are taken to be source. */
const sourceRootNames = new Set([
  'src',
  'source',
  'sources',
  'lib',
  'pkg',
  'internal',
  'cmd',
  'include',
  'test',
  'tests',
  'spec',
  'specs',
  '__tests__',
  'testdata',
  'fixtures',
]);

function directoryReason(segments: readonly string[], index: number): ExclusionReason | undefined {
  const name = segments[index];
  const lower = name.toLowerCase();
  if (vcsNames.has(lower) || caseSensitiveVcsNames.has(name)) return 'vcs';
  if (dependencyNames.has(lower) || caseSensitiveDependencyNames.has(name)) return 'dependency';
  if (virtualenvNames.has(lower)) return 'virtualenv';
  if (cacheNames.has(lower)) return 'cache';
  if (buildOutputNames.has(lower)) return 'build-output';
  if (buildOutputPrefixes.some((prefix) => lower.startsWith(prefix))) return 'build-output';
  if (buildOutputSuffixes.some((suffix) => lower.endsWith(suffix))) return 'build-output';
  const underSourceRoot = () => segments.slice(0, index).some((segment) => sourceRootNames.has(segment.toLowerCase()));
  if (guardedDependencyNames.has(lower) && !underSourceRoot()) return 'dependency';
  if (guardedVirtualenvNames.has(lower) && !underSourceRoot()) return 'virtualenv';
  if (guardedCacheNames.has(lower) && !underSourceRoot()) return 'cache';
  if (guardedBuildOutputNames.has(lower) && !underSourceRoot()) return 'build-output';
  if (lower === 'bin' && index + 1 < segments.length && dotnetConfigurationNames.has(segments[index + 1].toLowerCase())) {
    return 'build-output';
  }
  return undefined;
}

/**
 * Names that are build outputs only as directories: Bazel's `BUILD` and `build` scripts are common
 * source files. (`out`, `target` and `obj` files are rare and usually outputs themselves.)
 */
const directoryOnlyNames = new Set(['build', 'bin']);

// --- File names -------------------------------------------------------------------------------

const privateKeyExtensions = new Set([
  '.pem',
  '.key',
  '.p12',
  '.pfx',
  '.jks',
  '.keystore',
  '.ppk',
  '.p8',
  '.pkcs12',
  '.bks',
  '.pvk',
  '.snk',
]);
const privateKeyNames = new Set([
  'id_rsa',
  'id_dsa',
  'id_ecdsa',
  'id_ed25519',
  'id_ecdsa_sk',
  'id_ed25519_sk',
  'ssh_host_rsa_key',
  'ssh_host_dsa_key',
  'ssh_host_ecdsa_key',
  'ssh_host_ed25519_key',
  'secring.gpg',
  'secring.kbx',
]);

/**
 * Credential stores by exact name. `.npmrc`, `.pypirc`, `.yarnrc(.yml)` are deliberately absent:
 * most of them only name a registry, so their content is checked for tokens instead.
 */
const credentialNames = new Set([
  '.netrc',
  '_netrc',
  '.pgpass',
  '.htpasswd',
  '.git-credentials',
  'credentials',
  'credentials.json',
  'credentials.yml.enc',
  '.dockercfg',
  '.vault-token',
  '.boto',
  '.s3cfg',
  '.my.cnf',
  '.passwd-s3fs',
  'secrets.yml',
  'secrets.yaml',
  'secrets.json',
  'secrets.toml',
  'secrets.ini',
]);
const credentialExtensions = new Set(['.tfstate', '.kdbx', '.keytab', '.agekey', '.gpg-key']);
const credentialPrefixesJson = ['client_secret', 'service-account', 'service_account', 'serviceaccount'];
/** Directory + file pairs that are credential stores in a tool's home folder. */
const credentialPaths = new Set(['.docker/config.json', '.kube/config', '.aws/config']);

const lockfileNames = new Set([
  'package-lock.json',
  'npm-shrinkwrap.json',
  'yarn.lock',
  'pnpm-lock.yaml',
  'bun.lockb',
  'bun.lock',
  'cargo.lock',
  'poetry.lock',
  'gemfile.lock',
  'composer.lock',
  'go.sum',
  'go.work.sum',
  'pipfile.lock',
  'pdm.lock',
  'uv.lock',
  'mix.lock',
  'podfile.lock',
  'packages.lock.json',
  'paket.lock',
  'flake.lock',
  'pubspec.lock',
  'gradle.lockfile',
  'package.resolved',
  'deno.lock',
  'conan.lock',
  '.terraform.lock.hcl',
  'shrinkwrap.yaml',
  'cartfile.resolved',
  'manifest.toml.lock',
  'pixi.lock',
  'renv.lock',
  'stack.yaml.lock',
  'cabal.project.freeze',
]);

/** Stems whose source map is generated; other `.map` files (nginx maps, linker maps) are left to the content rules. */
const sourceMapStemExtensions = new Set(['.js', '.mjs', '.cjs', '.jsx', '.ts', '.mts', '.cts', '.tsx', '.css', '.scss', '.sass', '.less']);

const minifiedSuffixes = ['.min.js', '.min.mjs', '.min.cjs', '.min.css', '-min.js', '-min.css', '.bundle.js', '.bundle.mjs', '.bundle.css'];

const binaryExtensions = new Set([
  // Images and design files
  '.png',
  '.jpg',
  '.jpeg',
  '.gif',
  '.bmp',
  '.ico',
  '.icns',
  '.tif',
  '.tiff',
  '.webp',
  '.avif',
  '.heic',
  '.heif',
  '.psd',
  '.ai',
  '.eps',
  '.raw',
  '.cr2',
  '.nef',
  '.dng',
  '.svgz',
  '.xcf',
  '.sketch',
  '.fig',
  '.jxl',
  '.jp2',
  '.tga',
  '.exr',
  '.hdr',
  // Fonts
  '.ttf',
  '.otf',
  '.woff',
  '.woff2',
  '.eot',
  '.ttc',
  '.pfb',
  // Archives and packages
  '.zip',
  '.tar',
  '.gz',
  '.tgz',
  '.bz2',
  '.tbz2',
  '.xz',
  '.txz',
  '.7z',
  '.rar',
  '.zst',
  '.lz4',
  '.lzma',
  '.br',
  '.z',
  '.jar',
  '.war',
  '.ear',
  '.apk',
  '.aab',
  '.ipa',
  '.dmg',
  '.iso',
  '.img',
  '.deb',
  '.rpm',
  '.msi',
  '.msix',
  '.cab',
  '.nupkg',
  '.whl',
  '.egg',
  '.gem',
  '.crx',
  '.vsix',
  '.xpi',
  '.appx',
  '.pkg',
  // Audio and video
  '.mp3',
  '.mp4',
  '.m4a',
  '.m4v',
  '.wav',
  '.flac',
  '.ogg',
  '.oga',
  '.ogv',
  '.opus',
  '.webm',
  '.mov',
  '.avi',
  '.mkv',
  '.wmv',
  '.flv',
  '.aac',
  '.aiff',
  '.aif',
  '.mid',
  '.midi',
  '.3gp',
  '.mpg',
  '.mpeg',
  '.wma',
  // Executables, objects and bytecode
  '.exe',
  '.dll',
  '.so',
  '.dylib',
  '.o',
  '.obj',
  '.a',
  '.lib',
  '.bin',
  '.elf',
  '.class',
  '.pyc',
  '.pyo',
  '.pyd',
  '.wasm',
  '.node',
  '.ko',
  '.sys',
  '.pdb',
  '.ilk',
  '.beam',
  '.dex',
  '.rlib',
  '.gch',
  '.pch',
  // Office documents and PDF
  '.pdf',
  '.doc',
  '.docx',
  '.xls',
  '.xlsx',
  '.xlsm',
  '.ppt',
  '.pptx',
  '.odt',
  '.ods',
  '.odp',
  '.pages',
  '.numbers',
  '.keynote',
  '.epub',
  '.mobi',
  // Databases, data and model weights
  '.sqlite',
  '.sqlite3',
  '.db',
  '.db3',
  '.mdb',
  '.accdb',
  '.realm',
  '.parquet',
  '.avro',
  '.orc',
  '.feather',
  '.arrow',
  '.npy',
  '.npz',
  '.pkl',
  '.pickle',
  '.h5',
  '.hdf5',
  '.pt',
  '.pth',
  '.onnx',
  '.tflite',
  '.pb',
  '.ckpt',
  '.safetensors',
  '.gguf',
  '.mat',
  '.sav',
  '.dta',
  '.rdata',
  '.rds',
  '.lmdb',
  '.ldb',
  // 3D, game and other binary assets
  '.blend',
  '.fbx',
  '.glb',
  '.stl',
  '.dds',
  '.ktx',
  '.ktx2',
  '.pak',
  '.unitypackage',
  '.swf',
  '.fla',
  '.der',
  '.p7b',
  '.gpg',
  '.pgp',
  '.nib',
]);

/** Files that hold caches or OS metadata rather than source. */
const cacheFileNames = new Set([
  '.ds_store',
  'thumbs.db',
  'desktop.ini',
  '.eslintcache',
  '.stylelintcache',
  '.coverage',
  '.phpunit.result.cache',
]);
const buildOutputExtensions = new Set(['.tsbuildinfo']);

/** `.env`, `.env.local`, `.env.production`, `.envrc` (direnv), `production.env`, `docker.env`. */
function isEnvFile(lowerName: string): boolean {
  return lowerName === '.env' || lowerName.startsWith('.env.') || lowerName === '.envrc' || lowerName.endsWith('.env');
}

/** The lower-case extension including the dot, or `''`; a leading dot alone (`.bashrc`) is no extension. */
function extensionOf(lowerName: string): string {
  const dot = lowerName.lastIndexOf('.');
  return dot > 0 ? lowerName.slice(dot) : '';
}

function fileNameReason(segments: readonly string[]): ExclusionReason | undefined {
  const name = segments[segments.length - 1];
  const lower = name.toLowerCase();
  const extension = extensionOf(lower);
  const parentAndName = segments.length >= 2 ? `${segments[segments.length - 2].toLowerCase()}/${lower}` : lower;

  // Secrets first among file names: they decide whether bytes are ever read.
  if (privateKeyNames.has(lower) || privateKeyExtensions.has(extension)) return 'private-key';
  if (isEnvFile(lower)) return 'env-file';
  if (credentialNames.has(lower) || credentialExtensions.has(extension) || credentialPaths.has(parentAndName)) return 'credential-file';
  if (lower.endsWith('.tfstate.backup')) return 'credential-file';
  if (extension === '.json' && credentialPrefixesJson.some((prefix) => lower.startsWith(prefix))) return 'credential-file';

  if (vcsNames.has(lower)) return 'vcs';
  if (lockfileNames.has(lower) || extension === '.lock' || extension === '.lockb') return 'lockfile';
  if (extension === '.map' && sourceMapStemExtensions.has(extensionOf(lower.slice(0, -4)))) return 'source-map';
  if (minifiedSuffixes.some((suffix) => lower.endsWith(suffix))) return 'minified';
  if (cacheFileNames.has(lower)) return 'cache';
  if (buildOutputExtensions.has(extension)) return 'build-output';
  if (binaryExtensions.has(extension)) return 'binary-extension';
  return undefined;
}

function splitPath(relativePosixPath: string): { segments: string[]; directory: boolean } | 'outside-root' {
  let cleaned = relativePosixPath;
  if (cleaned.startsWith('/') || /^[A-Za-z]:[\\/]/.test(cleaned)) return 'outside-root';
  while (cleaned.startsWith('./')) cleaned = cleaned.slice(2);
  const directory = cleaned.endsWith('/');
  const segments = cleaned.split('/').filter((segment) => segment.length > 0 && segment !== '.');
  if (segments.includes('..')) return 'outside-root';
  return { segments, directory };
}

function classifySegments(segments: readonly string[], directory: boolean): ExclusionReason | undefined {
  if (segments.length === 0) return undefined;
  const lastDirectoryIndex = directory ? segments.length - 1 : segments.length - 2;
  for (let index = 0; index <= lastDirectoryIndex; index++) {
    const reason = directoryReason(segments, index);
    if (reason) return reason;
  }
  if (directory) return undefined;
  const fileReason = fileNameReason(segments);
  if (fileReason) return fileReason;
  // A caller that does not mark directories (a tree walk passing `node_modules`) still gets the
  // directory names, except those that are also common file names.
  const last = segments[segments.length - 1];
  if (directoryOnlyNames.has(last.toLowerCase())) return undefined;
  return directoryReason(segments, segments.length - 1);
}

/**
 * The reason a file is always excluded, from its project-relative POSIX path, or `undefined`.
 * A path ending in `/` is treated as a directory (see `classifyDirectory`). Paths that are
 * absolute or climb out with `..` are `outside-root`.
 */
export function classifyPath(relativePosixPath: string): ExclusionReason | undefined {
  const split = splitPath(relativePosixPath);
  if (split === 'outside-root') return split;
  return classifySegments(split.segments, split.directory);
}

/**
 * The reason a whole directory is excluded, so a tree walk can skip it without listing it. Unlike
 * `classifyPath`, the last segment is always read as a directory: `target` and `build` match here.
 */
export function classifyDirectory(relativePosixDirectory: string): ExclusionReason | undefined {
  const split = splitPath(relativePosixDirectory);
  if (split === 'outside-root') return split;
  return classifySegments(split.segments, true);
}
