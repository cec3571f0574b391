#!/usr/bin/env node
// Collects every `vscode.l10n.t('...')` message of the extension into l10n/bundle.l10n.json, the
// bundle translators start from. `--check` exits non-zero when the bundle is out of date.
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function files(directory) {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(directory, entry.name);
    return entry.isDirectory() ? files(full) : entry.name.endsWith('.ts') ? [full] : [];
  });
}

export function collectMessages() {
  const messages = new Set();
  const pattern = /vscode\.l10n\.t\(\s*('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")/g;
  for (const file of files(path.join(root, 'src', 'vscode'))) {
    for (const match of readFileSync(file, 'utf8').matchAll(pattern)) {
      const literal = match[1];
      // Single-quoted TypeScript literals become JSON strings by swapping the quotes.
      const json = literal.startsWith("'") ? `"${literal.slice(1, -1).replace(/\\'/g, "'").replace(/"/g, '\\"')}"` : literal;
      messages.add(JSON.parse(json));
    }
  }
  return Object.fromEntries([...messages].sort().map((message) => [message, message]));
}

const bundlePath = path.join(root, 'l10n', 'bundle.l10n.json');
const text = JSON.stringify(collectMessages(), null, 2) + '\n';
if (process.argv.includes('--check')) {
  let current = '';
  try {
    current = readFileSync(bundlePath, 'utf8');
  } catch {
    // Missing counts as out of date.
  }
  if (current !== text) {
    console.error('l10n/bundle.l10n.json is out of date: run `node scripts/l10n-export.mjs`.');
    process.exit(1);
  }
  console.log(`l10n bundle up to date (${Object.keys(JSON.parse(text)).length} messages)`);
} else {
  writeFileSync(bundlePath, text);
  console.log(`wrote ${bundlePath} (${Object.keys(JSON.parse(text)).length} messages)`);
}
