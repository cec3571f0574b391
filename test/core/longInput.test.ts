import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { describeTask } from '../../src/core/retrieval/descriptor';
import { fixtureFactory, numberedLines, openEngine, structuralParsers } from './fixtures';

const fixture = fixtureFactory();

/** One stack trace per runtime, each from another machine's checkout; innermost frame first in `expected`. */
const traces: Array<{ runtime: string; trace: string; expected: Array<{ path: string; line: number; symbol?: string }> }> = [
  {
    runtime: 'Python',
    trace: [
      'Traceback (most recent call last):',
      '  File "/home/ci/build/app/orders/service.py", line 12, in place',
      '    self.ledger.book(order)',
      '  File "/home/ci/build/app/orders/ledger.py", line 40, in book',
      '    raise LedgerError("ledger is locked")',
      'orders.ledger.LedgerError: ledger is locked',
    ].join('\n'),
    expected: [
      { path: '/home/ci/build/app/orders/ledger.py', line: 40, symbol: 'book' },
      { path: '/home/ci/build/app/orders/service.py', line: 12, symbol: 'place' },
    ],
  },
  {
    runtime: 'JavaScript',
    trace: [
      "TypeError: Cannot read properties of undefined (reading 'total')",
      '    at Cart.sum (/Users/dev/shop/src/cart.ts:18:11)',
      '    at checkout (file:///Users/dev/shop/src/checkout.ts:7:3)',
    ].join('\n'),
    expected: [
      { path: '/Users/dev/shop/src/cart.ts', line: 18, symbol: 'Cart.sum' },
      { path: '/Users/dev/shop/src/checkout.ts', line: 7, symbol: 'checkout' },
    ],
  },
  {
    runtime: 'Go',
    trace: [
      'panic: runtime error: invalid memory address or nil pointer dereference',
      'goroutine 1 [running]:',
      'example.com/shop/server.(*Server).handle(0xc000010000)',
      '\t/go/src/example.com/shop/server/server.go:42 +0x1d',
      'main.main()',
      '\t/go/src/example.com/shop/main.go:9 +0x25',
    ].join('\n'),
    expected: [
      { path: '/go/src/example.com/shop/server/server.go', line: 42, symbol: 'Server.handle' },
      { path: '/go/src/example.com/shop/main.go', line: 9, symbol: 'main' },
    ],
  },
  {
    runtime: 'Java',
    trace: [
      'Exception in thread "main" java.lang.IllegalStateException: cart is empty',
      '\tat com.shop.Cart.total(Cart.java:31)',
      '\tat com.shop.Main.main(Main.java:5)',
    ].join('\n'),
    expected: [
      { path: 'Cart.java', line: 31, symbol: 'Cart.total' },
      { path: 'Main.java', line: 5, symbol: 'Main.main' },
    ],
  },
  {
    runtime: 'Rust',
    trace: [
      "thread 'main' panicked at src/cart.rs:27:9:",
      'cart is empty',
      'stack backtrace:',
      '   0: shop::cart::Cart::total',
      '             at ./src/cart.rs:27:9',
      '   1: shop::main',
      '             at ./src/main.rs:4:5',
    ].join('\n'),
    expected: [
      { path: 'src/cart.rs', line: 27 },
      { path: 'src/cart.rs', line: 27 },
      { path: 'src/main.rs', line: 4, symbol: 'main' },
    ],
  },
  {
    runtime: 'C#',
    trace: [
      'Unhandled exception. System.InvalidOperationException: cart is empty',
      '   at Shop.Billing.Cart.Total() in C:\\agent\\_work\\1\\s\\src\\Billing\\Cart.cs:line 31',
      '   at Shop.Program.Main(String[] args) in C:\\agent\\_work\\1\\s\\src\\Program.cs:line 8',
    ].join('\n'),
    expected: [
      { path: 'C:/agent/_work/1/s/src/Billing/Cart.cs', line: 31, symbol: 'Cart.Total' },
      { path: 'C:/agent/_work/1/s/src/Program.cs', line: 8, symbol: 'Program.Main' },
    ],
  },
];

