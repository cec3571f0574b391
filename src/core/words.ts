/**
 * Word helpers shared by indexing, full-text queries and the embeddings: the stopword list, the
 * words of a text as FTS4 splits them, the light stemmer and identifier splitting. A module of
 * their own, so that none of their users has to import another's module (and its imports) to get
 * them.
 */

export const stopwords = new Set(
  `a about above after again against all am an and any are aren as at be because been before being
below between both but by can cannot could did do does doing don down during each few for from further get gets got had has
have having he her here hers him his how i if in into is isn it its itself just let me more most my no nor not now of off on
once only or other our ours out over own please same she should show so some such tell than that the their them then there
these they this those through to too under until up very was we were what when where which while who whom why will with
would you your yours find look see explain work works working happen happens happening used use using via also need want
onto i'm it's whats what's where's hows done make makes made may might must shall hey hi thanks thank ok okay
defined declared implemented located lives live there's wrong right doesn't don't isn't can't won't didn't
able anything something somewhere everything every whether many much`.split(/\s+/),
);

/** The characters the FTS4 `unicode61` tokenizer (with `_` as a token character) keeps in a word. */
const unicodeWord = /[\p{L}\p{N}_]+/gu;
/** On ASCII text the letters, digits and `_` of `unicodeWord` are these: the same words, found about three times faster. */
const asciiWord = /[A-Za-z0-9_]+/g;
const nonAscii = /[\u0080-\uffff]/;

/** Whether every UTF-16 unit of the text is ASCII: then `\p{L}` and `\p{N}` are `[A-Za-z]` and `[0-9]` in it. */
export function isAscii(text: string): boolean {
  return !nonAscii.test(text);
}

/**
 * The words of a text as FTS4 splits it, in order and as written: `text.match(/[\p{L}\p{N}_]+/gu)`,
 * with the ASCII pattern where the text has no other character (most code, and most of its lines).
 */
export function wordsIn(text: string): string[] {
  return (isAscii(text) ? text.match(asciiWord) : text.match(unicodeWord)) ?? [];
}

/**
 * Split identifiers in two generations of up to `splitCacheLimit` each: a full current one becomes
 * the previous one, whose hits move back into the current. One map of 50,000 cleared when full
 * held up to 12-20 MB in every thread that splits (the engine's and each parse worker's); two of
 * 8,192 hold a third of that and keep 89.6 % hits against 90.6 % on the 5,000-file bench corpus
 * (94.6 against 95.7 % on vscode-copilot-chat).
 */
let splitCache = new Map<string, string[]>();
let previousSplits = new Map<string, string[]>();
const splitCacheLimit = 8_192;

/** Splits `parseHttpHeader`, `parse_http_header`, `HTTPServer2` into lower-case parts. */
export function splitIdentifier(identifier: string): string[] {
  // Identifiers repeat across a project; splitting each distinct one once saves most of the work.
  let parts = splitCache.get(identifier);
  if (!parts) {
    // An identifier is usually a slice of its file's text, and V8 keeps the whole text alive for a
    // slice, so cached ones held thousands of files' sources (after 400 files of the bench corpus,
    // 10 MB of a parse worker's 22 to 37 MB of live heap). Key and parts come from a copy of the identifier alone.
    const key = ` ${identifier}`.slice(1);
    parts = previousSplits.get(key) ?? splitUncached(key);
    if (splitCache.size >= splitCacheLimit) {
      previousSplits = splitCache;
      splitCache = new Map();
    }
    splitCache.set(key, parts);
  }
  return parts;
}

/** What a character of ASCII text is to the splitting rules. */
const separator = 0;
const lowerCase = 1;
const upperCase = 2;
const digit = 3;

function charKind(code: number): number {
  if (code >= 97 && code <= 122) return lowerCase;
  if (code >= 65 && code <= 90) return upperCase;
  if (code >= 48 && code <= 57) return digit;
  return separator;
}

/**
 * `splitUncached`'s rules in one pass over ASCII text, about nine times faster than its three
 * Unicode patterns (identifier splitting was a tenth of a parse worker's time): a part ends at a
 * separator, before an upper-case letter that follows a lower-case letter or a digit, and before
 * the last upper-case letter of a run that a lower-case letter follows (`HTTPServer`). Returns
 * undefined at the first character beyond ASCII, so the same pass tells whether the text is
 * ASCII (a pattern test of every identifier first cost as much again). A part is lower-cased
 * only when it holds an upper-case letter.
 */
