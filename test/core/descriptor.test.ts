import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { describeTask, errorFragmentsOf, searchWords, stemTerms, stemWord, type TaskDescriptor } from '../../src/core/retrieval/descriptor';

type Expectation = Partial<{
  [K in keyof TaskDescriptor]: TaskDescriptor[K] extends Array<infer T> ? T[] : TaskDescriptor[K];
}> & {
  /** Values that must not appear in the named list. */
  not?: Partial<Record<keyof TaskDescriptor, unknown[]>>;
};

/** Realistic developer requests and what the descriptor must pick out of each (a subset check per list). */
const cases: Array<[string, Expectation]> = [
  // paths
  ['src/core/retrieval/retrieve.ts', { paths: ['src/core/retrieval/retrieve.ts'], actionable: true }],
  ['what does ./scripts/build.sh do', { paths: ['scripts/build.sh'], natural: true }],
  ['open cookies.py', { paths: ['cookies.py'] }],
  ['error in src\\http\\client.ts', { paths: ['src/http/client.ts'] }],
  ['look at src/store.ts:120', { paths: ['src/store.ts'], lineHints: [{ path: 'src/store.ts', line: 120 }] }],
  ['src/app.tsx:42:7 crashes on mount', { paths: ['src/app.tsx'], lineHints: [{ path: 'src/app.tsx', line: 42 }] }],
  ['see docs/guide.md#L10-L20', { paths: ['docs/guide.md'], lineHints: [{ path: 'docs/guide.md', line: 10 }] }],
  ['/usr/lib/python3.11/http/client.py', { paths: ['/usr/lib/python3.11/http/client.py'] }],
  ['C:\\work\\app\\src\\main.rs panics', { paths: ['C:/work/app/src/main.rs'] }],
  ['update the Makefile and Dockerfile', { paths: ['Makefile', 'Dockerfile'] }],
  [
    'input/output handling and/or buffering',
    { paths: [], not: { paths: ['input/output', 'and/or'] }, keywords: ['input', 'output', 'buffering'] },
  ],
  [
    'https://example.com/docs/api.html explains the endpoint',
    { not: { paths: ['https://example.com/docs/api.html'] }, keywords: ['endpoint'] },
  ],
  // qualified symbols
  ['Session.send', { qualifiedSymbols: ['Session.send'], symbols: ['send'], identifiers: ['Session', 'send'] }],
  ['how does Foo::bar work?', { qualifiedSymbols: ['Foo.bar'], symbols: ['bar'], natural: true }],
  ['obj#method is slow', { qualifiedSymbols: ['obj.method'], symbols: ['method'] }],
  ['self->buffer->flush()', { qualifiedSymbols: ['self.buffer.flush'], symbols: ['flush'] }],
  ['call OpenerDirector.open() twice', { qualifiedSymbols: ['OpenerDirector.open'], symbols: ['open'] }],
  ['import urllib.request first', { qualifiedSymbols: ['urllib.request'], modules: ['urllib.request'] }],
  ['e.g. a test, i.e. any test', { qualifiedSymbols: [], not: { qualifiedSymbols: ['e.g', 'i.e'] } }],
  ['is Node.js required?', { technologies: ['node'], qualifiedSymbols: [] }],
  // identifiers of every case style
  ['parseCookieHeader', { identifiers: ['parseCookieHeader'], symbols: ['parseCookieHeader'] }],
  ['where is parse_http_list defined?', { identifiers: ['parse_http_list'], symbols: ['parse_http_list'], not: { keywords: ['defined'] } }],
  ['the content-type header is wrong', { identifiers: ['content-type'], keywords: ['header'] }],
  ['HTTPServer subclass', { identifiers: ['HTTPServer'], symbols: ['HTTPServer'] }],
  ['MAX_LINE_LENGTH is too small', { identifiers: ['MAX_LINE_LENGTH'] }],
  ['what calls http2time', { identifiers: ['http2time'], symbols: ['http2time'] }],
  ['why is __init__ called twice', { identifiers: ['__init__'] }],
  ['rename `$scope` to `ctx`', { identifiers: ['$scope'], symbols: ['ctx'] }],
  ['the ParserChain and TreeSitterParser classes', { symbols: ['ParserChain', 'TreeSitterParser'] }],
  // error messages and stack traces
  [
    "TypeError: Cannot read properties of undefined (reading 'x')",
    { errorTypes: ['TypeError'], errorFragments: ['Cannot read properties of undefined', 'reading'].slice(0, 1), actionable: true },
  ],
  ['ValueError: Port out of range 0-65535', { errorTypes: ['ValueError'], errorFragments: ['Port out of range'] }],
  [
    "http.cookies.CookieError: Illegal key 'a b'",
    { errorTypes: ['CookieError'], errorFragments: ['Illegal key'], not: { phrases: ['a b'] } },
  ],
  ['I get "ECONNRESET" and then Error: socket hang up when uploading', { phrases: ['ECONNRESET'], errorFragments: ['socket hang up'] }],
  ['panic: runtime error: index out of range [3] with length 3', { errorFragments: ['index out of range', 'with length'] }],
  ['error[E0382]: borrow of moved value: `config`', { errorFragments: ['borrow of moved value'] }],
  [
    [
      'Traceback (most recent call last):',
      '  File "/srv/app/main.py", line 12, in <module>',
      '    run()',
      '  File "/srv/app/worker.py", line 40, in run',
      '    job.execute()',
      "KeyError: 'job_id'",
    ].join('\n'),
    {
      paths: ['/srv/app/worker.py', '/srv/app/main.py'],
      lineHints: [
        { path: '/srv/app/worker.py', line: 40, symbol: 'run', frame: 0 },
        { path: '/srv/app/main.py', line: 12, symbol: undefined, frame: 1 },
      ],
      errorTypes: ['KeyError'],
      not: { symbols: ['run', 'execute'] },
    },
  ],
  [
    [
      "TypeError: Cannot read properties of undefined (reading 'send')",
      '    at Session.flush (/app/src/session.ts:88:13)',
      '    at processTicksAndRejections (node:internal/process/task_queues:95:5)',
    ].join('\n'),
    {
      paths: ['/app/src/session.ts'],
      lineHints: [{ path: '/app/src/session.ts', line: 88, symbol: 'Session.flush', frame: 0 }],
      errorTypes: ['TypeError'],
    },
  ],
  [
    'Exception in thread "main" java.lang.NullPointerException\n\tat com.acme.Billing.charge(Billing.java:57)',
    { paths: ['Billing.java'], lineHints: [{ path: 'Billing.java', line: 57, symbol: 'Billing.charge', frame: 0 }] },
  ],
  // quoted phrases
  ['"cookie header is malformed"', { phrases: ['cookie header is malformed'] }],
  ["find 'retry budget exceeded' in the logs code", { phrases: ['retry budget exceeded'] }],
  ['“as G-d intended”', { phrases: ['as G-d intended'] }],
  ['`self._now = int(time.time())`', { phrases: ['self._now = int(time.time())'] }],
  ['`parseHeader` in `src/http.ts`', { symbols: ['parseHeader'], paths: ['src/http.ts'], phrases: [] }],
  ["don't retry when the user's token expired", { phrases: [], keywords: ['retry', 'token', 'expired'] }],
  // technologies and prose
  ['how do we configure webpack for the react app?', { technologies: ['webpack', 'react'], keywords: ['configure'], natural: true }],
  ['where are cookies parsed?', { keywords: ['cookies', 'parsed'], natural: true, symbols: [], actionable: true }],
  ['urlopen', { symbols: ['urlopen'], keywords: ['urlopen'], natural: false }],
  [
    'Explain how the Cookie jar persists to disk',
    { symbols: ['Cookie'], keywords: ['jar', 'persists', 'disk'], natural: true, not: { symbols: ['Explain'] } },
  ],
  // a plural acronym in a sentence is an English word, not a mixed-case identifier
  [
    'how are URLs ending with a slash redirected?',
    { keywords: ['url', 'slash'], natural: true, not: { symbols: ['URLs'], identifiers: ['URLs'] } },
  ],
  ['list the IDs of open sessions', { keywords: ['id', 'sessions'], not: { symbols: ['IDs'] } }],
  ['parseHTTPs', { symbols: ['parseHTTPs'] }],
  // an error wrapped in a log line: the log prefix is literal text too; a quoted value keeps the whole message as a phrase
  [
    "Error processing request: TypeError: Cannot read properties of undefined (reading 'method')",
    { errorTypes: ['TypeError'], errorFragments: ['Error processing request', 'Cannot read properties of undefined'] },
  ],
  [
    'Error: JWT auth middleware requires options for "alg"',
    { phrases: ['JWT auth middleware requires options for "alg"'], errorFragments: ['JWT auth middleware requires options for'] },
  ],
  ['ValueError: bad query field', { phrases: [], errorFragments: ['bad query field'] }],
  // nothing worth retrieving
  ['code', { actionable: false }],
  ['function', { actionable: false }],
  ['fix the bug', { actionable: false }],
  ['the', { actionable: false }],
  ['python', { actionable: false }],
  ['Error', { actionable: false }],
  ['  ', { actionable: false }],
];

