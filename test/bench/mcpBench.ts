import { execFile } from 'node:child_process';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { serveMcp } from '../../src/cli/mcp';
import { ProjectEngine } from '../../src/core/engine';
import { createStructuralParsers } from '../../src/core/parsing/structuralParsers';
import { nodePorts } from '../../src/core/ports';
import type { CorpusSample } from './corpus';
import { Random } from './random';
import { formatStats, round, summarize, type LatencyStats } from './stats';

/**
 * Per-call latency through `pk mcp` (one server process, the engine kept open) beside `pk search`'s
 * per-process latency (each call loads the database again), on the same corpus and database.
 */

export interface McpToolFigures extends LatencyStats {
  errors: number;
  /** Calls whose answer held at least one result (a match, a use, a file). */
  answered: number;
}

export interface McpFigures {
  /** From spawning the server to its first answer (database load and the start-up sync). */
  startMs: number;
  tools: Record<'search' | 'find_symbol' | 'references' | 'outline', McpToolFigures>;
  cliSearch: LatencyStats;
}

interface Call {
  tool: keyof McpFigures['tools'];
  args: Record<string, unknown>;
}

function callsFor(samples: CorpusSample[], n: number, seed: number): Call[] {
  const rng = new Random(seed ^ 0x3c9);
  const withSymbols = samples.filter((sample) => sample.symbols.length > 0);
  const calls: Call[] = [];
  for (let index = 0; index < n; index++) {
    const sample = rng.pick(withSymbols);
    const symbol = rng.pick(sample.symbols);
    calls.push({ tool: 'search', args: { query: symbol } });
    calls.push({ tool: 'find_symbol', args: { name: symbol } });
    calls.push({ tool: 'references', args: { symbol } });
    calls.push({ tool: 'outline', args: { path: rng.chance(0.8) ? sample.path : path.posix.dirname(sample.path) } });
  }
  return calls;
}

function answered(tool: Call['tool'], structured: Record<string, unknown> | undefined): boolean {
  if (!structured) return false;
  const list =
    tool === 'search'
      ? structured.results
      : tool === 'find_symbol'
        ? structured.matches
        : tool === 'references'
          ? structured.references
          : structured.files;
  return Array.isArray(list) && list.length > 0;
}

function run(command: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { maxBuffer: 64 * 1024 * 1024 }, (error) => (error ? reject(new Error(error.message)) : resolve()));
  });
}

/**
 * `node dist/bench.js --serve-mcp ROOT DB MAX_FILES MAX_TOTAL_BYTES`: the server of `pk mcp`
 * (`serveMcp`, the SDK's stdio transport, the watcher) over an engine with the benchmark's raised
 * bounds. `pk mcp` itself keeps the default bounds, whose 50,000,000-byte total would drop part
 * of the 58 MB corpus on its start-up sync (and rewrite the benchmark's database).
 */
export async function serveBenchMcp(argv: string[]): Promise<number> {
  const [root, dbPath, maxFiles, maxTotalBytes] = argv;
  const write = (message: string) => void process.stderr.write(`${message}\n`);
  const log = { info: () => undefined, warn: write, error: write };
  const grammarDirectory = path.join(__dirname, 'grammars');
  const engine = await ProjectEngine.open({
    root,
    dbPath,
    ports: nodePorts(log),
    parsers: createStructuralParsers({ grammarDirectory, queryDirectory: grammarDirectory }),
    options: { bounds: { maxFiles: Number(maxFiles), maxTotalBytes: Number(maxTotalBytes), maxDirectories: 1_000_000 } },
  });
  return serveMcp(engine);
}

export async function mcpBench(options: {
  cli: string;
  root: string;
  dbPath: string;
  bounds: { maxFiles: number; maxTotalBytes: number };
  samples: CorpusSample[];
  n: number;
  cliN: number;
  seed: number;
  label: string;
  log: (line?: string) => void;
}): Promise<McpFigures> {
  const { log, label } = options;
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [process.argv[1], '--serve-mcp', options.root, options.dbPath, `${options.bounds.maxFiles}`, `${options.bounds.maxTotalBytes}`],
    env: { ...process.env } as Record<string, string>,
    stderr: 'ignore',
  });
  const client = new Client({ name: 'pk-bench', version: '1.0.0' });
  const started = performance.now();
  await client.connect(transport);
  try {
    // The first answer waits for the database load and the start-up sync: past the SDK's 60 s default when loaded.
    await client.callTool({ name: 'health', arguments: {} }, undefined, { timeout: 1_800_000 });
    const startMs = round(performance.now() - started, 1);
    log(`[${label}] pk mcp server (serveMcp, the bench's bounds): first answer ${startMs} ms after spawning (database load, first sync)`);
    const calls = callsFor(options.samples, options.n, options.seed);
    for (const call of calls.slice(0, 8)) await client.callTool({ name: call.tool, arguments: call.args });
    const latencies = new Map<Call['tool'], number[]>();
    const counts = new Map<Call['tool'], { errors: number; answered: number }>();
    for (const call of calls) {
      const before = performance.now();
      const result = (await client.callTool({ name: call.tool, arguments: call.args })) as {
        isError?: boolean;
        structuredContent?: Record<string, unknown>;
      };
      const elapsed = performance.now() - before;
      (latencies.get(call.tool) ?? latencies.set(call.tool, []).get(call.tool))?.push(elapsed);
      const count = counts.get(call.tool) ?? { errors: 0, answered: 0 };
      if (result.isError) count.errors++;
      if (answered(call.tool, result.structuredContent)) count.answered++;
      counts.set(call.tool, count);
    }
    const tools = {} as McpFigures['tools'];
    log(`[${label}] per-call latency through pk mcp (stdio, SDK client), ${options.n} calls per tool after 8 warm-up calls:`);
    for (const tool of ['search', 'find_symbol', 'references', 'outline'] as const) {
      tools[tool] = { ...summarize(latencies.get(tool) ?? []), ...(counts.get(tool) ?? { errors: 0, answered: 0 }) };
      log(
        `  ${tool.padEnd(11)} ${formatStats(tools[tool])}  answered ${tools[tool].answered}/${tools[tool].n}, errors ${tools[tool].errors}`,
      );
    }
    await client.close();
    const cliLatencies: number[] = [];
    const queries = calls.filter((call) => call.tool === 'search').slice(0, options.cliN);
    for (const call of queries) {
      const before = performance.now();
      await run(process.execPath, [
        options.cli,
        'search',
        String(call.args.query),
        '--root',
        options.root,
        '--db',
        options.dbPath,
        '--json',
      ]);
      cliLatencies.push(performance.now() - before);
    }
    const cliSearch = summarize(cliLatencies);
    log(`  pk search (one process per query, ${cliLatencies.length} queries) ${formatStats(cliSearch)}`);
    return { startMs, tools, cliSearch };
  } finally {
    await client.close().catch(() => undefined);
  }
}
