import * as nodeAssert from 'node:assert';

/**
 * Counts the assertions tests make, so a test that asserted nothing can be failed instead of
 * passing vacuously. The methods of `node:assert` and `node:assert/strict` are wrapped in place;
 * every test file imports one of those modules, so none needs to change. A bare `assert(value)`
 * call cannot be wrapped this way and does not count: write `assert.ok(value)`.
 */
const assertionNames = [
  'ok',
  'equal',
  'notEqual',
  'strictEqual',
  'notStrictEqual',
  'deepEqual',
  'notDeepEqual',
  'deepStrictEqual',
  'notDeepStrictEqual',
  'throws',
  'doesNotThrow',
  'rejects',
  'doesNotReject',
  'match',
  'doesNotMatch',
  'fail',
  'ifError',
] as const;

let count = 0;
let installed = false;

/** Wraps the assertion methods once; later calls do nothing. */
export function installAssertionCounter(): void {
  if (installed) return;
  installed = true;
  // `import * as` gives a namespace copy in some module systems; patch the real module objects.
  const base = (nodeAssert as unknown as { default?: typeof nodeAssert }).default ?? nodeAssert;
  const loose = base as unknown as Record<string, unknown>;
  for (const target of [loose, base.strict as unknown as Record<string, unknown>]) {
    for (const name of assertionNames) {
      const original = target[name];
      if (typeof original !== 'function') continue;
      const call = original as (...values: unknown[]) => unknown;
      target[name] = function countedAssertion(this: unknown, ...args: unknown[]): unknown {
        count++;
        // Node's match and doesNotMatch tell themselves apart by comparing with `assert.match`, so
        // the original stands there while it runs.
        const current = loose[name];
        loose[name] = original;
        try {
          return call.apply(this, args);
        } finally {
          loose[name] = current;
        }
      };
    }
  }
}

/** How many assertions ran so far in this process. */
export function assertionCount(): number {
  return count;
}

export function noAssertionMessage(title: string): string {
  return `"${title}" made no assertion, so it could not fail: assert what it checks (assert.ok, assert.equal, ...)`;
}