function subset<T>(actual: T[], expected: T[], label: string): void {
  for (const value of expected)
    assert.ok(
      actual.some((item) => JSON.stringify(item) === JSON.stringify(value)),
      `${label}: expected ${JSON.stringify(value)} in ${JSON.stringify(actual)}`,
    );
}

describe('task descriptor on realistic requests', () => {
  test('there are at least 40 cases', () => assert.ok(cases.length >= 40, `${cases.length}`));
  for (const [request, expectation] of cases) {
    test(request.split('\n')[0].slice(0, 70) || '(blank)', () => {
      const descriptor = describeTask(request);
      for (const [key, value] of Object.entries(expectation)) {
        if (key === 'not') continue;
        const actual = descriptor[key as keyof TaskDescriptor];
        if (Array.isArray(value)) {
          if (value.length === 0) assert.deepEqual(actual, [], `${key} should be empty`);
          else subset(actual as unknown[], value, key);
        } else {
          assert.equal(actual, value, key);
        }
      }
      for (const [key, forbidden] of Object.entries(expectation.not ?? {})) {
        const actual = descriptor[key as keyof TaskDescriptor] as unknown[];
        for (const value of forbidden ?? [])
          assert.ok(!actual.includes(value), `${key} must not contain ${JSON.stringify(value)}: ${JSON.stringify(actual)}`);
      }
    });
  }

  test('stopwords never become keywords or symbols', () => {
    const descriptor = describeTask('where is the code that would be used for it');
    assert.deepEqual(
      descriptor.keywords.filter((word) => ['where', 'is', 'the', 'that', 'would', 'be', 'used', 'for', 'it'].includes(word)),
      [],
    );
    assert.equal(descriptor.actionable, false);
  });

  test('a generic word next to a specific one still counts for full-text search', () => {
    const descriptor = describeTask('how is the content type of a message determined');
    assert.ok(descriptor.actionable);
    const words = searchWords(descriptor);
    assert.ok(words.includes('type') && words.includes('content') && words.includes('message'), words.join(' '));
  });

  test('identifier parts and path words feed the full-text words', () => {
    const words = searchWords(describeTask('parseCookieHeader in src/http/cookie_jar.py'));
    for (const word of ['parsecookieheader', 'parse', 'cookie', 'header', 'jar'])
      assert.ok(words.includes(word), `${word} in ${words.join(' ')}`);
    assert.ok(!words.includes('py'));
  });

  test('error fragments drop quoted values, numbers and paths', () => {
    assert.deepEqual(errorFragmentsOf("Cannot read properties of undefined (reading 'x')"), ['Cannot read properties of undefined']);
    assert.deepEqual(errorFragmentsOf('got more than 65536 bytes when reading header line'), [
      'got more than',
      'bytes when reading header line',
    ]);
    assert.deepEqual(errorFragmentsOf("ENOENT: no such file or directory, open '/tmp/x.json'"), ['no such file or directory']);
  });

  test('the stemmer is symmetric for the usual inflections', () => {
    for (const group of [
      ['parse', 'parsed', 'parser', 'parsing', 'parses'],
      ['cookie', 'cookies'],
      ['redirect', 'redirects', 'redirected', 'redirection'],
      ['chunk', 'chunked', 'chunks'],
      ['save', 'saved', 'saving'],
    ]) {
      const stems = new Set(group.map(stemWord));
      assert.equal(stems.size, 1, `${group.join(',')} → ${[...stems].join(',')}`);
    }
    assert.deepEqual(stemTerms('parsed'), ['parse', 'parses', 'parser', 'parsers', 'parsing']);
    assert.deepEqual(stemTerms('saved'), ['sav', 'save', 'savs', 'saves', 'saver', 'savers', 'saving']);
    assert.deepEqual(stemTerms('cookies'), ['cookie', 'cooky']);
    assert.ok(stemTerms('redirects').includes('redirection'));
    for (const word of ['parsed', 'saved', 'cookies', 'redirects', 'widget']) {
      for (const term of stemTerms(word)) {
        assert.equal(stemWord(term), stemWord(word), `${word} → ${term}`);
        assert.match(term, /^[a-z]+$/, 'whole words only, never a prefix query');
      }
    }
    assert.deepEqual(stemTerms('parse_qsl'), []);
  });

  test('the same request always gives the same descriptor', () => {
    const request = 'ValueError: bad query field in urllib/parse.py:796 when calling parse_qsl("a&b", strict_parsing=True)';
    assert.deepEqual(describeTask(request), describeTask(request));
  });

  test('attached paths count as paths', () => {
    const descriptor = describeTask('explain this', ['src\\core\\engine.ts']);
    assert.deepEqual(descriptor.paths, ['src/core/engine.ts']);
    assert.ok(descriptor.actionable);
  });
});