describe('long inputs: stack traces of six runtimes (issue 14)', () => {
  for (const { runtime, trace, expected } of traces) {
    test(`${runtime} frames give file, line and function, innermost first`, () => {
      const hints = describeTask(trace).lineHints;
      const wanted = expected.filter(
        (frame, index) => expected.findIndex((other) => other.path === frame.path && other.line === frame.line) === index,
      );
      assert.equal(hints.length, wanted.length, JSON.stringify(hints));
      wanted.forEach((frame, index) => {
        assert.equal(hints[index].path, frame.path, `${runtime} frame ${index}`);
        assert.equal(hints[index].line, frame.line, `${runtime} frame ${index}`);
        if (frame.symbol) assert.equal(hints[index].symbol, frame.symbol, `${runtime} frame ${index}`);
      });
    });
  }

  test('frames with absolute paths from another checkout map to the project files; the innermost ranks first', async () => {
    const project = fixture({
      // Line 12 is the call in `place`, line 40 the raise in `book`, as the frames say.
      'app/orders/service.py': `class Service:\n    def place(self, order):\n${'        order.check()\n'.repeat(9)}        self.ledger.book(order)\n`,
      'app/orders/ledger.py': `class Ledger:\n${numberedLines(36, '    # pad')}\n    def book(self, order):\n        if self.locked:\n            raise LedgerError("ledger is locked")\n`,
      'app/other.py': 'def unrelated():\n    return 1\n',
    });
    const engine = await openEngine(project.root, { parsers: structuralParsers() });
    await engine.sync();
    // The frames name /home/ci/build/app/...: the project holds app/orders/... under another root.
    const result = await engine.search(traces[0].trace);
    assert.equal(result.results[0].path, 'app/orders/ledger.py');
    assert.ok(
      result.results[0].startLine <= 40 && 40 <= result.results[0].endLine,
      `${result.results[0].startLine}-${result.results[0].endLine}`,
    );
    assert.ok(result.results.some((item) => item.path === 'app/orders/service.py'));
    // A site-packages copy of the project's package maps by its longest matching folder suffix.
    const installed = await engine.search(
      '  File "/opt/venv/lib/python3.12/site-packages/orders/ledger.py", line 40, in book\nLedgerError: ledger is locked',
    );
    assert.equal(installed.results[0].path, 'app/orders/ledger.py');
    await engine.close();
  });
});

describe('long inputs: pasted issue reports (issue 14)', () => {
  /** Twelve modules sharing everyday words; only one holds the issue's rare identifiers. */
  function modules(): Record<string, string> {
    const files: Record<string, string> = {};
    for (let index = 0; index < 12; index++) {
      files[`pkg/module${index}.py`] = [
        `def handle_request_${index}(request, response):`,
        '    """Handle the request and write the response when the value is set."""',
        '    value = request.get("value")',
        '    if value is None:',
        '        return response',
        '    response.write(value)',
        '    return response',
        '',
      ].join('\n');
    }
    files['pkg/throttle.py'] = [
      'def compute_backoff_jitter(attempt, ceiling):',
      '    """Exponential backoff with full jitter, capped at the ceiling."""',
      '    window = min(ceiling, 2 ** attempt)',
      '    return window * 0.5',
      '',
    ].join('\n');
    return files;
  }

  const issue = [
    '## Retries hammer the server after an outage',
    '',
    'When the request fails, the response handling retries immediately and the value of the wait is always the same.',
    'I expected the backoff to grow. Looking at the code, `compute_backoff_jitter` returns half the window and the',
    'jitter is never random, so every client retries at the same moment. The ceiling also seems ignored when the',
    'attempt is large.',
    '',
    '```python',
    'for attempt in range(10):',
    '    print(compute_backoff_jitter(attempt, ceiling=30))',
    '```',
    '',
    ...Array.from({ length: 30 }, (_, index) => `Log line ${index}: request failed, response status 503, value unset, handling retry.`),
    '',
    'Environment: Python 3.12 on Linux; happens with every request and response size.',
  ].join('\n');

  test('a pasted issue is long: rarity-ranked words, no relevance cut, the file its rare identifier names first', async () => {
    const descriptor = describeTask(issue);
    assert.equal(descriptor.long, true);
    assert.ok(descriptor.symbols.includes('compute_backoff_jitter'));
    assert.equal(descriptor.messagePhrase, undefined);
    const engine = await openEngine(fixture(modules()).root, { parsers: structuralParsers() });
    await engine.sync();
    const result = await engine.search(issue, { limit: 20 });
    assert.equal(result.results[0].path, 'pkg/throttle.py');
    assert.ok(!result.manifest.entries.some((entry) => entry.reason === 'low-relevance'), 'a long input is never relevance-cut');
    const files = await engine.search(issue, { granularity: 'files', limit: 5 });
    assert.equal(files.files?.[0].path, 'pkg/throttle.py');
    await engine.close();
  });

  test('input past 100 KB is bounded, not refused', () => {
    const huge = `${'request failed and was retried. '.repeat(4000)}\ncompute_backoff_jitter`;
    assert.ok(huge.length > 100_000);
    const descriptor = describeTask(huge);
    assert.equal(descriptor.long, true);
    assert.ok(!descriptor.symbols.includes('compute_backoff_jitter'), 'text past the bound is not read');
    assert.ok(describeTask(huge.slice(-60_000)).symbols.includes('compute_backoff_jitter'));
  });
});
