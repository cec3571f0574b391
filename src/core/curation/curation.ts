import type { IndexStore } from '../store';
import { CurationInputError, MemoryConflictError } from './errors';
import type { SyncContext } from '../sync';
import type { Ranked } from './learnedRanking';
import { activeRefusal, addDisagreement, emptyShadowTotals, learnedOrder, maxLearnedCandidates, type ShadowTotals } from './learnedRanking';
import { candidateHash, featuresOf, queryHash } from './features';
import { CurationLog, maxClaimLength, newId, type FeedbackLabel, type LabelSource, type Mutation, type PinTarget } from './log';
import { linesHash, resolvePin, type PinReads, type ResolvedPin } from './pins';
import { evaluatePromotion, withPromotion, type PromotionReport } from './promotion';
import {
  defaultTraining,
  loadModel,
  splitLabels,
  trainModel,
  uniqueLabels,
  writeModel,
  type LoadedModel,
  type RankingMode,
} from './ranker';
import { activePins, conflictsWith, normalizeClaim, pinKey, replay, subjectKey, type CurationState, type MemoryRecord } from './state';
import type { MemoryRow } from './tables';
import { readIndexable } from '../sync';
import { splitLines } from '../tokens';

/** At most this many pins are active at once, and this many memory items: both go into every request. */
const maxActivePins = 100;
const maxActiveMemory = 500;
/** Requests whose candidates can still be labeled (the latest answers of a session). */
const recentRequests = 16;

export interface CurationHealth {
  mode: RankingMode;
  pins: number;
  memory: { active: number; superseded: number; invalid: number; expired: number };
  labels: { useful: number; notUseful: number; malformed: number; ignored: number };
  model: { state: 'missing' | 'corrupt' | 'incompatible' | 'trained' | 'promoted'; modelId?: string; detail?: string };
  /** Why `active` mode ranks statically now, when it does. */
  fallback?: string;
  shadow: ShadowTotals;
}

export interface TrainOutcome {
  modelId: string;
  modelPath: string | undefined;
  labels: number;
  promotion: PromotionReport;
}

interface RecentRequest {
  query: string;
  candidates: Map<string, { candidate: string; features: number[] }>;
  included: string[];
}

/**
 * One project's pins, memory and labels: the log is canonical, `state` is its replay and the
 * index's `curation_*` tables are its projection, rebuilt whenever the log changed under them.
 */
export class ProjectCuration {
  private state: CurationState = { pins: [], memory: [], labels: [], ignored: 0 };
  private malformed = 0;
  private digest = '';
  private logIdentity = '';
  private store: IndexStore | undefined;
  private model: LoadedModel = { ok: false, reason: 'missing', detail: 'not loaded' };
  private shadow = emptyShadowTotals();
  private prior = new Map<string, { useful: number; notUseful: number }>();
  private recent = new Map<string, RecentRequest>();

  constructor(
    readonly log: CurationLog,
    private readonly projectId: string,
    readonly modelPath: string | undefined,
    private mode: RankingMode = 'off',
    private readonly now: () => number = Date.now,
  ) {
    this.model = mode === 'off' ? this.model : loadModel(modelPath);
  }

  /** Builds the index's curation tables from the log, unless they already hold this log's digest. */
  attach(store: IndexStore): void {
    this.store = store;
    this.logIdentity = '';
    this.refresh();
  }

  /** Reads the log again when its file changed (another writer, the CLI) and re-materializes. */
  refresh(): void {
    const identity = this.log.identity();
    if (identity === this.logIdentity && this.digest !== '') return;
    const contents = this.log.read();
    this.logIdentity = identity;
    this.state = replay(contents.mutations);
    this.malformed = contents.malformed;
    this.digest = contents.digest;
    this.prior = new Map();
    for (const label of this.state.labels) {
      const counts = this.prior.get(label.candidate) ?? { useful: 0, notUseful: 0 };
      if (label.label === 'useful') counts.useful++;
      else counts.notUseful++;
      this.prior.set(label.candidate, counts);
    }
    if (this.store && this.store.curation.builtDigest() !== contents.digest) this.store.curation.materialize(this.state, contents.digest);
  }

  get rankingMode(): RankingMode {
    return this.mode;
  }

