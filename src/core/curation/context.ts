import { describeTask, searchWords } from '../retrieval/descriptor';
import type { ManifestEntry } from '../retrieval/manifest';
import { quoteMemory, quoteSnippet } from '../retrieval/prompt';
import { citationOf, relevanceOf, retrieve, type Retrieval, type RetrieveOptions, type VerifiedSnippet } from '../retrieval/retrieve';
import type { SyncContext } from '../sync';
import { estimateTokens } from '../tokens';
import type { ProjectCuration } from './curation';
import type { ResolvedPin } from './pins';

/**
 * Retrieval with what the user curated: active pins first (live-hash verified, within the
 * budget), then the active memory items relevant to the request, then the source candidates in
 * what budget remains. Pins and memory appear in the manifest with reasons `pinned` and `memory`.
 */
export interface CuratedRetrieval extends Retrieval {
  memory: Array<{ id: string; claim: string; createdAt: string }>;
}

/** Memory items quoted per request at most: memory is a note beside the source, not a second corpus. */
export const maxMemoryItems = 5;
/** Above every candidate tier (190 at most): a served pin always sorts first. */
export const pinScore = 1000;

function pinEntry(pin: ResolvedPin, included: boolean, reason: string): ManifestEntry {
  return {
    included,
    kind: `pin-${pin.target}`,
    snippetId: pin.id,
    path: pin.path,
    fileHash: pin.sha256 ?? '',
    startLine: pin.startLine,
    endLine: pin.endLine,
    score: pinScore,
    tokens: pin.tokens,
    reason,
    matchedBy: included ? undefined : pin.status === 'stale' ? pin.reason : 'pinned',
    symbol: pin.symbol ?? undefined,
    modified: pin.modified,
    gitCommit: pin.gitHead,
  };
}

function pinSnippet(pin: ResolvedPin & { sha256: string; text: string }): VerifiedSnippet {
  return {
    id: pin.id,
    path: pin.path,
    startLine: pin.startLine,
    endLine: pin.endLine,
    text: pin.text,
    sha256: pin.sha256,
    score: pinScore,
    reason: 'pinned',
    matched: pin.label,
    symbol: pin.symbol,
    kind: pin.target,
    signature: null,
    chunkKind: 'pin',
    tokens: pin.tokens,
    modified: pin.modified,
    gitHead: pin.gitHead,
    citation: citationOf({ path: pin.path, startLine: pin.startLine, endLine: pin.endLine, sha256: pin.sha256 }),
  };
}

function memoryEntry(id: string, included: boolean, reason: string, tokens: number, matched: number): ManifestEntry {
  return {
    included,
    kind: 'memory',
    snippetId: id,
    path: '',
    fileHash: '',
    startLine: 0,
    endLine: 0,
    score: matched,
    tokens,
    reason,
    modified: false,
    gitCommit: null,
  };
}

function covers(pin: VerifiedSnippet, result: VerifiedSnippet): boolean {
  return pin.path === result.path && pin.startLine <= result.startLine && pin.endLine >= result.endLine;
}

export async function curatedRetrieve(
  context: SyncContext,
  curation: ProjectCuration,
  query: string,
  options: RetrieveOptions = {},
): Promise<CuratedRetrieval> {
  const budget = options.budgetTokens ?? context.options.budgetTokens;
  let remaining = budget;
  const pins: VerifiedSnippet[] = [];
  const pinEntries: ManifestEntry[] = [];
  for (const pin of await curation.pins(context)) {
    if (pin.status === 'stale' || pin.text === undefined || pin.sha256 === undefined) {
      pinEntries.push(pinEntry(pin, false, 'stale-pin'));
    } else if (pin.tokens > remaining) {
      pinEntries.push(pinEntry(pin, false, 'over-budget'));
    } else {
      remaining -= pin.tokens;
      pins.push(pinSnippet({ ...pin, sha256: pin.sha256, text: pin.text }));
      pinEntries.push(pinEntry(pin, true, 'pinned'));
    }
  }
  const memory: CuratedRetrieval['memory'] = [];
  const memoryEntries: ManifestEntry[] = [];
  const descriptor = describeTask(query, options.attachedPaths);
  for (const item of curation.relevantMemory(searchWords(descriptor), maxMemoryItems)) {
    const tokens = estimateTokens(item.claim);
    if (tokens > remaining) {
      memoryEntries.push(memoryEntry(item.id, false, 'over-budget', tokens, item.matched));
      continue;
    }
    remaining -= tokens;
    memory.push({ id: item.id, claim: item.claim, createdAt: item.createdAt });
    memoryEntries.push(memoryEntry(item.id, true, 'memory', tokens, item.matched));
  }
  const ranker = curation.ranker(context, query);
  const retrieval = await retrieve(context, query, { ...options, budgetTokens: remaining }, { rerank: ranker.rerank, descriptor });
  // A source snippet a pin already holds whole would be the same lines twice.
  const covered = new Set(retrieval.results.filter((result) => pins.some((pin) => covers(pin, result))).map((result) => result.id));
  const source = retrieval.results.filter((result) => !covered.has(result.id));
  const entries = retrieval.manifest.entries.map((entry) =>
    entry.included && covered.has(entry.snippetId)
      ? { ...entry, included: false, reason: 'covered-by-pin', matchedBy: entry.reason }
      : entry,
  );
  curation.noteIncluded(
    query,
    source.map((result) => result.id),
  );
  const manifest = {
    ...retrieval.manifest,
    budgetTokens: budget,
    usedTokens: budget - remaining + source.reduce((sum, result) => sum + result.tokens, 0),
    learned: ranker.outcome(),
    entries: [...pinEntries, ...memoryEntries, ...entries],
  };
  return { ...retrieval, results: [...pins, ...source], manifest, memory };
}

/**
 * The quoted blocks in prompt order: pins, then memory, then source; `ids[i]` is the manifest
 * `snippetId` of block `i` (a pin's or source snippet's id in `retrieval.results`, a memory item's id).
 */
export function curatedBlocks(retrieval: CuratedRetrieval): { blocks: string[]; ids: string[] } {
  const quote = (result: VerifiedSnippet) => quoteSnippet({ ...result, relevance: relevanceOf(result) });
  const pins = retrieval.results.filter((result) => result.reason === 'pinned');
  const source = retrieval.results.filter((result) => result.reason !== 'pinned');
  return {
    blocks: [
      ...pins.map(quote),
      ...retrieval.memory.map((item) => quoteMemory({ id: item.id, recordedAt: item.createdAt, claim: item.claim })),
      ...source.map(quote),
    ],
    ids: [...pins.map((pin) => pin.id), ...retrieval.memory.map((item) => item.id), ...source.map((result) => result.id)],
  };
}
