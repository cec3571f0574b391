import * as path from 'node:path';
import { parentPort } from 'node:worker_threads';
import { ProjectEngine } from '../engine';
import { countingPorts, nodePorts, type Logger, type PortCounters } from '../ports';
import { createStructuralParsers } from '../parsing/structuralParsers';
import { runToolWithInput } from '../tools/toolSet';
import type { RequestMap, RequestMessage, RequestName, TreeDirectory, TreeFile, WorkerMessage } from './protocol';

/**
 * The worker thread that owns every project engine of one extension host, so parsing, hashing
 * and SQLite work never run on the editor's extension host thread.
 */
const port = parentPort;
if (!port) throw new Error('engineHost must run in a worker thread');

const post = (message: WorkerMessage) => port.postMessage(message);
const log: Logger = {
  info: (message) => post({ type: 'log', level: 'info', message }),
  warn: (message) => post({ type: 'log', level: 'warn', message }),
  error: (message, error) =>
    post({ type: 'log', level: 'error', message: error instanceof Error ? `${message}: ${error.stack ?? error.message}` : message }),
};
const counters: PortCounters & { engineOpens: number } = { fsCalls: 0, gitCalls: 0, engineOpens: 0 };
const ports = countingPorts(nodePorts(log), counters);
const engines = new Map<string, ProjectEngine>();
const grammarDirectory = path.join(__dirname, 'grammars');

const aborts = new Map<string, AbortController>();

async function runSync(projectKey: string, params: { paths?: string[]; full?: boolean; persist: boolean }) {
  const engine = engineFor(projectKey);
  const controller = new AbortController();
  aborts.set(projectKey, controller);
  try {
    return await engine.syncChanges({
      ...params,
      signal: controller.signal,
      onProgress: (progress) => post({ type: 'progress', projectKey, progress }),
    });
  } finally {
    if (aborts.get(projectKey) === controller) aborts.delete(projectKey);
  }
}

function engineFor(projectKey: string): ProjectEngine {
  const engine = engines.get(projectKey);
  if (!engine) throw new Error(`No open project ${projectKey}`);
  return engine;
}

/** Splits the sorted file list into the direct children of `directory`. */
export function directoryOf(files: TreeFile[], directory: string): TreeDirectory {
  const prefix = directory ? `${directory}/` : '';
  const directories = new Set<string>();
  const direct: TreeFile[] = [];
  for (const file of files) {
    if (!file.path.startsWith(prefix)) continue;
    const slash = file.path.indexOf('/', prefix.length);
    if (slash === -1) direct.push(file);
    else directories.add(file.path.slice(0, slash));
  }
  return { directories: [...directories].sort(), files: direct };
}

type Handlers = { [N in RequestName]: (params: RequestMap[N]['params']) => Promise<RequestMap[N]['result']> };

const handlers: Handlers = {
  async open({ projectKey, root, dbPath, options, rankingMode }) {
    await engines.get(projectKey)?.close();
    counters.engineOpens++;
    const engine = await ProjectEngine.open({
      root,
      dbPath,
      options,
      ports,
      parsers: createStructuralParsers({ grammarDirectory, queryDirectory: grammarDirectory }),
      curation: { rankingMode },
    });
    engines.set(projectKey, engine);
    return { root: engine.root, loadedFromDisk: engine.loadedFromDisk, openNote: engine.openNote };
  },
  sync: ({ projectKey, paths, full, persist }) => runSync(projectKey, { paths, full, persist }),
  async cancel({ projectKey }) {
    aborts.get(projectKey)?.abort();
    return null;
  },
  search: ({ projectKey, query, options }) => engineFor(projectKey).search(query, options),
  context: ({ projectKey, query, options }) => engineFor(projectKey).context(query, options),
  symbols: ({ projectKey }) => engineFor(projectKey).symbols(),
  health: ({ projectKey }) => engineFor(projectKey).health(),
  get: ({ projectKey, citation }) => engineFor(projectKey).get(citation),
  findSymbol: ({ projectKey, input }) => engineFor(projectKey).findSymbol(input),
  references: ({ projectKey, input }) => engineFor(projectKey).references(input),
  outline: ({ projectKey, input }) => engineFor(projectKey).outline(input),
  read: ({ projectKey, citation }) => engineFor(projectKey).read(citation),
  tool: ({ projectKey, name, input }) => runToolWithInput(engineFor(projectKey), name, input),
  curate: ({ projectKey, request }) => engineFor(projectKey).curate(request.op, request.params),
  files: ({ projectKey }) => engineFor(projectKey).files(),
  directory: async ({ projectKey, path: directory }) => directoryOf(await engineFor(projectKey).files(), directory),
  fileItems: ({ projectKey, path: relativePath }) => engineFor(projectKey).fileItems(relativePath),
  async close({ projectKey }) {
    await engines.get(projectKey)?.close();
    engines.delete(projectKey);
    return null;
  },
  async counters() {
    return { ...counters };
  },
};

port.on('message', (message: RequestMessage) => {
  const handler = handlers[message.name] as (params: unknown) => Promise<unknown>;
  Promise.resolve()
    .then(() => handler(message.params))
    .then(
      (result) => post({ type: 'response', id: message.id, ok: true, result }),
      (error: unknown) =>
        post({
          type: 'response',
          id: message.id,
          ok: false,
          error: { message: error instanceof Error ? error.message : String(error), name: error instanceof Error ? error.name : 'Error' },
        }),
    );
});
