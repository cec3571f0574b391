// The source map of a bundled file a V8 profile frame names (`dist/*.js.map`), read once per file;
// undefined for frames that are not files or bundles without a map. Shared by the profile scripts.
import * as fs from 'node:fs';
import { SourceMap } from 'node:module';

const maps = new Map();

export function sourceMapFor(url) {
  if (!url.startsWith('file://')) return undefined;
  const file = new URL(url).pathname;
  if (!maps.has(file)) {
    let map;
    try {
      map = new SourceMap(JSON.parse(fs.readFileSync(`${file}.map`, 'utf8')));
    } catch {
      map = undefined;
    }
    maps.set(file, map);
  }
  return maps.get(file);
}
