/**
 * The component a commit subject or issue title names before its text: the scope of a
 * conventional commit (`fix(etag): ...`, `feat(jsx/dom)!: ...`), a bare component prefix
 * (`fish: ...`, `bash: ...`) or a bracketed tag (`[vim] ...`). Projects name these after their
 * folders, modules and file types, so the files whose path holds the scope's words are where such
 * a report is usually fixed.
 */
import { splitIdentifier, stopwords, wordsIn } from '../words';

/** Change types of conventional commits and words of a title that name no component. */
const notComponents = new Set(
  `fix fixes fixed feat feature features chore refactor perf docs doc test tests build ci style revert bugfix hotfix
enhancement improvement wip release bug issue question help proposal rfc breaking deps dependencies security`.split(/\s+/),
);

/** Prefixes of log and error lines (`error: unknown option`): a message, not a component. */
const messagePrefixes =
  /^(?:error|errors|warning|warn|info|debug|trace|fatal|panic|note|hint|exception|traceback|caused|failed|failure|uncaught)$/;

const conventional = /^([A-Za-z][\w-]*)\(([^()\n]{1,40})\)!?:\s+\S/;
const bare = /^([A-Za-z][\w.-]{0,30}):\s+\S/;
const bracketed = /^\[([^\]\n]{1,30})\]\s*\S/;

/**
 * The lower-case words of the subject's scope (`jsx/dom` → `jsx`, `dom`), or undefined when the
 * first line names none. Only the first line of the request counts.
 */
export function subjectScope(text: string): string[] | undefined {
  const first = text.trimStart().split('\n', 1)[0];
  let scope: string | undefined;
  const withType = conventional.exec(first);
  if (withType) scope = withType[2];
  else {
    const tagged = bracketed.exec(first) ?? bare.exec(first);
    if (tagged && !notComponents.has(tagged[1].toLowerCase())) scope = tagged[1];
  }
  if (!scope) return undefined;
  const words = scope
    .toLowerCase()
    .split(/[\s/.,_-]+/)
    .filter((word) => word.length > 0);
  if (words.length === 0 || words.length > 4 || messagePrefixes.test(words[0]) || notComponents.has(words.join(' '))) return undefined;
  return words;
}

/** Whether every word of `scope` is a segment of `path` (folder names, the file name's parts, its extension). */
export function pathInScope(path: string, scope: readonly string[]): boolean {
  const segments = new Set(
    path
      .toLowerCase()
      .split(/[/._-]+/)
      .filter((segment) => segment.length > 0),
  );
  return scope.every((word) => segments.has(word));
}

/** A plain word: letters only, lower-case after an optional capital (`Close`, `update`), unlike `parseHeader` or `HTML5`. */
const plainWord = /^[A-Za-z][a-z]+$/;

/**
 * Plain words that open a line or a sentence of the text and occur nowhere else in it: `Close` of
 * "Close #4848", `Update` of "Update wcwidth", `Remove` of "* Remove debugging". The index declares
 * such words (`Renderer.Close`), but a report's sentence-initial word is its verb, not a name it
 * asks for; the file ranking counts their declarations as weak evidence (`weakNameCeiling`).
 */
export function sentenceInitialWords(text: string): Set<string> {
  const initial = new Set<string>();
  const elsewhere = new Set<string>();
  for (const line of text.split('\n')) {
    let opensSentence = true;
    for (const match of line.matchAll(/[A-Za-z_$][\w$]*|[.!?:](?=\s)/g)) {
      const token = match[0];
      if (/^[.!?:]$/.test(token)) {
        opensSentence = true;
        continue;
      }
      if (plainWord.test(token)) (opensSentence ? initial : elsewhere).add(token);
      opensSentence = false;
    }
  }
  for (const word of elsewhere) initial.delete(word);
  return initial;
}

/** Conventional names of a package's or a module's entry file: they name no component a subject could mean. */
const entryFileStems = new Set(['index', 'mod', 'lib', 'main', 'init']);

/**
 * The file stems (lower-case words joined by spaces) a subject line spells out, each as a whole
 * run of its tokens: "fix foo_bar handling" spells `foo_bar.py` and `fooBar.ts` (foo bar), and
 * "Fix line numbers width" spells `line_numbers.rs`, but not `foo.py` (half of a token).
 */
export function subjectFileNames(subject: string): SubjectNames {
  const words: string[] = [];
  const starts = new Set<number>();
  const ends = new Set<number>();
  for (const token of subject.match(/[\p{L}\p{N}_$-]+/gu) ?? []) {
    const parts = splitIdentifier(token);
    if (parts.length === 0) continue;
    starts.add(words.length);
    words.push(...parts);
    ends.add(words.length);
  }
  return { words, starts, ends };
}

export interface SubjectNames {
  words: string[];
  /** Indexes of `words` that open a token of the subject, and indexes just past a token's last word. */
  starts: Set<number>;
  ends: Set<number>;
}

/** Whether the subject (`subjectFileNames`) spells out the file name of `path` (its stem: the name before its first dot). */
export function subjectNamesFile(subject: SubjectNames, path: string): boolean {
  const base = path.slice(path.lastIndexOf('/') + 1).replace(/^[._]+/, '');
  const stem = splitIdentifier(base.split('.', 1)[0]);
  if (stem.length === 0 || stem.join('').length < 3 || (stem.length === 1 && entryFileStems.has(stem[0]))) return false;
  for (const start of subject.starts) {
    const end = start + stem.length;
    if (!subject.ends.has(end)) continue;
    if (stem.every((word, offset) => subject.words[start + offset] === word)) return true;
  }
  return false;
}

/**
 * Stopwords of a report's subject line that name a file whole: `live` of "fix markup in console
 * live" and `rich/live.py`. The stopword list is written for questions ("where does X live"), but
 * in a fix's subject such a word is the component it changes, and dropping it left the file
 * without a candidate (tune split: `rich/live.py` unranked, second with the word). `namesFile`
 * tells whether the index holds a file of that stem; words under three letters never count.
 */
export function fileNamedStopwords(subject: string, keywords: readonly string[], namesFile: (word: string) => boolean): string[] {
  const found: string[] = [];
  for (const word of new Set(wordsIn(subject.toLowerCase()))) {
    if (word.length < 3 || !stopwords.has(word) || keywords.includes(word)) continue;
    if (namesFile(word)) found.push(word);
  }
  return found;
}

/**
 * Folders of documents, examples, sample data and vendored or fixture files: a fix report is
 * fixed in the project's own code, so for a report their files keep `auxiliaryFileWeight` of
 * their score unless the subject names the folder ("docs: ...", "fix the examples"). Matched as
 * a whole folder name anywhere in the path. `scripts` and `tools` are not among them: pipx's
 * release fixes change `scripts/release.py` (measured with them: two pipx reports lower, three
 * Gitleaks reports higher).
 */
const auxiliaryFolder = /(?:^|\/)(docs?|examples?|etc|fixtures|testdata|vendor|benches|benchmarks?)\//i;

/** Whether `path` lies in an auxiliary folder (`auxiliaryFolder`) that the subject (`subjectFileNames`) does not name. */
export function auxiliaryOutsideSubject(subject: SubjectNames, path: string): boolean {
  const match = auxiliaryFolder.exec(path);
  if (!match) return false;
  const folder = match[1].toLowerCase();
  return !subject.words.some((word) => word === folder || `${word}s` === folder || `${word}es` === folder || `${folder}s` === word);
}
