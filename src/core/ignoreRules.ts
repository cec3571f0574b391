/**
 * A small gitignore-syntax matcher for `.pkignore` and user exclude globs. It follows the
 * gitignore rules that matter in practice: comments, negation, anchoring by a leading or inner
 * slash, directory-only patterns, `*`, `?`, `[...]` and `**`. The last matching rule wins, and a
 * file under an ignored directory stays ignored (as in git).
 */

interface Rule {
  regex: RegExp;
  negated: boolean;
  directoryOnly: boolean;
}

function globToRegexSource(glob: string): string {
  let source = '';
  for (let index = 0; index < glob.length; index++) {
    const char = glob[index];
    if (char === '*') {
      if (glob[index + 1] === '*') {
        const atSegmentStart = index === 0 || glob[index - 1] === '/';
        const atSegmentEnd = index + 2 === glob.length || glob[index + 2] === '/';
        if (atSegmentStart && atSegmentEnd) {
          if (index + 2 === glob.length) {
            source += '.*';
          } else {
            source += '(?:.*/)?';
            index++; // the slash after `**` is part of the group
          }
          index++;
          continue;
        }
      }
      source += '[^/]*';
    } else if (char === '?') {
      source += '[^/]';
    } else if (char === '[') {
      const close = glob.indexOf(']', index + 2);
      if (close === -1) {
        source += '\\[';
      } else {
        let body = glob.slice(index + 1, close).replace(/\\/g, '\\\\');
        if (body.startsWith('!')) body = '^' + body.slice(1);
        source += `[${body}]`;
        index = close;
      }
    } else if (char === '\\' && index + 1 < glob.length) {
      source += glob[index + 1].replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
      index++;
    } else {
      source += char.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    }
  }
  return source;
}

function parseLine(rawLine: string): Rule | undefined {
  let line = rawLine.replace(/(?<!\\)\s+$/, '');
  if (line === '' || line.startsWith('#')) return undefined;
  let negated = false;
  if (line.startsWith('!')) {
    negated = true;
    line = line.slice(1);
  } else if (line.startsWith('\\!') || line.startsWith('\\#')) {
    line = line.slice(1);
  }
  let directoryOnly = false;
  if (line.endsWith('/')) {
    directoryOnly = true;
    line = line.slice(0, -1);
  }
  if (line === '') return undefined;
  const anchored = line.includes('/');
  if (line.startsWith('/')) line = line.slice(1);
  const body = globToRegexSource(line);
  const prefix = anchored ? '^' : '^(?:.*/)?';
  return { regex: new RegExp(`${prefix}${body}$`), negated, directoryOnly };
}

export class IgnoreRules {
  private readonly rules: Rule[];

  constructor(patterns: Iterable<string>) {
    this.rules = [];
    for (const pattern of patterns) {
      const rule = parseLine(pattern);
      if (rule) this.rules.push(rule);
    }
  }

  static fromText(text: string): IgnoreRules {
    return new IgnoreRules(text.split(/\r?\n/));
  }

  get isEmpty(): boolean {
    return this.rules.length === 0;
  }

  /** Whether one path (not its ancestors) matches; `isDirectory` enables directory-only rules. */
  private matchesSelf(relativePath: string, isDirectory: boolean): boolean | undefined {
    let result: boolean | undefined;
    for (const rule of this.rules) {
      if (rule.directoryOnly && !isDirectory) continue;
      if (rule.regex.test(relativePath)) result = !rule.negated;
    }
    return result;
  }

  /** Whether a project-relative POSIX path is ignored, directly or through an ignored ancestor. */
  ignores(relativePath: string, isDirectory = false): boolean {
    if (this.rules.length === 0) return false;
    const segments = relativePath.split('/');
    for (let depth = 1; depth < segments.length; depth++) {
      if (this.matchesSelf(segments.slice(0, depth).join('/'), true)) return true;
    }
    return this.matchesSelf(relativePath, isDirectory) === true;
  }
}
