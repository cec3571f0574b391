/**
 * Blanks comments and string contents with spaces, keeping every line break and every offset,
 * so line-based declaration patterns never fire on text inside a comment or a string and line
 * numbers computed on the stripped text are the editor's line numbers.
 */

export type StripDialect = 'javascript' | 'python' | 'go';

export function dialectFor(language: string): StripDialect | undefined {
  switch (language) {
    case 'typescript':
    case 'tsx':
    case 'javascript':
      return 'javascript';
    case 'python':
      return 'python';
    case 'go':
      return 'go';
    default:
      return undefined;
  }
}

/** Keywords after which a `/` starts a regular expression rather than a division. */
const regexPrecedingWords = new Set([
  'return',
  'typeof',
  'case',
  'do',
  'else',
  'in',
  'of',
  'new',
  'delete',
  'void',
  'throw',
  'yield',
  'await',
  'instanceof',
]);

export function stripCommentsAndStrings(text: string, dialect: StripDialect): string {
  const out = text.split('');
  const blank = (from: number, to: number): void => {
    for (let index = from; index < to && index < out.length; index++) {
      if (out[index] !== '\n' && out[index] !== '\r') out[index] = ' ';
    }
  };
  const length = text.length;
  /** Brace depth inside each open `${` of a template literal, innermost last. */
  const templateBraces: number[] = [];
  let index = 0;
  while (index < length) {
    const character = text[index];
    const next = text[index + 1];
    if (dialect === 'python' ? character === '#' : character === '/' && next === '/') {
      const end = lineEnd(text, index);
      blank(index, end);
      index = end;
    } else if (dialect !== 'python' && character === '/' && next === '*') {
      const close = text.indexOf('*/', index + 2);
      const end = close < 0 ? length : close + 2;
      blank(index, end);
      index = end;
    } else if (character === '"' || character === "'") {
      const triple = dialect === 'python' && text.startsWith(character.repeat(3), index);
      const end = triple ? tripleQuotedEnd(text, index, character) : quotedEnd(text, index, character);
      blank(index, end);
      index = end;
    } else if (character === '`' && dialect === 'go') {
      const close = text.indexOf('`', index + 1);
      const end = close < 0 ? length : close + 1;
      blank(index, end);
      index = end;
    } else if (character === '`' && dialect === 'javascript') {
      index = templateEnd(text, index + 1, blank, templateBraces);
    } else if (
      dialect === 'javascript' &&
      character === '}' &&
      templateBraces.length > 0 &&
      templateBraces[templateBraces.length - 1] === 0
    ) {
      templateBraces.pop();
      index = templateEnd(text, index + 1, blank, templateBraces);
    } else if (dialect === 'javascript' && character === '/' && startsRegex(text, index)) {
      const end = regexEnd(text, index);
      blank(index, end);
      index = end;
    } else {
      if (templateBraces.length > 0) {
        if (character === '{') templateBraces[templateBraces.length - 1]++;
        else if (character === '}') templateBraces[templateBraces.length - 1]--;
      }
      index++;
    }
  }
  return out.join('');
}

function lineEnd(text: string, from: number): number {
  let index = from;
  while (index < text.length && text[index] !== '\n' && text[index] !== '\r') index++;
  return index;
}

/** A single-quoted string ends at its quote or, unterminated, at the end of the line. */
function quotedEnd(text: string, start: number, quote: string): number {
  let index = start + 1;
  while (index < text.length) {
    const character = text[index];
    if (character === '\\') index += 2;
    else if (character === quote) return index + 1;
    else if (character === '\n' || character === '\r') return index;
    else index++;
  }
  return text.length;
}

function tripleQuotedEnd(text: string, start: number, quote: string): number {
  const delimiter = quote.repeat(3);
  let index = start + 3;
  while (index < text.length) {
    if (text[index] === '\\') index += 2;
    else if (text.startsWith(delimiter, index)) return index + 3;
    else index++;
  }
  return text.length;
}

/**
 * Blanks template text up to the closing backtick or the next `${`; in the latter case the
 * substitution stays code and a brace counter remembers where the template resumes.
 */
function templateEnd(text: string, from: number, blank: (from: number, to: number) => void, templateBraces: number[]): number {
  let index = from;
  while (index < text.length) {
    const character = text[index];
    if (character === '\\') {
      index += 2;
    } else if (character === '`') {
      blank(from - 1, index + 1);
      return index + 1;
    } else if (character === '$' && text[index + 1] === '{') {
      blank(from - 1, index + 2);
      templateBraces.push(0);
      return index + 2;
    } else {
      index++;
    }
  }
  blank(from - 1, text.length);
  return text.length;
}

/** Decides from the previous significant token whether a `/` opens a regular expression. */
function startsRegex(text: string, slash: number): boolean {
  if (text[slash + 1] === '/' || text[slash + 1] === '*') return false;
  let index = slash - 1;
  while (index >= 0 && (text[index] === ' ' || text[index] === '\t')) index--;
  if (index < 0 || text[index] === '\n' || text[index] === '\r') return true;
  const previous = text[index];
  if ('(,=:[!&|?{};+-*%<>~^'.includes(previous)) return true;
  if (/[\w$]/.test(previous)) {
    let wordStart = index;
    while (wordStart > 0 && /[\w$]/.test(text[wordStart - 1])) wordStart--;
    return regexPrecedingWords.has(text.slice(wordStart, index + 1));
  }
  return false;
}

function regexEnd(text: string, start: number): number {
  let index = start + 1;
  let inClass = false;
  while (index < text.length) {
    const character = text[index];
    if (character === '\\') index += 2;
    else if (character === '\n' || character === '\r') return index;
    else if (character === '[') {
      inClass = true;
      index++;
    } else if (character === ']') {
      inClass = false;
      index++;
    } else if (character === '/' && !inClass) return index + 1;
    else index++;
  }
  return text.length;
}
