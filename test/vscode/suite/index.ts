import * as path from 'node:path';
import Mocha from 'mocha';

/**
 * Entry point the VS Code test runner loads inside the extension host. PK_SUITE picks the
 * trusted or untrusted (Restricted Mode) tests; both run in the same real VS Code build.
 */
export function run(): Promise<void> {
  const suite = process.env.PK_SUITE ?? 'trusted';
  const mocha = new Mocha({ ui: 'bdd', color: false, timeout: 120_000, reporter: 'spec' });
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
