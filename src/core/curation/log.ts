import * as fs from 'node:fs';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import { sha256Hex } from '../hashing';
import type { Logger } from '../ports';
import { withLock } from '../databaseFile';

/**
 * The canonical record of what the user curated for one project: pins, memory items and feedback
 * labels, as an append-only JSONL file of mutations beside (never inside) the disposable
 * database. Every line is one mutation with an id, a timestamp and a kind; nothing is rewritten.
 */
export const logVersion = 1;

export type PinTarget =
  | { target: 'file'; path: string }
  | { target: 'range'; path: string; startLine: number; endLine: number }
  | { target: 'declaration'; path: string; qualifiedName: string };

export type FeedbackLabel = 'useful' | 'not-useful';
export type LabelSource = 'chat' | 'manifest' | 'cli';

/** The bounded feature vector's length (`features.ts` names each position). */
export const featureCount = 9;

export type Mutation =
  | ({ kind: 'pin'; id: string; at: string; textHash?: string } & PinTarget)
  | { kind: 'unpin'; id: string; at: string; pin: string }
  | { kind: 'remember'; id: string; at: string; claim: string; key: string | null; supersedes?: string }
  | { kind: 'invalidate' | 'expire'; id: string; at: string; memory: string; reason?: string }
  | {
      kind: 'label';
      id: string;
      at: string;
      label: FeedbackLabel;
      source: LabelSource;
      /** SHA-256 of the candidate's identity (path and declaration or range), never the identity itself. */
      candidate: string;
      /** SHA-256 of the request, to group labels by request for held-out evaluation. */
      query: string;
      features: number[];
    };

/** Lines longer than this are not ours (a claim is at most `maxClaimLength` characters). */
const maxLineLength = 16_384;
/** A log past this size is read only up to it: 32 MB is about 100,000 labels. */
const maxLogBytes = 32 * 1024 * 1024;
export const maxClaimLength = 1_000;

export interface LogContents {
  mutations: Mutation[];
  /** Lines that were not a well-formed mutation (a torn last line, a hand edit): skipped and counted. */
  malformed: number;
  /** SHA-256 of the bytes read: the database's materialized tables are rebuilt when it changes. */
  digest: string;
}

/** A new mutation id: a kind prefix and 48 random bits (ids only need to be unique within one log). */
export function newId(prefix: 'pin' | 'mem' | 'lab' | 'mut'): string {
  return `${prefix}-${randomBytes(6).toString('hex')}`;
}

/** Where a database's curation log lives: beside it, keyed like it (`<hash>.sqlite` → `<hash>.curation.jsonl`). */
export function curationLogPathFor(dbPath: string): string {
  return `${dbPath.replace(/\.sqlite$/, '')}.curation.jsonl`;
}

/** Where the trained ranking model of a log lives (derived state: deleting it restores static ranking). */
export function rankerPathFor(logPath: string): string {
  return `${logPath.replace(/\.curation\.jsonl$/, '')}.ranker.json`;
}

const idPattern = /^(?:pin|mem|lab|mut)-[0-9a-f]{12}$/;
const hashPattern = /^[0-9a-f]{64}$/;

function isString(value: unknown): value is string {
  return typeof value === 'string';
}

function isLine(value: unknown): value is number {
  return Number.isInteger(value) && (value as number) >= 1;
}

/** A parsed line as a mutation, or undefined when any field is missing or out of bounds. */
export function asMutation(value: unknown): Mutation | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const record = value as Record<string, unknown>;
  if (record.v !== logVersion || !isString(record.id) || !idPattern.test(record.id)) return undefined;
  if (!isString(record.at) || Number.isNaN(Date.parse(record.at))) return undefined;
  const { id, at } = record;
  switch (record.kind) {
    case 'pin': {
      if (!isString(record.path) || record.path.length === 0) return undefined;
      const textHash = isString(record.textHash) && hashPattern.test(record.textHash) ? record.textHash : undefined;
      if (record.target === 'file') return { kind: 'pin', id, at, target: 'file', path: record.path };
      if (record.target === 'range' && isLine(record.startLine) && isLine(record.endLine) && record.endLine >= record.startLine)
        return { kind: 'pin', id, at, target: 'range', path: record.path, startLine: record.startLine, endLine: record.endLine, textHash };
      if (record.target === 'declaration' && isString(record.qualifiedName) && record.qualifiedName.length > 0)
        return { kind: 'pin', id, at, target: 'declaration', path: record.path, qualifiedName: record.qualifiedName };
      return undefined;
    }
    case 'unpin':
      return isString(record.pin) ? { kind: 'unpin', id, at, pin: record.pin } : undefined;
    case 'remember': {
      if (!isString(record.claim) || record.claim.length === 0 || record.claim.length > maxClaimLength) return undefined;
      const key = isString(record.key) ? record.key : null;
      const supersedes = isString(record.supersedes) ? record.supersedes : undefined;
      return { kind: 'remember', id, at, claim: record.claim, key, supersedes };
    }
    case 'invalidate':
    case 'expire':
      if (!isString(record.memory)) return undefined;
      return { kind: record.kind, id, at, memory: record.memory, reason: isString(record.reason) ? record.reason : undefined };
    case 'label': {
      const { label, source, candidate, query, features } = record;
      if (label !== 'useful' && label !== 'not-useful') return undefined;
      if (source !== 'chat' && source !== 'manifest' && source !== 'cli') return undefined;
      if (!isString(candidate) || !hashPattern.test(candidate) || !isString(query) || !hashPattern.test(query)) return undefined;
      if (!Array.isArray(features) || features.length !== featureCount) return undefined;
      if (!features.every((feature) => typeof feature === 'number' && Number.isFinite(feature) && feature >= 0 && feature <= 1))
        return undefined;
      return { kind: 'label', id, at, label, source, candidate, query, features: features as number[] };
    }
    default:
      return undefined;
  }
}

