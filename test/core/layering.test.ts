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

/** The relative modules `file` imports at run time (`import type` erases and is left out), as absolute .ts paths. */
function runtimeImports(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  const imports: string[] = [];
  for (const match of text.matchAll(/^import\s+(type\s+)?[^'"]*?from\s+['"](\.[^'"]+)['"]/gm)) {
    if (match[1]) continue;
    // `import { type A, type B } from` erases too.
    const names = /\{([^}]*)\}/.exec(match[0])?.[1];
    if (names && names.split(',').every((name) => name.trim() === '' || name.trim().startsWith('type '))) continue;
    const target = path.resolve(path.dirname(file), match[2]);
    imports.push(fs.existsSync(`${target}.ts`) ? `${target}.ts` : path.join(target, 'index.ts'));
  }
  return imports;
}

test('in the extension only the WorkspaceIndex facade talks to the engine worker', () => {
  const vscodeLayer = path.join(repository, 'src', 'vscode');
  const facade = path.join(vscodeLayer, 'workspaceIndex.ts');
  const client = path.join(repository, 'src', 'core', 'worker', 'engineClient.ts');
  // A module sends requests when it imports the client, or a module other than the facade that does.
  const memo = new Map<string, boolean>();
  const reachesClient = (file: string, seen = new Set<string>()): boolean => {
    if (file === client) return true;
    if (file === facade || seen.has(file) || !fs.existsSync(file)) return false;
    seen.add(file);
    const known = memo.get(file);
    if (known !== undefined) return known;
    const result = runtimeImports(file).some((target) => reachesClient(target, seen));
    memo.set(file, result);
    return result;
  };
  assert.ok(runtimeImports(facade).includes(client), 'the facade itself uses the worker client');
  const offenders = sourceFiles(vscodeLayer)
    .filter((file) => file !== facade)
    .flatMap((file) => {
      const text = fs.readFileSync(file, 'utf8');
      const name = path.relative(repository, file);
      return [
        ...(reachesClient(file) ? [`${name} imports a module that sends worker requests`] : []),
        ...(/\.request\(|worker_threads|\bengine\(\)/.test(text) ? [`${name} sends worker requests itself`] : []),
        ...(/workspace\.isTrusted/.test(text) ? [`${name} reads Workspace Trust (only the facade does)`] : []),
      ];
    });
  assert.deepEqual(offenders, []);
  assert.ok(!/return this\.client\s*;/.test(fs.readFileSync(facade, 'utf8')), 'the facade never hands out its worker client');
});