  setRankingMode(mode: RankingMode): void {
    this.mode = mode;
    this.model = mode === 'off' ? { ok: false, reason: 'missing', detail: 'ranking is off' } : loadModel(this.modelPath);
  }

  private async append(decide: (state: CurationState) => { append?: Mutation[]; result: string }): Promise<string> {
    const id = await this.log.mutate((mutations) => decide(replay(mutations)));
    this.refresh();
    return id;
  }

  private at(): string {
    return new Date(this.now()).toISOString();
  }

  // ---- pins ---------------------------------------------------------------------------------

  /** Pins a file, range or declaration the index holds; pinning the same thing again returns the existing id. */
  async pin(context: SyncContext, target: PinTarget): Promise<{ id: string; created: boolean }> {
    const normalized: PinTarget = { ...target, path: normalizePath(target.path) };
    const file = context.store.catalog.file(normalized.path);
    if (!file) throw new CurationInputError(`The file ${normalized.path} is not in the index; only indexed files can be pinned.`);
    let textHash: string | undefined;
    if (normalized.target === 'declaration') {
      const found = context.store.chunks
        .symbolsNamed(normalized.qualifiedName, 'qualified')
        .some((symbol) => symbol.path === normalized.path);
      if (!found) throw new CurationInputError(`No declaration ${normalized.qualifiedName} in ${normalized.path}.`);
    }
    if (normalized.target === 'range') {
      const read = readIndexable(context, normalized.path);
      if (read.kind !== 'read') throw new CurationInputError(`The file ${normalized.path} cannot be read now.`);
      const lines = splitLines(read.text.replace(/^\uFEFF/, ''));
      if (normalized.endLine > lines.length) throw new CurationInputError(`${normalized.path} has only ${lines.length} lines.`);
      textHash = linesHash(lines.slice(normalized.startLine - 1, normalized.endLine));
    }
    let created = false;
    const id = await this.append((state) => {
      const key = pinKey(normalized);
      const existing = activePins(state).find((pin) => pinKey(pin) === key);
      if (existing) return { result: existing.id };
      if (activePins(state).length >= maxActivePins)
        throw new CurationInputError(`At most ${maxActivePins} pins can be active; unpin some first.`);
      const mutation = { kind: 'pin', id: newId('pin'), at: this.at(), ...normalized, ...(textHash ? { textHash } : {}) } as Mutation;
      created = true;
      return { append: [mutation], result: mutation.id };
    });
    return { id, created };
  }

  async unpin(pinId: string): Promise<void> {
    await this.append((state) => {
      const pin = activePins(state).find((entry) => entry.id === pinId);
      if (!pin) throw new CurationInputError(`No active pin ${pinId}.`);
      return { append: [{ kind: 'unpin', id: newId('mut'), at: this.at(), pin: pinId }], result: pinId };
    });
  }

  /** Every active pin, resolved against the live files now (current, moved or stale). */
  async pins(context: SyncContext): Promise<ResolvedPin[]> {
    this.refresh();
    const reads: PinReads = new Map();
    const resolved: ResolvedPin[] = [];
    for (const pin of activePins(this.state)) resolved.push(await resolvePin(context, pin, reads));
    return resolved;
  }

  // ---- memory -------------------------------------------------------------------------------

  /** Adds a claim; the same normalized claim returns the existing id; a contradicting one is refused with the ids involved. */
  async remember(claim: string, options: { key?: string; supersedes?: string } = {}): Promise<{ id: string; created: boolean }> {
    const text = claim.trim();
    if (text.length === 0) throw new CurationInputError('A memory item needs a claim.');
    if (text.length > maxClaimLength) throw new CurationInputError(`A claim is at most ${maxClaimLength} characters.`);
    const key = subjectKey(text, options.key);
    let created = false;
    const id = await this.append((state) => {
      const active = state.memory.filter((item) => item.status === 'active');
      const same = active.find((item) => normalizeClaim(item.claim) === normalizeClaim(text));
      if (same && options.supersedes === undefined) return { result: same.id };
      if (options.supersedes !== undefined) {
        const previous = state.memory.find((item) => item.id === options.supersedes);
        if (!previous) throw new CurationInputError(`No memory item ${options.supersedes}.`);
        if (previous.status !== 'active')
          throw new CurationInputError(`Memory ${previous.id} is ${previous.status}; only an active item can be superseded.`);
      }
      const rivals = conflictsWith(
        active.filter((item) => item.id !== options.supersedes),
        text,
        key,
      );
      if (rivals.length > 0) throw new MemoryConflictError(rivals);
      if (active.length >= maxActiveMemory) throw new CurationInputError(`At most ${maxActiveMemory} memory items can be active.`);
      const mutation: Mutation = {
        kind: 'remember',
        id: newId('mem'),
        at: this.at(),
        claim: text,
        key,
        ...(options.supersedes ? { supersedes: options.supersedes } : {}),
      };
      created = true;
      return { append: [mutation], result: mutation.id };
    });
    return { id, created };
  }

