/**
 * References quality (issue 17, "Prove it"): the `references` answers of the engine against the
 * TypeScript language service's `findReferences` on a real TypeScript code base not written
 * here (the `src/` of @azure/msal-common, shipped in node_modules), for at least 50 symbols.
 *
 * A use is a (file, line) pair: the engine reports one per line, so the oracle's references are
 * taken per line too, without the declaration sites (`isDefinition`). Recall and precision are
 * pooled over all symbols, for `extracted` uses (goal 0.90 each) and, apart, for `name-match`.
 *
 *   npm run build:test && node out/test/quality/references.js [--symbols N] [--details]
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { ProjectEngine } from '../../src/core/engine';
import { createStructuralParsers } from '../../src/core/parsing/structuralParsers';
import { nodePorts } from '../../src/core/ports';
import type { SymbolRow } from '../../src/core/store';
import { findRepositoryRoot, isTypeScriptSource, listFiles } from '../bench/parseBench';

type Ts = typeof import('typescript-api');

const recallGoal = 0.9;
const precisionGoal = 0.9;
const codebase = '@azure/msal-common/src';
const kinds = new Set(['function', 'class', 'interface', 'type', 'enum', 'method']);

interface SymbolScore {
  symbol: string;
  path: string;
  oracle: number;
  extracted: number;
  extractedHits: number;
  nameMatch: number;
  nameMatchHits: number;
}

function languageService(ts: Ts, root: string, files: string[]) {
  const versions = new Map(files.map((file) => [file, '1']));
  const host: import('typescript-api').LanguageServiceHost = {
    getScriptFileNames: () => files,
    getScriptVersion: (file) => versions.get(file) ?? '1',
    getScriptSnapshot: (file) => (fs.existsSync(file) ? ts.ScriptSnapshot.fromString(fs.readFileSync(file, 'utf8')) : undefined),
    getCurrentDirectory: () => root,
    getCompilationSettings: () => ({
      target: ts.ScriptTarget.ES2020,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      noEmit: true,
      skipLibCheck: true,
      strict: false,
      allowJs: false,
      types: [],
    }),
    getDefaultLibFileName: (options) => ts.getDefaultLibFilePath(options),
    fileExists: (file) => fs.existsSync(file),
    readFile: (file) => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined),
    readDirectory: (...args) => ts.sys.readDirectory(...args),
    directoryExists: (directory) => ts.sys.directoryExists(directory),
    getDirectories: (directory) => ts.sys.getDirectories(directory),
  };
  return ts.createLanguageService(host, ts.createDocumentRegistry());
}

/** The offset of the declaration's name: its first identifier occurrence from the keyword line on. */
function namePosition(text: string, symbol: SymbolRow): number | undefined {
  const lines = text.split('\n');
  let offset = lines.slice(0, symbol.startLine - 1).reduce((sum, line) => sum + line.length + 1, 0);
  const pattern = new RegExp(`(?<![\\w$])${symbol.name.replace(/[$]/g, '\\$')}(?![\\w$])`);
  for (let line = symbol.startLine - 1; line < Math.min(lines.length, symbol.startLine + 3); line++) {
    const match = pattern.exec(lines[line]);
    if (match) return offset + match.index;
    offset += lines[line].length + 1;
  }
  return undefined;
}

function ratio(part: number, whole: number): number {
  return whole === 0 ? 1 : Math.round((part / whole) * 1000) / 1000;
}

