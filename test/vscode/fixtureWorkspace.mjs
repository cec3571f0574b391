// Creates the workspace the extension-host tests open: a small git project with source,
// a lockfile and an .env file (both must be excluded). Made fresh per run, outside the repo.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const files = {
  'src/cookies.ts': [
    '/** Parses a Cookie request header into name/value pairs. */',
    'export function parseCookieHeader(header: string): Map<string, string> {',
    '  const cookies = new Map<string, string>();',
    "  for (const part of header.split(';')) {",
    "    const [name, value] = part.split('=');",
    '    if (!name) throw new Error("cookie header is malformed");',
    '    cookies.set(name.trim(), value ?? "");',
    '  }',
    '  return cookies;',
    '}',
    '',
    'export function serializeCookie(name: string, value: string): string {',
    '  return `${name}=${encodeURIComponent(value)}`;',
    '}',
    '',
  ].join('\n'),
  'src/session.ts': [
    "import { parseCookieHeader } from './cookies';",
    '',
    'export class Session {',
    '  constructor(private readonly id: string) {}',
    '',
    '  send(message: string): string {',
    '    return `${this.id}: ${message}`;',
    '  }',
    '',
    '  static fromHeader(header: string): Session {',
    "    return new Session(parseCookieHeader(header).get('sid') ?? 'anonymous');",
    '  }',
    '}',
    '',
  ].join('\n'),
  'src/obsolete.ts': 'export function obsoleteHelper(): number {\n  return 1;\n}\n',
  'scripts/build.py': 'def build_all(targets):\n    """Builds every target."""\n    return [t.upper() for t in targets]\n',
  'README.md': '# Fixture project\n\nA tiny project the Project Knowledge tests index.\n',
  'package-lock.json': '{"lockfileVersion": 3}\n',
  '.env': 'DATABASE_URL=postgres://localhost/dev\n',
};

export function createFixtureWorkspace(prefix = 'pkw-') {
  const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), prefix)));
  for (const [relative, content] of Object.entries(files)) {
    const absolute = path.join(root, relative);
    mkdirSync(path.dirname(absolute), { recursive: true });
    writeFileSync(absolute, content);
  }
  const env = {
    ...process.env,
    GIT_AUTHOR_NAME: 'Test',
    GIT_AUTHOR_EMAIL: 'test@example.invalid',
    GIT_COMMITTER_NAME: 'Test',
    GIT_COMMITTER_EMAIL: 'test@example.invalid',
  };
  execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: root, env });
  execFileSync('git', ['add', '-A'], { cwd: root, env });
  execFileSync('git', ['commit', '-q', '-m', 'fixture'], { cwd: root, env });
  return root;
}
