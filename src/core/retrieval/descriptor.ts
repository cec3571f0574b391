import { splitIdentifier, stopwords, wordsIn } from '../words';

// The shared word helpers live in `words.ts`; re-exported here for the retrieval modules.
export { stemTerms, stemWord, stopwords } from '../words';

/** A file position named by the request: `path:line`, `#L12`, or a stack-trace frame. */
export interface LineHint {
  path: string;
  line: number;
  /** The function a stack frame names, when it names one. */
  symbol?: string;
  /** Position in a stack trace, 0 = innermost (where the error was raised). */
  frame?: number;
}

/** What a free-text request asks for, in the terms the index can look up (SPEC §8). */
export interface TaskDescriptor {
  text: string;
  /** Project paths, basenames or paths from elsewhere (absolute, Windows), POSIX-normalized. */
  paths: string[];
  lineHints: LineHint[];
  /** Dotted lower-case names that may be modules (`urllib.request`, `os.path`). */
  modules: string[];
  /** `Outer.inner`, `Foo::bar`, `obj#method`, `a->b`, normalized to dots. */
  qualifiedSymbols: string[];
  /** Names to look up as exact declarations. */
  symbols: string[];
  /**
   * Plain words of a multi-word request (`loop`, `closed` in "Event loop is closed"): looked up as
   * declarations only when the index declares the name rarely, and then below an exact phrase.
   */
  proseSymbols: string[];
  /**
   * The whole request when it reads like a message (several words on one line, not a question):
   * where it occurs literally — a raised error, a log line, a UI string — is the answer.
   */
  messagePhrase?: string;
  /** Identifier-like tokens: camelCase, PascalCase, snake_case, kebab-case, SCREAMING_CASE, with digits. */
  identifiers: string[];
  phrases: string[];
  /** Whole error lines as pasted (`TypeError: Cannot read properties of undefined (reading 'x')`). */
  errorMessages: string[];
  /** Exception or error type names from those lines (`TypeError`, `CookieError`). */
  errorTypes: string[];
  /** The literal parts of error messages, with quoted values, numbers and paths cut out. */
  errorFragments: string[];
  technologies: string[];
  /** Lower-case content words (stopwords dropped, except `fileNamedWords`). */
  keywords: string[];
  /**
   * Stopwords of the request's first line that name an indexed file whole (`live` and
   * `rich/live.py`): the retrieval adds them (`fileNamedStopwords`), since there they name a
   * component; the full-text search then looks for them like any keyword.
   */
  fileNamedWords?: string[];
  /** The request reads as a sentence or question rather than a lookup. */
  natural: boolean;
  /** A pasted issue, log or stack trace (long or many lines): no relevance cut, rarity-weighted words, more symbols. */
  long: boolean;
  /** False when the request holds nothing worth retrieving for (e.g. a lone generic word). */
  actionable: boolean;
}

/** Words that alone say nothing about where to look. */
export const genericWords = new Set(
  `code file files function functions class classes method methods project repo repository
thing things stuff bug bugs error errors issue issues problem problems help fix fixes test tests implementation module modules
variable variables value values type types data logic program source app application feature features line lines call calls
return returns object objects string strings number numbers list lists item items name names new old way ways part parts`.split(/\s+/),
);

const technologyWords = new Set(
  `react vue angular svelte express fastify koa next nextjs node nodejs deno bun typescript
javascript python django flask fastapi go golang rust cargo java spring kotlin csharp dotnet php laravel ruby rails bash shell
sql sqlite postgres postgresql mysql redis mongodb graphql grpc rest http https websocket websockets docker kubernetes k8s
terraform aws gcp azure webpack vite esbuild jest mocha vitest pytest git json yaml toml html css tailwind wasm webassembly
tree-sitter npm pnpm yarn pip c++ c# swift`.split(/\s+/),
);

/** Dotted names that are technologies or abbreviations, never symbols. */
const dottedNonSymbols =
  /^(?:e\.g|i\.e|etc|vs|node\.js|vue\.js|next\.js|nuxt\.js|react\.js|three\.js|asp\.net|\w+\.(?:com|org|net|io|dev|edu|gov|co|uk|de))$/i;

