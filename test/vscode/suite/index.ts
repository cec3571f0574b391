import * as path from 'node:path';
import Mocha from 'mocha';
import { assertionCount, installAssertionCounter, noAssertionMessage } from '../../support/assertionCounter';

/**
 * Entry point the VS Code test runner loads inside the extension host. PK_SUITE picks the
 * trusted or untrusted (Restricted Mode) tests; both run in the same real VS Code build.
 */
export function run(): Promise<void> {
  const suite = process.env.PK_SUITE ?? 'trusted';
  const mocha = new Mocha({ ui: 'bdd', color: false, timeout: 120_000, reporter: 'spec' });
  installAssertionCounter();
  mocha.suite.on(Mocha.Suite.constants.EVENT_FILE_POST_REQUIRE, () => requireAssertions(mocha.suite));
  mocha.addFile(path.join(__dirname, `${suite}.test.js`));
  return new Promise((resolve, reject) => {
    mocha.run((failures) => {
      const passed = mocha.suite.total() - failures;
      console.log(`${passed} passed, ${failures} failed`);
      if (failures > 0) reject(new Error(`${failures} tests failed.`));
      else resolve();
    });
  });
}

const checked = new WeakSet<Mocha.Test>();

/** Wraps every test so that one which made no assertion fails instead of passing vacuously. */
function requireAssertions(suite: Mocha.Suite): void {
  for (const test of suite.tests) {
    const original = test.fn;
    // Callback-style tests (a `done` parameter) are left alone; every test here is async.
    if (!original || original.length > 0 || checked.has(test)) continue;
    checked.add(test);
    test.fn = async function (this: Mocha.Context) {
      const before = assertionCount();
      await (original as (this: Mocha.Context) => unknown).call(this);
      if (assertionCount() === before) throw new Error(noAssertionMessage(test.fullTitle()));
    };
  }
  for (const child of suite.suites) requireAssertions(child);
}
