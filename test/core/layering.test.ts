import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';

const repository = path.resolve(__dirname, '..', '..', '..');

function sourceFiles(directory: string): string[] {
  return fs.readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

test('src/core never imports vscode', () => {
  const offenders = sourceFiles(path.join(repository, 'src', 'core')).filter((file) =>
    /from\s+['"]vscode['"]|require\(\s*['"]vscode['"]\s*\)|import\(\s*['"]vscode['"]\s*\)/.test(fs.readFileSync(file, 'utf8')),
  );
  assert.deepEqual(offenders, []);
});

test('src/core and src/cli never import the extension layer', () => {
  const files = [...sourceFiles(path.join(repository, 'src', 'core')), ...sourceFiles(path.join(repository, 'src', 'cli'))];
  const offenders = files.filter((file) => /from\s+['"][./]*\.\.\/vscode\//.test(fs.readFileSync(file, 'utf8')));
  assert.deepEqual(offenders, []);
});