const fileExtension =
  /\.(?:[cm]?[jt]sx?|py|pyi|pyw|go|rs|java|kt|kts|scala|cs|fs|c|h|cc|cpp|cxx|hpp|hh|m|mm|php|rb|erb|sh|bash|zsh|ps1|psm1|json|jsonc|ya?ml|toml|md|mdx|rst|css|scss|sass|less|html?|sql|xml|ini|cfg|conf|lock|txt|vue|svelte|swift|scm|lua|pl|pm|r|dart|ex|exs|erl|hs|ml|clj|gradle|proto|graphql|gql|tf|env|dockerfile)$/i;
const specialFiles = /^(?:Makefile|Dockerfile|Rakefile|Gemfile|Procfile|Jenkinsfile|CMakeLists\.txt|\.gitignore|\.editorconfig|\.npmrc)$/;

const interrogatives = new Set([
  'how',
  'where',
  'what',
  'why',
  'when',
  'which',
  'who',
  'does',
  'do',
  'is',
  'are',
  'can',
  'should',
  'could',
  'would',
  'will',
  'explain',
  'show',
  'find',
  'tell',
]);

function unique<T>(values: T[]): T[] {
  return [...new Set(values)];
}

/** camelCase, PascalCase with two humps, snake_case, kebab-case, SCREAMING_CASE, letters with digits, `$x`, `__init__`. */
export function isIdentifierLike(word: string): boolean {
  if (/^[$_]/.test(word) && /[A-Za-z]/.test(word)) return true;
  if (/_/.test(word) && /[A-Za-z]/.test(word)) return true;
  if (/[a-z][A-Z]/.test(word) || /[A-Z]{2,}[a-z]/.test(word)) return true;
  if (/^[A-Za-z][a-z0-9]*(?:-[A-Za-z][a-z0-9]*)+$/.test(word) && /[a-z]/.test(word)) return true;
  if (/^[A-Za-z]+\d+[A-Za-z0-9]*$/.test(word) && /[A-Za-z]{2,}/.test(word)) return true;
  return false;
}

function isPathLike(token: string): boolean {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(token)) return false;
  if (/^[A-Za-z]:[\\/]/.test(token)) return true;
  const last = token.split(/[\\/]/).pop() ?? '';
  if (specialFiles.test(last)) return true;
  if (fileExtension.test(last) && /[A-Za-z]/.test(last.replace(fileExtension, ''))) return true;
  const slashes = (token.match(/[\\/]/g) ?? []).length;
  if (slashes === 0) return false;
  if (/^(?:\.{1,2}[\\/]|[\\/]|~[\\/])/.test(token) || /[\\/]$/.test(token)) return /[A-Za-z]/.test(token);
  return slashes >= 2 && /[A-Za-z]/.test(token);
}