async function main(): Promise<void> {
  const wanted = Number(process.argv[process.argv.indexOf('--symbols') + 1]) || 60;
  const details = process.argv.includes('--details');
  const repository = findRepositoryRoot(__dirname);
  const source = path.join(repository, 'node_modules', codebase);
  if (!fs.existsSync(source)) {
    console.log(`references quality: ${codebase} is not installed; skipped`);
    return;
  }
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const ts = require('typescript-api') as Ts;
  // The engine never indexes under node_modules, so the code base is copied to a project of its own.
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'pk-refs-')));
  const project = path.join(root, 'msal-common');
  fs.cpSync(source, path.join(project, 'src'), { recursive: true });
  const engine = await ProjectEngine.open({
    root: project,
    ports: nodePorts(),
    parsers: createStructuralParsers({
      grammarDirectory: path.join(repository, 'node_modules', '@vscode', 'tree-sitter-wasm', 'wasm'),
      queryDirectory: path.join(repository, 'grammars'),
    }),
  });
  try {
    const started = performance.now();
    const report = await engine.sync();
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    console.log(
      `References quality on ${codebase} (${report.discovered} files, indexed in ${seconds} s), ` +
        `TypeScript ${ts.version} findReferences as the oracle`,
    );
    const files = listFiles(project, isTypeScriptSource);
    const service = languageService(ts, project, files);
    const relative = (file: string) => path.relative(project, file).split(path.sep).join('/');
    const order = (symbol: SymbolRow) => createHash('sha256').update(`${symbol.path}#${symbol.qualifiedName}`).digest('hex');
    const candidates = (await engine.symbols())
      .filter((symbol) => kinds.has(symbol.kind) && symbol.name.length >= 3 && symbol.name !== 'constructor')
      .sort((a, b) => (order(a) < order(b) ? -1 : 1));
    const scores: SymbolScore[] = [];
    for (const symbol of candidates) {
      if (scores.length >= wanted) break;
      const file = path.join(project, symbol.path);
      const position = namePosition(fs.readFileSync(file, 'utf8'), symbol);
      if (position === undefined) continue;
      const program = service.getProgram();
      const sourceFile = program?.getSourceFile(file);
      if (!sourceFile) continue;
      const oracle = new Set<string>();
      for (const referenced of service.findReferences(file, position) ?? []) {
        for (const reference of referenced.references) {
          if (reference.isDefinition) continue;
          const target = program?.getSourceFile(reference.fileName);
          if (!target || !reference.fileName.startsWith(project)) continue;
          oracle.add(`${relative(reference.fileName)}:${target.getLineAndCharacterOfPosition(reference.textSpan.start).line + 1}`);
        }
      }
      // Symbols nothing uses say nothing about references; they are skipped, not scored as perfect.
      if (oracle.size === 0) continue;
      const answer = await engine.references({ symbol: symbol.qualifiedName, path: symbol.path, limit: 100_000 });
      const uses = [...answer.references, ...answer.tests];
      const keys = (label: string) => new Set(uses.filter((use) => use.label === label).map((use) => `${use.path}:${use.line}`));
      const extracted = keys('extracted');
      const nameMatch = keys('name-match');
      if (details) {
        const extra = [...extracted].filter((key) => !oracle.has(key));
        const missed = [...oracle].filter((key) => !extracted.has(key));
        if (extra.length + missed.length > 0)
          console.log(`    ${symbol.qualifiedName}: extra ${extra.slice(0, 4).join(' ')} | missed ${missed.slice(0, 4).join(' ')}`);
      }
      scores.push({
        symbol: symbol.qualifiedName,
        path: symbol.path,
        oracle: oracle.size,
        extracted: extracted.size,
        extractedHits: [...extracted].filter((key) => oracle.has(key)).length,
        nameMatch: nameMatch.size,
        nameMatchHits: [...nameMatch].filter((key) => oracle.has(key)).length,
      });
    }
    const sum = (pick: (score: SymbolScore) => number) => scores.reduce((total, score) => total + pick(score), 0);
    const oracleTotal = sum((score) => score.oracle);
    const figures = {
      codebase,
      symbols: scores.length,
      oracleUses: oracleTotal,
      extracted: {
        uses: sum((score) => score.extracted),
        recall: ratio(
          sum((score) => score.extractedHits),
          oracleTotal,
        ),
        precision: ratio(
          sum((score) => score.extractedHits),
          sum((score) => score.extracted),
        ),
      },
      nameMatch: {
        uses: sum((score) => score.nameMatch),
        inOracle: sum((score) => score.nameMatchHits),
        precision: ratio(
          sum((score) => score.nameMatchHits),
          sum((score) => score.nameMatch),
        ),
      },
      recallWithNameMatches: ratio(
        sum((score) => score.extractedHits + score.nameMatchHits),
        oracleTotal,
      ),
    };
    const worst = [...scores].sort((a, b) => a.extractedHits / a.oracle - b.extractedHits / b.oracle).slice(0, 5);
    console.log(`  ${figures.symbols} symbols, ${oracleTotal} uses found by TypeScript`);
    console.log(
      `  extracted:  ${figures.extracted.uses} uses, recall ${figures.extracted.recall} (goal ${recallGoal}), ` +
        `precision ${figures.extracted.precision} (goal ${precisionGoal})`,
    );
    console.log(
      `  name-match: ${figures.nameMatch.uses} uses, ${figures.nameMatch.inOracle} of them TypeScript references ` +
        `(precision ${figures.nameMatch.precision}); recall with them ${figures.recallWithNameMatches}`,
    );
    for (const score of worst)
      console.log(
        `    lowest recall: ${score.symbol} (${score.path}): ${score.extractedHits}/${score.oracle} extracted, ` +
          `${score.extracted - score.extractedHits} extra, ${score.nameMatchHits}/${score.nameMatch} name matches`,
      );
    console.log(JSON.stringify({ referencesQuality: figures }));
  } finally {
    await engine.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(`references quality: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
