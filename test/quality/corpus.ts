/**
 * The retrieval quality corpus: a real codebase nobody here wrote, available offline — the
 * HTTP-, mail- and URL-handling packages of the CPython 3.11 standard library as Debian ships
 * them (`libpython3.11-stdlib` 3.11.2). The expected locations in `queries.ts` were read from
 * exactly these files, so every file the queries cite is pinned by its SHA-256 and a different
 * Python build is refused rather than silently mis-scored.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** Packages copied into the corpus root (the answers live in the first three; the rest are distractors). */
export const corpusPackages = ['http', 'email', 'urllib', 'json', 'html', 'wsgiref', 'xmlrpc'];

/** Where a Python 3.11.2 standard library may be; `PK_QUALITY_STDLIB` overrides. */
function candidateLibraries(): string[] {
  const fromEnv = process.env.PK_QUALITY_STDLIB;
  return [...(fromEnv ? [fromEnv] : []), '/usr/lib/python3.11', '/usr/local/lib/python3.11'];
}

/** SHA-256 of every file the expected locations cite (3.11.2 as shipped by Debian 12). */
export const pinnedHashes: Record<string, string> = {
  'email/feedparser.py': '6f8faf3d77fbdc2096f8bbedfd58c3d58e7937a11f0d652b43a2b842a5597625',
  'email/generator.py': 'b9595d3b534944d7c0fc80111ee01dd39471c7d6497b0480dca6a25e40082100',
  'email/header.py': '99921e2aa7ae5ae1433a0e3f92c732026677417c39923996c11931589ff8a361',
  'email/message.py': '58d34f90058df562ca873c0097998ffb60ed5fe596e7e8138b5c450094d0d6c7',
  'email/mime/multipart.py': '53730a1a7807d8af12b88665d8f474f48bf39ed1ef4c47433267a44ef54b0ba7',
  'email/utils.py': '9251b7c229d1da3e75ad3fad1808c921e881cad3e467b65a78dd319bbd8b9b1b',
  'http/client.py': '1ad7262e82589459b83fc0a6819cb42377f6419d1730fddd0c3b8f4adf4a094e',
  'http/cookiejar.py': '9587a95edc194a19513e8a8fa9a942cd9fe6217489697ee998a7ae544fb9d603',
  'http/cookies.py': '90db84a895e9da62e09a0957a01b6a70cbf7614ab3df266b57627dfa53f33a9f',
  'http/server.py': '31d73e6096b563192213210bbb2406cd35245ecb2313348e91fc92588ad529d8',
  'json/decoder.py': '9f02654649816145bc76f8c210a5fe3ba1de142d4d97a1c93105732e747c285b',
  'json/encoder.py': '7c358788fbb2a6a07f66f1f8446c52396f35fc201108f666d5be002d86f31af2',
  'urllib/parse.py': 'd2bf673217a06bf4e450f355b9843482265664a3d6cfcfa00bc31944c9a8deb1',
  'urllib/request.py': 'f29f151dc9c93d61d5779a37af58586b239ee0f797f71b6de7a725ab519e060d',
  'urllib/robotparser.py': '389b811835f9a3ba72b192c3487b0266fa31f6e571b7a83ceb2a34792dc0d9fc',
};

export interface QualityCorpus {
  root: string;
  source: string;
  files: number;
  lines: number;
  cleanup(): void;
}

function sha256(file: string): string {
  return createHash('sha256').update(fs.readFileSync(file)).digest('hex');
}

function copyPython(from: string, to: string): { files: number; lines: number } {
  let files = 0;
  let lines = 0;
  fs.mkdirSync(to, { recursive: true });
  for (const entry of fs.readdirSync(from, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (entry.name === '__pycache__') continue;
    const source = path.join(from, entry.name);
    const target = path.join(to, entry.name);
    if (entry.isDirectory()) {
      const inner = copyPython(source, target);
      files += inner.files;
      lines += inner.lines;
    } else if (entry.isFile() && entry.name.endsWith('.py')) {
      const text = fs.readFileSync(source);
      fs.writeFileSync(target, text);
      files++;
      lines += text.toString('utf8').split('\n').length;
    }
  }
  return { files, lines };
}

/** Finds the pinned library and copies its packages into a fresh temporary root. */
export function prepareCorpus(pins: Record<string, string> = pinnedHashes): QualityCorpus {
  const tried: string[] = [];
  for (const library of candidateLibraries()) {
    if (!fs.existsSync(path.join(library, 'http', 'cookies.py'))) {
      tried.push(`${library} (missing)`);
      continue;
    }
    const mismatched = Object.entries(pins).filter(
      ([relative, hash]) => !fs.existsSync(path.join(library, relative)) || sha256(path.join(library, relative)) !== hash,
    );
    if (mismatched.length > 0) {
      tried.push(`${library} (${mismatched.length} pinned files differ, e.g. ${mismatched[0][0]})`);
      continue;
    }
    const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'pk-quality-')));
    let files = 0;
    let lines = 0;
    for (const name of corpusPackages) {
      const copied = copyPython(path.join(library, name), path.join(root, name));
      files += copied.files;
      lines += copied.lines;
    }
    return { root, source: library, files, lines, cleanup: () => fs.rmSync(root, { recursive: true, force: true }) };
  }
  throw new Error(`No pinned Python 3.11.2 standard library found (set PK_QUALITY_STDLIB). Tried: ${tried.join('; ')}`);
}
