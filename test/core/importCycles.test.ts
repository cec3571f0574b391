import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';

const repository = path.resolve(__dirname, '..', '..', '..');
const sourceRoot = path.join(repository, 'src');

function sourceFiles(directory: string): string[] {
  return fs.readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/**
 * The relative imports of one module, type-only ones included (a type cycle still ties the
 * modules' shapes together), resolved the way TypeScript resolves them: `x.ts`, else `x/index.ts`.
 */
function importsOf(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  const specifiers = [
    ...text.matchAll(/^\s*(?:import|export)\b[^'";]*?\bfrom\s+['"](\.[^'"]+)['"]/gm),
    ...text.matchAll(/^\s*import\s+['"](\.[^'"]+)['"]/gm),
    ...text.matchAll(/\b(?:import|require)\(\s*['"](\.[^'"]+)['"]\s*\)/g),
  ].map((match) => match[1]);
  return specifiers.map((specifier) => {
    const target = path.resolve(path.dirname(file), specifier);
    if (fs.existsSync(`${target}.ts`)) return `${target}.ts`;
    if (fs.existsSync(path.join(target, 'index.ts'))) return path.join(target, 'index.ts');
    return target;
  });
}

/** Every cycle's modules (Tarjan's strongly connected components of more than one module, or a self-import). */
function cycles(graph: Map<string, string[]>): string[][] {
  const order = new Map<string, number>();
  const lowest = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (module: string) => {
    order.set(module, order.size);
    lowest.set(module, order.get(module) ?? 0);
    stack.push(module);
    onStack.add(module);
    for (const next of graph.get(module) ?? []) {
      if (!graph.has(next)) continue;
      if (!order.has(next)) {
        visit(next);
        lowest.set(module, Math.min(lowest.get(module) ?? 0, lowest.get(next) ?? 0));
      } else if (onStack.has(next)) lowest.set(module, Math.min(lowest.get(module) ?? 0, order.get(next) ?? 0));
    }
    if (lowest.get(module) !== order.get(module)) return;
    const component: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop();
      if (member === undefined) break;
      onStack.delete(member);
      component.push(path.relative(sourceRoot, member));
    } while (member !== module);
    if (component.length > 1 || (graph.get(module) ?? []).includes(module)) found.push(component.sort());
  };
  for (const module of graph.keys()) if (!order.has(module)) visit(module);
  return found;
}

test('src has no import cycles (type-only imports included)', () => {
  const graph = new Map(sourceFiles(sourceRoot).map((file) => [file, importsOf(file)]));
  assert.ok(graph.size > 50, 'the sources were found');
  assert.deepEqual(cycles(graph), []);
});

test('the cycle finder reports a cycle it is given', () => {
  const graph = new Map([
    [path.join(sourceRoot, 'a.ts'), [path.join(sourceRoot, 'b.ts')]],
    [path.join(sourceRoot, 'b.ts'), [path.join(sourceRoot, 'c.ts')]],
    [path.join(sourceRoot, 'c.ts'), [path.join(sourceRoot, 'a.ts')]],
    [path.join(sourceRoot, 'd.ts'), [path.join(sourceRoot, 'a.ts')]],
  ]);
  assert.deepEqual(cycles(graph), [['a.ts', 'b.ts', 'c.ts']]);
});

test('the resolver reads multi-line, type-only and re-export imports', () => {
  const protocol = importsOf(path.join(sourceRoot, 'core', 'worker', 'protocol.ts')).map((file) => path.relative(sourceRoot, file));
  assert.ok(protocol.includes(path.join('core', 'engine.ts')), 'a type-only import is an edge');
  const sync = importsOf(path.join(sourceRoot, 'core', 'sync.ts')).map((file) => path.relative(sourceRoot, file));
  assert.ok(sync.includes(path.join('core', 'syncContext.ts')), 'a re-export is an edge');
});