  supersede(memoryId: string, claim: string, key?: string): Promise<{ id: string; created: boolean }> {
    return this.remember(claim, { supersedes: memoryId, key });
  }

  async retire(memoryId: string, kind: 'invalidate' | 'expire', reason?: string): Promise<void> {
    await this.append((state) => {
      const item = state.memory.find((entry) => entry.id === memoryId);
      if (!item) throw new CurationInputError(`No memory item ${memoryId}.`);
      if (item.status !== 'active') throw new CurationInputError(`Memory ${memoryId} is already ${item.status}.`);
      const trimmed = reason?.trim().slice(0, 200);
      return {
        append: [{ kind, id: newId('mut'), at: this.at(), memory: memoryId, ...(trimmed ? { reason: trimmed } : {}) }],
        result: memoryId,
      };
    });
  }

  /** Every memory item the log holds, superseded and retired ones included (from the index's table). */
  memory(): MemoryRow[] {
    this.refresh();
    return this.store ? this.store.curation.memoryRows() : [];
  }

  memoryRecords(): MemoryRecord[] {
    this.refresh();
    return this.state.memory;
  }

  /** Active items relevant to a request's words. */
  relevantMemory(words: readonly string[], limit: number): Array<MemoryRow & { matched: number }> {
    this.refresh();
    // The tables project `state`: with no active item no row can match, and every search would
    // otherwise pay for a full-text statement compiled and run on an empty table.
    if (!this.state.memory.some((item) => item.status === 'active')) return [];
    return this.store ? this.store.curation.relevantMemory(words, limit) : [];
  }

  hasPins(): boolean {
    return activePins(this.state).length > 0;
  }

  // ---- feedback and ranking -----------------------------------------------------------------

  /**
   * The retrieval hook: computes each candidate's feature vector (kept for labels on this answer),
   * then leaves the order alone (`off`), measures disagreement (`shadow`) or applies the promoted
   * model to the non-exact candidates (`active`).
   */
  ranker(context: SyncContext, query: string): { rerank: <T extends Ranked>(candidates: T[]) => T[]; outcome: () => LearnedSummary } {
    let outcome: LearnedSummary = { mode: this.mode, applied: false };
    const rerank = <T extends Ranked>(candidates: T[]): T[] => {
      const features = new Map<string, number[]>();
      const request: RecentRequest = { query, candidates: new Map(), included: [] };
      const now = this.now();
      for (const candidate of candidates.slice(0, maxLearnedCandidates)) {
        const hash = candidateHash(this.projectId, candidate.snippet);
        const vector = featuresOf({
          candidate,
          mtimeMs: context.store.catalog.file(candidate.snippet.path)?.mtimeMs,
          now,
          prior: this.prior.get(hash) ?? { useful: 0, notUseful: 0 },
        });
        features.set(candidate.snippet.id, vector);
        request.candidates.set(candidate.snippet.id, { candidate: hash, features: vector });
      }
      this.keepRecent(queryHash(this.projectId, query), request);
      if (this.mode === 'off') return candidates;
      const refusal = activeRefusal(this.model);
      if (!this.model.ok) {
        outcome = { mode: this.mode, applied: false, fallback: refusal };
        return candidates;
      }
      const reordered = learnedOrder(candidates, features, this.model.model);
      if (this.mode === 'shadow') {
        this.shadow = addDisagreement(this.shadow, candidates, reordered);
        return candidates;
      }
      if (refusal) {
        outcome = { mode: this.mode, applied: false, fallback: refusal };
        return candidates;
      }
      outcome = { mode: this.mode, applied: true };
      return reordered;
    };
    return { rerank, outcome: () => outcome };
  }

