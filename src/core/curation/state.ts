import type { Mutation, PinTarget } from './log';

/**
 * What the log says now: the replay of its mutations in timestamp order (log order among equal
 * timestamps). Pure and deterministic, so the database's tables, the CLI and the extension all
 * derive the same state from the same lines.
 */
export type PinRecord = PinTarget & { id: string; createdAt: string; textHash?: string; removedBy?: string; removedAt?: string };

export type MemoryStatus = 'active' | 'superseded' | 'invalid' | 'expired';

export interface MemoryRecord {
  id: string;
  claim: string;
  /** The subject a claim is about (`subjectKey`); two active claims with one key conflict. */
  key: string | null;
  createdAt: string;
  status: MemoryStatus;
  supersedes?: string;
  supersededBy?: string;
  reason?: string;
  changedAt?: string;
}

/** A feedback label as the log records it, without its mutation kind. */
export type LabelRecord = Omit<Extract<Mutation, { kind: 'label' }>, 'kind'>;

export interface CurationState {
  pins: PinRecord[];
  memory: MemoryRecord[];
  labels: LabelRecord[];
  /** Mutations that referred to an unknown or inactive item (kept in the log, without effect). */
  ignored: number;
}

/** The form two claims are compared in: Unicode NFKC, case-folded, whitespace collapsed, end punctuation dropped. */
export function normalizeClaim(claim: string): string {
  return claim
    .normalize('NFKC')
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/[.!;,\s]+$/, '');
}

/**
 * The verbs that end a claim's subject: "Exports default to SingleFile" is about `exports`, so
 * "Exports default to MultiFile" contradicts it. A claim with none of them has no key and can
 * conflict only by an explicit key.
 */
const subjectEnd =
  /\s(?:is|are|was|were|must|should|shall|will|uses|use|defaults? to|needs?|requires?|runs?|lives?|goes|go|means?|has|have|=)\s/;

/** The subject key of a claim: the explicit key, else `subject: ...`, else the words before the first verb of `subjectEnd`. */
export function subjectKey(claim: string, explicitKey?: string): string | null {
  if (explicitKey !== undefined && explicitKey.trim() !== '') return normalizeClaim(explicitKey);
  const normalized = normalizeClaim(claim);
  const colon = normalized.match(/^([^:]{1,60}):\s/);
  if (colon) return colon[1].trim();
  const verb = normalized.match(subjectEnd);
  if (verb?.index !== undefined && verb.index > 0 && verb.index <= 60) return normalized.slice(0, verb.index).trim();
  return null;
}

/** The identity two pins share when they pin the same thing. */
export function pinKey(target: PinTarget): string {
  switch (target.target) {
    case 'file':
      return `file\0${target.path}`;
    case 'range':
      return `range\0${target.path}\0${target.startLine}\0${target.endLine}`;
    case 'declaration':
      return `declaration\0${target.path}\0${target.qualifiedName}`;
  }
}

function ordered(mutations: Mutation[]): Mutation[] {
  return mutations
    .map((mutation, index) => ({ mutation, index, time: Date.parse(mutation.at) }))
    .sort((a, b) => a.time - b.time || a.index - b.index)
    .map((entry) => entry.mutation);
}

export function replay(mutations: Mutation[]): CurationState {
  const pins = new Map<string, PinRecord>();
  const memory = new Map<string, MemoryRecord>();
  const labels = new Map<string, LabelRecord>();
  let ignored = 0;
  for (const mutation of ordered(mutations)) {
    switch (mutation.kind) {
      case 'pin': {
        if (pins.has(mutation.id)) {
          ignored++;
          break;
        }
        const record: PinRecord & { kind?: string; at?: string } = { ...mutation, createdAt: mutation.at };
        delete record.kind;
        delete record.at;
        pins.set(mutation.id, record);
        break;
      }
      case 'unpin': {
        const pin = pins.get(mutation.pin);
        if (!pin || pin.removedBy) ignored++;
        else Object.assign(pin, { removedBy: mutation.id, removedAt: mutation.at });
        break;
      }
      case 'remember':
        ignored += rememberInto(memory, mutation) ? 0 : 1;
        break;
      case 'invalidate':
      case 'expire': {
        const item = memory.get(mutation.memory);
        if (!item || item.status !== 'active') ignored++;
        else
          Object.assign(item, {
            status: mutation.kind === 'expire' ? 'expired' : 'invalid',
            reason: mutation.reason,
            changedAt: mutation.at,
          });
        break;
      }
      case 'label': {
        if (labels.has(mutation.id)) ignored++;
        else labels.set(mutation.id, { ...mutation });
        break;
      }
    }
  }
  return { pins: [...pins.values()], memory: [...memory.values()], labels: [...labels.values()], ignored };
}

/**
 * Applies one `remember`. A claim whose key an active item already holds was rejected when it was
 * added; if the log holds one anyway (two writers, a hand edit), both stay stored and the later
 * one is marked invalid with the conflict as its reason, never replacing the earlier one.
 */
function rememberInto(memory: Map<string, MemoryRecord>, mutation: Extract<Mutation, { kind: 'remember' }>): boolean {
  if (memory.has(mutation.id)) return false;
  const record: MemoryRecord = { id: mutation.id, claim: mutation.claim, key: mutation.key, createdAt: mutation.at, status: 'active' };
  if (mutation.supersedes !== undefined) {
    const previous = memory.get(mutation.supersedes);
    if (!previous || previous.status !== 'active') return false;
    Object.assign(previous, { status: 'superseded', supersededBy: mutation.id, changedAt: mutation.at });
    record.supersedes = previous.id;
  }
  const rivals = conflictsWith(memory.values(), record.claim, record.key);
  if (rivals.length > 0)
    Object.assign(record, { status: 'invalid', reason: `conflicts with ${rivals.join(', ')}`, changedAt: mutation.at });
  memory.set(record.id, record);
  return true;
}

/** The active items a claim with `key` would contradict: same key, different claim. */
export function conflictsWith(items: Iterable<MemoryRecord>, claim: string, key: string | null): string[] {
  if (key === null) return [];
  const normalized = normalizeClaim(claim);
  const ids: string[] = [];
  for (const item of items)
    if (item.status === 'active' && item.key === key && normalizeClaim(item.claim) !== normalized) ids.push(item.id);
  return ids;
}

/** Active pins, oldest first. */
export function activePins(state: CurationState): PinRecord[] {
  return state.pins.filter((pin) => !pin.removedBy);
}