/** Splits `path:12:5`, `path#L12`, `path(12,5)` into the path and its line. */
function splitLineSuffix(token: string): { path: string; line?: number } {
  const match = token.match(/^(.*?)(?::(\d+)(?::\d+)?|#L(\d+)(?:-L?\d+)?|\((\d+)(?:,\d+)?\))$/);
  if (match && match[1]) return { path: match[1], line: Number(match[2] ?? match[3] ?? match[4]) };
  return { path: token };
}

function normalizePath(value: string): string {
  return value
    .replace(/\\/g, '/')
    .replace(/^\.\//, '')
    .replace(/\/{2,}/g, '/');
}

interface Frame {
  path: string;
  line: number;
  symbol?: string;
}

/** A Go frame's function line (`main.(*Server).handle(0xc000010000)`) as `Server.handle`, or undefined. */
function goFunction(line: string): string | undefined {
  const match = line.match(/^(?:[\w.-]+\/)*[\w-]+\.(?:\(\*?(\w+)\)\.)?(\w+)\(.*\)\s*$/);
  if (!match) return undefined;
  return match[1] ? `${match[1]}.${match[2]}` : match[2];
}

/**
 * Stack-trace frames of the common runtimes (Python, V8, JVM, .NET, Go, Rust); returns the frames
 * (innermost first) and the text without them. A Go or Rust frame names its function on the line
 * before its path, so that line is kept until the path line claims it.
 */
function extractFrames(text: string): { frames: Frame[]; rest: string } {
  const lines = text.split(/\r\n|\r|\n/);
  const python: Frame[] = [];
  const others: Frame[] = [];
  const kept: string[] = [];
  let afterPythonFrame = false;
  let pendingFunction: string | undefined;
  for (const line of lines) {
    const claimed = pendingFunction;
    pendingFunction = undefined;
    const py = line.match(/^\s*File "([^"]+)", line (\d+)(?:, in ([\w$<>.]+))?/);
    if (py) {
      python.push({ path: py[1], line: Number(py[2]), symbol: py[3] && !py[3].startsWith('<') ? py[3] : undefined });
      afterPythonFrame = true;
      continue;
    }
    if (afterPythonFrame && /^\s{2,}\S/.test(line)) continue; // the quoted source line (and ^^^ markers) of a frame
    afterPythonFrame = false;
    const markerLine = /^\s*\^[\s^~]*$/.test(line) || /^\s*Traceback \(most recent call last\):?\s*$/.test(line);
    if (markerLine || /^goroutine \d+ \[/.test(line)) continue;
    // .NET: "   at Shop.Orders.OrderService.Place(Order order) in C:\src\Shop\OrderService.cs:line 42"
    const dotnet = line.match(/^\s*at ([\w$.`<>]+)\.([\w$`<>]+)\([^)]*\) in (.+?):line (\d+)\s*$/);
    if (dotnet) {
      const owner = dotnet[1].split('.').pop() as string;
      others.push({ path: dotnet[3], line: Number(dotnet[4]), symbol: `${owner}.${dotnet[2]}` });
      continue;
    }
    // Node / V8: "    at fn (src/a.ts:12:5)" or "    at src/a.ts:12:5" (also Rust's "at ./src/a.rs:12:5")
    const v8 = line
      .replace(/\bfile:\/\//, '')
      .match(/^\s*at (?:(?:async )?([\w$.<>[\] ]+?) \()?((?:[A-Za-z]:)?[^\s():]+):(\d+)(?::\d+)?\)?\s*$/);
    if (v8) {
      const symbol = v8[1]
        ?.replace(/^Object\.|^new /, '')
        .replace(/<anonymous>/, '')
        .trim();
      others.push({ path: v8[2], line: Number(v8[3]), symbol: symbol || claimed });
      continue;
    }
    // JVM: "at com.acme.Foo.bar(Foo.java:42)"
    const jvm = line.match(/^\s*at ([\w$.]+)\.([\w$<>]+)\(([\w$.-]+\.\w+):(\d+)\)\s*$/);
    if (jvm) {
      const owner = jvm[1].split('.').pop() as string;
      others.push({ path: jvm[3], line: Number(jvm[4]), symbol: `${owner}.${jvm[2]}` });
      continue;
    }
    // Rust panics: "thread 'main' panicked at src/main.rs:10:5:" (and the older "panicked at 'msg', src/main.rs:10:5")
    const rustPanic = line.match(/panicked at (?:'[^']*', )?((?:[A-Za-z]:)?[^\s:']+\.rs):(\d+)(?::\d+)?:?\s*$/);
    if (rustPanic) {
      others.push({ path: rustPanic[1], line: Number(rustPanic[2]) });
      continue;
    }
    // Go panics: "\t/src/app/main.go:12 +0x1d"; Rust: "--> src/main.rs:10:5"
    const goOrRust = line.match(/^\s*(?:-->\s*)?((?:[A-Za-z]:)?[^\s:]+\.(?:go|rs|c|cc|cpp|h)):(\d+)(?::\d+)?(?:\s+\+0x[0-9a-f]+)?\s*$/);
    if (goOrRust) {
      others.push({ path: goOrRust[1], line: Number(goOrRust[2]), symbol: claimed });
      continue;
    }
    // A Go function line, or a Rust backtrace entry ("  2: app::orders::place"), names the next
    // frame's function; the line stays in the text, since it may be code that is no frame at all.
    const rustFunction = line.match(/^\s*\d+: ((?:[\w<>]+::)*([\w]+))(?:::h[0-9a-f]{16})?\s*$/);
    pendingFunction = rustFunction ? rustFunction[2] : goFunction(line);
    kept.push(line);
  }
  // Python prints the innermost frame last; V8, the JVM, .NET, Go and Rust print it first.
  return { frames: [...python.reverse(), ...others], rest: kept.join('\n') };
}

const errorTypePattern = String.raw`(?:[A-Za-z_][\w]*\.)*(?:[A-Z][\w]*(?:Error|Exception|Exit|Interrupt|Warning|Fault|Failure|Disconnected|Timeout|Refused|TooLong|NotFound|Invalid)\w*|Error|Exception|panic|fatal|FATAL|ERROR|error(?:\[E\d+\])?)`;
const errorLine = new RegExp(String.raw`(?:^|\s|Uncaught\s+|thrown:?\s+)(${errorTypePattern}):\s+(\S[^\n]{2,300})`, 'g');
const dottedExceptionLine = /^\s*((?:[a-z_]\w*\.)+[A-Z]\w*):\s+(\S[^\n]{2,300})$/gm;

/** The literal runs of an error message: quoted values, numbers, paths and punctuation split it. */
export function errorFragmentsOf(message: string): string[] {
  const cut = message
    .replace(/(?:\b[bru]|(?<!\w))'[^'\n]*'(?!\w)|"[^"\n]*"|`[^`\n]*`|«[^»\n]*»/g, ' | ')
    .replace(/\S*[\\/]\S*/g, ' | ')
    .replace(/\b0x[0-9a-f]+\b|\b\d+(?:\.\d+)*\b/gi, ' | ')
    .replace(/[:;()[\]{}<>=,|!?]+/g, ' | ');
  const runs: string[] = [];
  for (const part of cut.split('|')) {
    const words = part
      .trim()
      .split(/\s+/)
      .filter((word) => /[\p{L}]/u.test(word));
    const run = words.join(' ').replace(/^[.-]+|[.-]+$/g, '');
    if (words.length >= 2 && run.length >= 6) runs.push(run);
  }
  return unique(runs);
}

/** Pasted text past this is ignored (SPEC §8: issue reports, stack traces and logs up to 100 KB). */
const maxInputLength = 100_000;
/** A request longer than this, or with more lines, is a pasted text rather than a typed request. */
const longInputLength = 1_500;
const longInputLines = 20;
/** Declarations looked up for one request at most: a pasted text can name hundreds of identifiers. */
const maxLongSymbols = 64;

/**
 * The request as a literal message, or undefined: one line of three to 24 words, not a question,
 * naming no path, with at least two plain content words (not identifiers: "parse_qsl timeout" is
 * a lookup, "Event loop is closed" a message). Two words ("invoice total") are a lookup: as a
 * literal they would match code like `invoice.total` everywhere.
 */
function messageShape(rest: string, rawTokens: string[], firstWord: string): string | undefined {
  const line = rest.trim().replace(/\s+/g, ' ');
  if (rawTokens.length < 3 || rawTokens.length > 24 || /[\n?]/.test(rest.trim()) || interrogatives.has(firstWord)) return undefined;
  if (line.length < 8 || line.length > 300 || rawTokens.some((token) => isPathLike(token.replace(/[.:,;'`]+$/, '')))) return undefined;
  const plain = rawTokens
    .map((token) => token.replace(/^\W+|\W+$/g, ''))
    .filter((word) => /^\p{L}{2,}$/u.test(word) && !stopwords.has(word.toLowerCase()));
  return plain.length >= 2 ? line : undefined;
}

/** First words of a question: it asks how something works, and a passage answers it. */
const questionStart = /^(?:how|what|where|which|when|why|who|whose|does|do|did|is|are|was|can|could|should|would|will)\b/i;

/** Words of a defect report: what is broken, or that it was fixed. */
const defectWords =
  /\b(?:fix|fixes|fixed|fixing|bug|bugs|crash|crashes|crashed|panic|panics|regression|broken|breaks|wrong|incorrect|errors?|fails?|failed|failing|failure|issues?|exception)\b/i;

/** Whether a line reads as a question: a question word first, or a question mark last. */
export function readsAsQuestion(line: string): boolean {
  return questionStart.test(line.trim()) || /\?\s*$/.test(line);
}

/**
 * Whether a short request is a sentence that reports a defect and is not a question ("Fix markup
 * in console live", a fix's subject): its answer is the place to change, not a passage that
 * explains how something works.
 */
export function reportsDefect(descriptor: TaskDescriptor): boolean {
  const text = descriptor.text.trim();
  return descriptor.natural && defectWords.test(text) && !readsAsQuestion(text);
}

/** Builds a task descriptor from a chat prompt, tool input or search box text. */
export function describeTask(input: string, attachedPaths: string[] = []): TaskDescriptor {
  const text = input.trim();
  // Fence markers of pasted code blocks say nothing; the code inside is tokenized like the rest.
  const bounded = (text.length > maxInputLength ? text.slice(0, maxInputLength) : text).replace(/^\s*(?:```|~~~)[\w+-]*\s*$/gm, '');
  const lineCount = bounded.split('\n').length;
  const long = bounded.length > longInputLength || lineCount > longInputLines;
  const paths: string[] = attachedPaths.map(normalizePath);
  const lineHints: LineHint[] = [];
  const modules: string[] = [];
  const qualifiedSymbols: string[] = [];
  const symbols: string[] = [];
  const proseSymbols: string[] = [];
  const identifiers: string[] = [];
  const phrases: string[] = [];
  const errorMessages: string[] = [];
  const errorTypes: string[] = [];
  const errorFragments: string[] = [];
  const technologies: string[] = [];
  const keywords: string[] = [];
  const proseWords: string[] = [];

  // 1. Stack frames: each gives a path, a line and often the function.
  const { frames, rest: withoutFrames } = extractFrames(bounded);
  frames.forEach((frame, index) => {
    const normalized = normalizePath(frame.path);
    paths.push(normalized);
    lineHints.push({ path: normalized, line: frame.line, symbol: frame.symbol, frame: index });
  });

  // 2. Error lines: the type is a name to look for, the message's literal runs are phrases.
  let rest = withoutFrames;
  const takeError = (type: string, message: string, whole: string) => {
    const cleanMessage = message
      .trim()
      .replace(/\s+(?:when|while|after|if|in my|on my)\s[^'"]*$/i, (tail) => (tail.length > 40 ? tail : ''));
    errorMessages.push(whole.trim());
    const typeName = type.split('.').pop() as string;
    if (/^[A-Z]/.test(typeName) && !['Error', 'Exception', 'ERROR', 'FATAL'].includes(typeName)) errorTypes.push(typeName);
    const fragments = errorFragmentsOf(cleanMessage);
    errorFragments.push(...fragments);
    // With its quoted values, the whole message tells apart the lines that raise the same wording
    // for another value (`requires options for "secret"` / `"alg"`); where it is not literal, the fragments still find it.
    if (!long && fragments.length > 0 && /(?<!\w)'[^'\n]+'(?!\w)|"[^"\n]+"|`[^`\n]+`/.test(cleanMessage)) phrases.push(cleanMessage);
  };
  rest = rest.replace(dottedExceptionLine, (whole, type: string, message: string) => {
    takeError(type, message, whole);
    return ' ';
  });
  rest = rest.replace(errorLine, (whole, type: string, message: string, offset: number, input: string) => {
    takeError(type, message, whole);
    // A log line wrapping the error ("Error processing request: TypeError: ...") is literal text
    // of the source too: the words before the error on its line are a fragment to find.
    const prefix = input.slice(input.lastIndexOf('\n', offset) + 1, offset);
    if (!long && /:\s*$/.test(prefix)) errorFragments.push(...errorFragmentsOf(prefix));
    return ' ';
  });

  // 3. Quoted phrases. An apostrophe inside a word (don't, user's) never opens or closes one.
  rest = rest.replace(
    /"([^"\n]{2,300})"|“([^”\n]{2,300})”|`([^`\n]{1,300})`|(?<![\w'])'([^'\n]{2,300})'(?![\w'])/g,
    (_whole, a?: string, b?: string, c?: string, d?: string) => {
      const phrase = (a ?? b ?? c ?? d ?? '').trim();
      if (!phrase) return ' ';
      const codeToken = /^[\w./\\:#$@~-]+(?:\(\))?$/.test(phrase);
      if (c !== undefined && codeToken) {
        // `parseHeader`, `src/a.ts`: look it up as a token; a back-quoted plain word (`ctx`) is a name.
        if (/^[A-Za-z_$][\w$]*$/.test(phrase) && !stopwords.has(phrase.toLowerCase())) symbols.push(phrase);
        return ` ${phrase} `;
      }
      if (codeToken && !/\s/.test(phrase) && (isPathLike(phrase) || isIdentifierLike(phrase) || /[.:#]/.test(phrase))) return ` ${phrase} `;
      phrases.push(phrase);
      // Code inside a phrase still names identifiers worth searching for.
      for (const word of phrase.match(/[A-Za-z_$][\w$]*/g) ?? []) if (isIdentifierLike(word)) identifiers.push(word);
      return ' ';
    },
  );

  // 4. Tokens.
  rest = rest.replace(/([\w$)])->(?=[A-Za-z_$])/g, '$1.');
  const rawTokens = rest.split(/[\s,;()[\]{}<>!?"“”|]+/).filter(Boolean);
  const contentTokens = rawTokens.filter((token) => !stopwords.has(token.toLowerCase().replace(/[^\w'-]/g, '')));
  const firstWord = rawTokens[0]?.toLowerCase().replace(/[^\w]/g, '') ?? '';
  const stopwordCount = rawTokens.length - contentTokens.length;
  const natural =
    rawTokens.length >= 3 && (interrogatives.has(firstWord) || /\?\s*$/.test(rest) || stopwordCount >= 2 || rawTokens.length >= 5);
  let sentenceStart = true;
  for (const raw of rawTokens) {
    const startsSentence = sentenceStart;
    sentenceStart = /[.!?:]$/.test(raw);
    const token = raw.replace(/^[^\w./\\$#:~@-]+|[.:'`]+$/g, '').replace(/^['`]+/, '');
    if (!token) continue;
    if (dottedNonSymbols.test(token)) {
      if (/\.js$|^asp\.net$/i.test(token)) technologies.push(token.toLowerCase().replace(/\.js$/, ''));
      continue;
    }
    if (isPathLike(token) || (/:\d|#L\d|\(\d/.test(token) && isPathLike(splitLineSuffix(token).path))) {
      const { path, line } = splitLineSuffix(token);
      const normalized = normalizePath(path);
      paths.push(normalized);
      if (line !== undefined && line > 0) lineHints.push({ path: normalized, line });
      for (const part of normalized
        .split('/')
        .pop()
        ?.replace(fileExtension, '')
        .split(/[._-]+/) ?? [])
        if (part.length >= 3) identifiers.push(part);
      continue;
    }
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(token)) continue;
    const lower = token.toLowerCase();
    if (technologyWords.has(lower)) {
      technologies.push(lower);
      keywords.push(lower);
      continue;
    }
    const qualified = token.match(/^[A-Za-z_$][\w$]*(?:(?:\.|::|#|->)[A-Za-z_$][\w$]*)+(?:\(\))?$/);
    if (qualified) {
      const normalized = token.replace(/\(\)$/, '').replace(/::|#|->/g, '.');
      const parts = normalized.split('.');
      qualifiedSymbols.push(normalized);
      symbols.push(parts[parts.length - 1]);
      identifiers.push(...parts.filter((part) => part.length >= 2));
      if (parts.every((part) => /^[a-z_][a-z0-9_]*$/.test(part))) modules.push(normalized);
      continue;
    }
    const word = token.replace(/\(\)$/, '');
    if (!/^[\p{L}\p{N}_$-]+$/u.test(word) || /^-+$/.test(word)) {
      for (const part of word.match(/[\p{L}\p{N}_$]+/gu) ?? [])
        if (!stopwords.has(part.toLowerCase()) && part.length >= 2) keywords.push(part.toLowerCase());
      continue;
    }
    if (stopwords.has(lower)) continue;
    // A plural acronym in prose (`URLs`, `IDs`, `APIs`) is an English word, not a mixed-case identifier.
    if (/^[A-Z]{2,}s$/.test(word) && !/^[A-Z]+$/.test(word)) {
      keywords.push(lower.slice(0, -1));
      proseWords.push(lower.slice(0, -1));
      continue;
    }
    if (isIdentifierLike(word)) {
      identifiers.push(word);
      symbols.push(word);
      continue;
    }
    if (/^\d+$/.test(word)) {
      if (word.length >= 3) keywords.push(word);
      continue;
    }
    if (lower.length < 2) continue;
    if (/^[A-Z][a-z0-9]+$/.test(word) && !startsSentence && !genericWords.has(lower)) {
      // A capitalized word mid-sentence is usually a type name (`Session`, `Cookie`); in a pasted
      // issue it is as often a product or a person, so there it counts only if rarely declared.
      (long ? proseSymbols : symbols).push(word);
      keywords.push(lower);
      continue;
    }
    keywords.push(lower);
    proseWords.push(/^[A-Z]+$/.test(word) ? word : lower);
  }
  // A one-word request ("urlopen") names a declaration. In a longer request a plain word ("loop"
  // in "Event loop is closed") is a declaration only where the index declares it rarely (see
  // `collectCandidates`), and never in a sentence or a pasted text.
  const lookupWords = proseWords.filter((word) => word.length >= 3 && !genericWords.has(word.toLowerCase()));
  if (rawTokens.length === 1) symbols.push(...lookupWords);
  else if (!natural && !long) proseSymbols.push(...lookupWords);

  // A message typed as it appears ("Event loop is closed", "http: Server closed"): the whole line is a
  // literal to find, and its runs between values and punctuation are fragments (`%s`, `{}` stand there).
  // The request as typed, quoted values included ("Illegal key 'a b'": the source has `%r` there);
  // a request that is only a quoted phrase is looked up as that phrase.
  const typedTokens = withoutFrames.split(/[\s,;()[\]{}<>!?"“”|]+/).filter(Boolean);
  const outsideQuotes = rawTokens.some((token) => /\p{L}{2,}/u.test(token) && !stopwords.has(token.toLowerCase()));
  const messagePhrase =
    long || errorMessages.length > 0 || !outsideQuotes ? undefined : messageShape(withoutFrames, typedTokens, firstWord);
  if (messagePhrase) {
    for (const fragment of errorFragmentsOf(messagePhrase)) {
      if (fragment.toLowerCase() !== messagePhrase.toLowerCase()) errorFragments.push(fragment);
    }
  }

  const descriptor: TaskDescriptor = {
    text,
    paths: unique(paths.filter((path) => path.length > 0)),
    lineHints: lineHints.filter(
      (hint, index) => lineHints.findIndex((other) => other.path === hint.path && other.line === hint.line) === index,
    ),
    modules: unique(modules),
    qualifiedSymbols: unique(qualifiedSymbols),
    symbols: unique(symbols).slice(0, long ? maxLongSymbols : undefined),
    proseSymbols: unique(proseSymbols)
      .filter((word) => !symbols.includes(word))
      .slice(0, maxLongSymbols),
    messagePhrase,
    identifiers: unique(identifiers),
    phrases: unique(phrases),
    errorMessages: unique(errorMessages),
    errorTypes: unique(errorTypes),
    errorFragments: unique(errorFragments),
    technologies: unique(technologies),
    keywords: unique(keywords),
    natural,
    long,
    actionable: true,
  };
  const specific =
    descriptor.paths.length +
    descriptor.qualifiedSymbols.length +
    descriptor.identifiers.length +
    descriptor.phrases.length +
    descriptor.errorMessages.length +
    descriptor.symbols.filter((symbol) => !genericWords.has(symbol.toLowerCase())).length;
  const meaningful = descriptor.keywords.filter((keyword) => !genericWords.has(keyword) && !technologyWords.has(keyword));
  descriptor.actionable = specific > 0 || meaningful.length > 0;
  return descriptor;
}

/**
 * Every lower-case word the full-text search should look for, most specific first: identifiers
 * and their parts, literal words of phrases and errors, content keywords, then path words.
 */
export function searchWords(descriptor: TaskDescriptor, limit = 32): string[] {
  const words: string[] = [];
  const kept = descriptor.fileNamedWords;
  const add = (word: string) => {
    if (word.length >= 2 && (!stopwords.has(word) || kept?.includes(word))) words.push(word);
  };
  for (const identifier of descriptor.identifiers) {
    add(identifier.toLowerCase());
    for (const part of splitIdentifier(identifier)) add(part);
  }
  for (const type of descriptor.errorTypes) {
    add(type.toLowerCase());
    for (const part of splitIdentifier(type)) add(part);
  }
  for (const phrase of [...descriptor.phrases, ...descriptor.errorFragments]) {
    for (const word of wordsIn(phrase.toLowerCase())) add(word);
  }
  // Generic words ("error", "type", "line") cannot trigger a search alone, but next to other words they still say what to look for.
  for (const keyword of descriptor.keywords) add(keyword);
  for (const path of descriptor.paths) {
    const name = path.split('/').pop() ?? path;
    for (const word of name
      .replace(fileExtension, '')
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? [])
      add(word);
  }
  return unique(words).slice(0, limit);
}