/** Parses log text; malformed lines are skipped and counted, never fatal. */
export function parseLog(text: string): { mutations: Mutation[]; malformed: number } {
  const mutations: Mutation[] = [];
  let malformed = 0;
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    let parsed: unknown;
    try {
      parsed = line.length > maxLineLength ? undefined : JSON.parse(line);
    } catch {
      parsed = undefined;
    }
    const mutation = asMutation(parsed);
    if (mutation) mutations.push(mutation);
    else malformed++;
  }
  return { mutations, malformed };
}

/** The line a mutation is stored as (fields in one fixed order, so equal mutations are equal bytes). */
export function serializeMutation(mutation: Mutation): string {
  return JSON.stringify({ v: logVersion, ...mutation });
}

/**
 * One project's log file. Reads are whole-file (bounded); an append takes the same writers' lock
 * as the database (`<log>.lock`), re-reads the log under it so a decision (dedup, conflict) sees
 * every other writer's mutations, and writes one line with mode 0600 where supported.
 */
export class CurationLog {
  constructor(
    readonly logPath: string | undefined,
    private readonly log: Logger,
    private readonly lockTimeoutMs = 10_000,
  ) {
    this.memoryLines = [];
  }

  /** Without a path (an in-memory index) the log lives only as long as the engine. */
  private memoryLines: string[];

  /** Size and modification time of the file, to notice another writer's append cheaply. */
  identity(): string {
    if (!this.logPath) return `memory:${this.memoryLines.length}`;
    try {
      const stat = fs.statSync(this.logPath, { bigint: true });
      return `${stat.ino}:${stat.size}:${stat.mtimeNs}`;
    } catch {
      return 'missing';
    }
  }

  read(): LogContents {
    const text = this.readText();
    return { ...parseLog(text), digest: sha256Hex(text) };
  }

  private readText(): string {
    if (!this.logPath) return this.memoryLines.map((line) => `${line}\n`).join('');
    let descriptor: number;
    try {
      descriptor = fs.openSync(this.logPath, fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return '';
      this.log.warn(
        `The curation log ${this.logPath} cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)}); no pins or memory.`,
      );
      return '';
    }
    try {
      const stat = fs.fstatSync(descriptor);
      if (!stat.isFile()) {
        this.log.warn(`The curation log ${this.logPath} is not a regular file; it is ignored.`);
        return '';
      }
      const length = Math.min(stat.size, maxLogBytes);
      if (stat.size > maxLogBytes) this.log.warn(`The curation log ${this.logPath} is over ${maxLogBytes} bytes; only its start is read.`);
      const buffer = Buffer.alloc(length);
      let offset = 0;
      while (offset < length) {
        const read = fs.readSync(descriptor, buffer, offset, length - offset, offset);
        if (read === 0) break;
        offset += read;
      }
      return buffer.subarray(0, offset).toString('utf8');
    } finally {
      fs.closeSync(descriptor);
    }
  }

  /**
   * Under the lock: reads the log, lets `decide` choose what to append from the current
   * mutations (nothing, to return an existing id), and appends it.
   */
  async mutate<T>(decide: (current: Mutation[]) => { append?: Mutation[]; result: T }): Promise<T> {
    if (!this.logPath) {
      const decision = decide(this.read().mutations);
      for (const mutation of decision.append ?? []) this.memoryLines.push(serializeMutation(mutation));
      return decision.result;
    }
    const logPath = this.logPath;
    fs.mkdirSync(path.dirname(logPath), { recursive: true });
    return withLock(logPath, { timeoutMs: this.lockTimeoutMs, log: this.log }, async () => {
      const text = this.readText();
      const decision = decide(parseLog(text).mutations);
      const lines = (decision.append ?? []).map(serializeMutation);
      if (lines.length > 0) appendLines(logPath, text.length > 0 && !text.endsWith('\n'), lines);
      return decision.result;
    });
  }
}

/** Appends whole lines and flushes them; a torn previous line gets its own line ending first. */
function appendLines(logPath: string, needsNewline: boolean, lines: string[]): void {
  const flags = fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_CREAT | (fs.constants.O_NOFOLLOW ?? 0);
  const descriptor = fs.openSync(logPath, flags, 0o600);
  try {
    if (!fs.fstatSync(descriptor).isFile()) throw new Error(`The curation log ${logPath} is not a regular file.`);
    // The mode applies to files this call creates; an older file is narrowed too, where the platform supports it.
    if (process.platform !== 'win32') fs.fchmodSync(descriptor, 0o600);
    fs.writeSync(descriptor, `${needsNewline ? '\n' : ''}${lines.join('\n')}\n`);
    fs.fsyncSync(descriptor);
  } finally {
    fs.closeSync(descriptor);
  }
}