  private keepRecent(hash: string, request: RecentRequest): void {
    this.recent.delete(hash);
    this.recent.set(hash, request);
    while (this.recent.size > recentRequests) this.recent.delete(this.recent.keys().next().value as string);
  }

  /** Notes which snippets an answer included, so a thumbs up or down labels exactly those. */
  noteIncluded(query: string, snippetIds: string[]): void {
    const request = this.recent.get(queryHash(this.projectId, query));
    if (request) request.included = snippetIds.filter((id) => request.candidates.has(id));
  }

  /**
   * Records explicit feedback on candidates of a recent answer: the given snippets, or every
   * source snippet the answer included. Only the hashed identities and feature vectors are kept.
   */
  async label(input: { query: string; label: FeedbackLabel; source: LabelSource; snippetIds?: string[] }): Promise<string[]> {
    const request = this.recent.get(queryHash(this.projectId, input.query));
    if (!request) throw new CurationInputError('Only candidates of a recent answer can be labeled; ask again first.');
    const ids = input.snippetIds ?? request.included;
    const chosen = ids.map((id) => request.candidates.get(id)).filter((entry) => entry !== undefined);
    if (chosen.length === 0) throw new CurationInputError('None of these entries can be labeled (pins and memory are not ranked).');
    const query = queryHash(this.projectId, input.query);
    const at = this.at();
    const result = await this.log.mutate((mutations) => {
      const latest = new Map<string, { label: FeedbackLabel; id: string }>();
      for (const label of replay(mutations).labels) latest.set(`${label.query}\0${label.candidate}`, { label: label.label, id: label.id });
      const append: Mutation[] = [];
      const labelIds: string[] = [];
      for (const entry of chosen) {
        const previous = latest.get(`${query}\0${entry.candidate}`);
        if (previous?.label === input.label) {
          labelIds.push(previous.id);
          continue;
        }
        const mutation: Mutation = {
          kind: 'label',
          id: newId('lab'),
          at,
          label: input.label,
          source: input.source,
          candidate: entry.candidate,
          query,
          features: entry.features,
        };
        append.push(mutation);
        labelIds.push(mutation.id);
      }
      return { append, result: labelIds };
    });
    this.refresh();
    return result;
  }

  /** Trains on the labels, evaluates the gate on the held-out ones and writes the artifact with its report. */
  train(clock: () => number, options = defaultTraining): TrainOutcome {
    this.refresh();
    const { training, heldOut } = splitLabels(uniqueLabels(this.state.labels));
    const model = trainModel(training, heldOut, options);
    const promotion = evaluatePromotion(model, heldOut, { maxLatencyMs: 10, minimumHeldOutQueries: 2, now: clock });
    const sealed = withPromotion(model, promotion);
    if (this.modelPath) writeModel(this.modelPath, sealed);
    this.model = { ok: true, model: sealed };
    this.shadow = emptyShadowTotals();
    return { modelId: sealed.modelId, modelPath: this.modelPath, labels: model.training.labels, promotion };
  }

  health(): CurationHealth {
    this.refresh();
    const count = (status: string) => this.state.memory.filter((item) => item.status === status).length;
    const loaded = this.mode === 'off' ? loadModel(this.modelPath) : this.model;
    const useful = this.state.labels.filter((label) => label.label === 'useful').length;
    const refusal = this.mode === 'active' ? activeRefusal(this.model) : undefined;
    return {
      mode: this.mode,
      pins: activePins(this.state).length,
      memory: { active: count('active'), superseded: count('superseded'), invalid: count('invalid'), expired: count('expired') },
      labels: { useful, notUseful: this.state.labels.length - useful, malformed: this.malformed, ignored: this.state.ignored },
      model: loaded.ok
        ? {
            state: loaded.model.promotion?.passed ? 'promoted' : 'trained',
            modelId: loaded.model.modelId,
            detail: loaded.model.promotion?.reasons.join('; ') || undefined,
          }
        : { state: loaded.reason, detail: loaded.detail },
      ...(refusal ? { fallback: refusal } : {}),
      shadow: this.shadow,
    };
  }
}

export interface LearnedSummary {
  mode: RankingMode;
  applied: boolean;
  fallback?: string;
}

function normalizePath(path: string): string {
  return path.replace(/\\/g, '/').replace(/^\.\//, '');
}