export function splitAscii(identifier: string): string[] | undefined {
  const parts: string[] = [];
  const length = identifier.length;
  let start = -1;
  let previous = separator;
  let upper = false;
  let code = length > 0 ? identifier.charCodeAt(0) : 0;
  for (let index = 0; index <= length; index++) {
    if (code > 127) return undefined;
    const next = index + 1 < length ? identifier.charCodeAt(index + 1) : 0;
    const current = index < length ? charKind(code) : separator;
    if (current === separator) {
      if (start >= 0) parts.push(upper ? identifier.slice(start, index).toLowerCase() : identifier.slice(start, index));
      start = -1;
    } else if (start < 0) {
      start = index;
      upper = current === upperCase;
    } else if (
      current === upperCase &&
      (previous === lowerCase || previous === digit || (previous === upperCase && index + 1 < length && charKind(next) === lowerCase))
    ) {
      parts.push(upper ? identifier.slice(start, index).toLowerCase() : identifier.slice(start, index));
      start = index;
      upper = true;
    } else if (current === upperCase) {
      upper = true;
    }
    previous = current;
    code = next;
  }
  return parts;
}

/**
 * The splitting rules as three Unicode patterns: what every identifier went through before ASCII
 * text got `splitAscii`, still used for the rest (the tests hold `splitAscii` to it).
 */
export function splitByPatterns(identifier: string): string[] {
  return identifier
    .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, '$1 $2')
    .replace(/(\p{Lu}+)(\p{Lu}\p{Ll})/gu, '$1 $2')
    .split(/[^\p{L}\p{N}]+/u)
    .filter((part) => part.length > 0)
    .map((part) => part.toLowerCase());
}

function splitUncached(identifier: string): string[] {
  return splitAscii(identifier) ?? splitByPatterns(identifier);
}

/**
 * A light English stemmer shared by the full-text variants and the embeddings, so a question's
 * inflected words meet the code's words: `parse`, `parsed`, `parser`, `parsing` → `pars`;
 * `cookie`, `cookies` → `cooki`; `redirects`, `redirection` → `redirect`. Not linguistics, just
 * enough to be deterministic and symmetric.
 */
export function stemWord(word: string): string {
  let stem = word.toLowerCase();
  if (!/^[a-z]+$/.test(stem) || stem.length <= 3) return stem;
  if (stem.endsWith('ies') && stem.length > 4) stem = `${stem.slice(0, -3)}i`;
  else if (stem.endsWith('sses')) stem = stem.slice(0, -2);
  else if (stem.endsWith('s') && !/(?:ss|us|is)$/.test(stem)) stem = stem.slice(0, -1);
  for (const suffix of ['ations', 'ation', 'ition', 'ion', 'ments', 'ment', 'ings', 'ing', 'ed', 'er', 'ly']) {
    if (stem.endsWith(suffix) && stem.length - suffix.length >= 3) {
      stem = stem.slice(0, -suffix.length);
      break;
    }
  }
  if (stem.length >= 4 && stem.endsWith('e')) stem = stem.slice(0, -1);
  if (stem.length > 3 && stem.endsWith('y')) stem = `${stem.slice(0, -1)}i`;
  return stem;
}

/** Endings tried on a stem; a result counts only if it stems back to the same stem. */
const variantEndings = ['', 'e', 's', 'es', 'ed', 'er', 'ers', 'ing'];

/**
 * The extra full-text terms for a prose `word`: the usual inflections with the same stem, as
 * whole words (`parsed` → `parse`, `parses`, `parser`, `parsers`, `parsing`; `cookies` →
 * `cookie`, `cooky`; `saved` → `sav`, `save`, `saves`, `saver`, `savers`, `saving`). Whole words,
 * not a `pars*` prefix: a prefix makes FTS4 merge the lists of every word it starts (`transf*`
 * is also `transform` and `transformer`), which was most of a prose query's time. A word that is
 * not in the index costs one lookup.
 */
export function stemTerms(word: string): string[] {
  const stem = stemWord(word);
  if (!/^[a-z]+$/.test(stem) || stem.length < 3) return [];
  const candidates = stem.endsWith('i')
    ? [`${stem}e`, `${stem}es`, `${stem.slice(0, -1)}y`]
    : [...variantEndings.map((ending) => stem + ending), ...(/(?:t|ss)$/.test(stem) ? [`${stem}ion`, `${stem}ions`] : [])];
  return [...new Set(candidates)].filter((variant) => variant !== word && stemWord(variant) === stem);
}
