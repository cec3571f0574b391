/**
 * The plain grep baseline: ripgrep (`rg -F`, smart case, sorted by path so it is deterministic)
 * over the literal terms of each query, keeping the first 8 hits as 80-line windows centred on
 * the hit line, the way a person or an agent reading `rg -C 40` output would. Windows in the
 * same file that overlap are merged, as `rg -C` merges them. Path terms list the files whose
 * path ends with the term and show their first 80 lines (or 80 lines around a `:LINE` suffix).
 * When `rg` is missing, a JavaScript literal scan with the same rules stands in.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describeTask, type TaskDescriptor } from '../../src/core/retrieval/descriptor';
import { estimateTokens } from '../../src/core/tokens';

export interface GrepWindow {
  path: string;
  startLine: number;
  endLine: number;
  tokens: number;
}

export interface GrepBaseline {
  tool: string;
  search(query: string): GrepWindow[];
}

const windowLines = 80;
const hitLimit = 8;

/** The literal strings a person would hand to grep for this request. */
export function grepTerms(descriptor: TaskDescriptor): { literals: string[]; paths: Array<{ path: string; line?: number }> } {
  const literals = new Set<string>();
  for (const phrase of descriptor.phrases) literals.add(phrase);
  for (const fragment of descriptor.errorFragments) literals.add(fragment);
  for (const symbol of descriptor.symbols) literals.add(symbol);
  for (const identifier of descriptor.identifiers) literals.add(identifier);
  if (literals.size === 0) for (const keyword of descriptor.keywords) literals.add(keyword);
  const paths = descriptor.paths.map((requested) => ({
    path: requested,
    line: descriptor.lineHints.find((hint) => hint.path === requested)?.line,
  }));
  return { literals: [...literals].filter((literal) => literal.length >= 2), paths };
}

function listFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (directory: string) => {
    for (const entry of fs.readdirSync(directory, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const absolute = path.join(directory, entry.name);
      if (entry.isDirectory()) walk(absolute);
      else if (entry.isFile()) out.push(path.relative(root, absolute).split(path.sep).join('/'));
    }
  };
  walk(root);
  return out.sort();
}

function hasRipgrep(): boolean {
  try {
    execFileSync('rg', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Lines `path:line` of the first hits, in path order then line order. */
function ripgrepHits(root: string, literals: string[]): Array<{ path: string; line: number }> {
  if (literals.length === 0) return [];
  const args = ['-F', '-S', '-n', '--no-heading', '--sort', 'path', '--max-count', String(hitLimit)];
  for (const literal of literals) args.push('-e', literal);
  args.push('.');
  let output: string;
  try {
    output = execFileSync('rg', args, { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  } catch (error) {
    // Exit status 1 means "no match".
    output = (error as { stdout?: string }).stdout ?? '';
  }
  const hits: Array<{ path: string; line: number }> = [];
  for (const line of output.split('\n')) {
    const match = line.match(/^(?:\.\/)?(.+?):(\d+):/);
    if (match) hits.push({ path: match[1], line: Number(match[2]) });
    if (hits.length >= hitLimit) break;
  }
  return hits;
}

function scanHits(root: string, files: string[], literals: string[]): Array<{ path: string; line: number }> {
  const hits: Array<{ path: string; line: number }> = [];
  const smart = literals.map((literal) => ({ literal, insensitive: literal === literal.toLowerCase() }));
  for (const file of files) {
    const lines = fs.readFileSync(path.join(root, file), 'utf8').split('\n');
    for (let index = 0; index < lines.length; index++) {
      const text = lines[index];
      if (smart.some(({ literal, insensitive }) => (insensitive ? text.toLowerCase().includes(literal) : text.includes(literal)))) {
        hits.push({ path: file, line: index + 1 });
        if (hits.length >= hitLimit) return hits;
      }
    }
  }
  return hits;
}

export function createGrepBaseline(root: string): GrepBaseline {
  const files = listFiles(root);
  const lineCache = new Map<string, string[]>();
  const linesOf = (file: string) => {
    let lines = lineCache.get(file);
    if (!lines) {
      lines = fs.readFileSync(path.join(root, file), 'utf8').split('\n');
      lineCache.set(file, lines);
    }
    return lines;
  };
  const ripgrep = hasRipgrep();
  return {
    tool: ripgrep
      ? 'rg -F -S --sort path (first 8 hits, 80-line windows)'
      : 'JavaScript literal scan (rg missing; first 8 hits, 80-line windows)',
    search(query: string): GrepWindow[] {
      const { literals, paths } = grepTerms(describeTask(query));
      const hits: Array<{ path: string; line: number; fromTop?: boolean }> = [];
      for (const requested of paths) {
        const normalized = requested.path.replace(/\\/g, '/');
        for (const file of files) {
          if (file === normalized || normalized.endsWith(`/${file}`) || file.endsWith(`/${normalized}`))
            hits.push({ path: file, line: requested.line ?? 1, fromTop: requested.line === undefined });
        }
      }
      hits.push(...(ripgrep ? ripgrepHits(root, literals) : scanHits(root, files, literals)));
      const windows: Array<{ path: string; startLine: number; endLine: number }> = [];
      for (const hit of hits.slice(0, hitLimit)) {
        const total = linesOf(hit.path).length;
        const startLine = hit.fromTop ? 1 : Math.max(1, hit.line - windowLines / 2 + 1);
        const endLine = Math.min(total, startLine + windowLines - 1);
        const merged = windows.find((window) => window.path === hit.path && window.startLine <= endLine && startLine <= window.endLine);
        if (merged) {
          merged.startLine = Math.min(merged.startLine, startLine);
          merged.endLine = Math.max(merged.endLine, endLine);
        } else {
          windows.push({ path: hit.path, startLine, endLine });
        }
      }
      return windows.map((window) => ({
        ...window,
        tokens: estimateTokens(
          linesOf(window.path)
            .slice(window.startLine - 1, window.endLine)
            .join('\n'),
        ),
      }));
    },
  };
}
