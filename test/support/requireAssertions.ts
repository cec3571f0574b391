import { afterEach, beforeEach } from 'node:test';
import { assertionCount, installAssertionCounter, noAssertionMessage } from './assertionCounter';

/**
 * Preloaded into every core test process (`node --test --require out/test/support/requireAssertions.js`):
 * a test that made no assertion fails. Top-level hooks apply to every test in the file, nested
 * ones too; a parent test counts the assertions of its subtests.
 */
// `node --test` preloads this into its own orchestrating process too, where hooks would start an
// empty run whose "tests 0" summary printed last; only the test files' processes have this variable.
if (process.env.NODE_TEST_CONTEXT) {
  installAssertionCounter();
  const countAtStart = new WeakMap<object, number>();
  beforeEach((context) => {
    countAtStart.set(context, assertionCount());
  });
  afterEach((context) => {
    if (assertionCount() === countAtStart.get(context)) throw new Error(noAssertionMessage(context.name));
  });
}
