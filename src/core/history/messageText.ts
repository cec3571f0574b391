import { splitIdentifier, stemWord, stopwords, wordsIn } from '../words';

/**
 * What the history part keeps of a commit message and how its words are matched. Indexing and
 * the request side use the same functions, so a request's words meet the messages' words.
 */

/** Characters of a message (subject and body) read: enough for an issue's summary, not a pasted changelog. */
export const maxMessageChars = 2_000;

/** Characters of the subject kept for display (`pk search --files` names the commits that contributed). */
export const maxSubjectChars = 120;

/** Distinct terms a request is matched with: a commit message's words, or a pasted text's first ones. */
export const maxRequestTerms = 64;

/** Trailer lines name people (`Signed-off-by: Name <mail>`, `Co-authored-by:`): never stored. */
const trailerLine = /^\s*[A-Za-z][\w-]*-by:.*$/gm;
/** E-mail addresses anywhere in the text: never stored. */
const emailAddress = /[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g;
/** Long hex runs (`This reverts commit 1f2e…`) are shortened: ids are not words, and no cell holds hash text. */
const longHex = /\b([0-9a-f]{10})[0-9a-f]{6,}\b/gi;

/** The message as stored and matched: capped, without trailers, e-mail addresses or long hex ids. */
export function cleanMessage(message: string): string {
  return message.slice(0, maxMessageChars).replace(trailerLine, '').replace(emailAddress, '').replace(longHex, '$1').trim();
}

/** The first non-empty line of a cleaned message, capped for display. */
export function subjectOf(cleaned: string): string {
  const line = cleaned.split('\n').find((candidate) => candidate.trim().length > 0) ?? '';
  const subject = line.trim();
  return subject.length > maxSubjectChars ? `${subject.slice(0, maxSubjectChars - 3)}...` : subject;
}

/** A word worth matching: not a stopword, not one character, not a bare one-digit number. */
function keep(term: string): boolean {
  return term.length >= 2 && !stopwords.has(term);
}

/**
 * The stemmed words of a text in order of appearance, each identifier also as its parts
 * (`parseHttpHeader` → `parsehttpheader pars http header`), so `fix header parsing` meets it.
 */
export function textTerms(text: string): string[] {
  const terms: string[] = [];
  for (const word of wordsIn(text)) {
    const lower = word.toLowerCase();
    const parts = splitIdentifier(word);
    if (keep(lower)) terms.push(parts.length > 1 ? lower : stemWord(lower));
    if (parts.length > 1) for (const part of parts) if (keep(part)) terms.push(stemWord(part));
  }
  return terms;
}

/** A request's distinct terms, in order of appearance, at most `maxRequestTerms`. */
export function requestTerms(text: string): string[] {
  const distinct: string[] = [];
  const seen = new Set<string>();
  for (const term of textTerms(text.slice(0, 8 * maxMessageChars))) {
    if (seen.has(term)) continue;
    seen.add(term);
    distinct.push(term);
    if (distinct.length >= maxRequestTerms) break;
  }
  return distinct;
}
