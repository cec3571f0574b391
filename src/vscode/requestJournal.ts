import type { RequestName } from '../core/worker/protocol';

/** One request sent to the worker, for the tests that count them (no query text is kept). */
export interface RequestRecord {
  readonly seq: number;
  readonly name: RequestName;
  readonly projectKey: string | undefined;
  readonly paths: readonly string[] | undefined;
  readonly path: string | undefined;
}

/** The journal keeps this many records. */
const journalLength = 1000;

/**
 * The last 1,000 requests the facade sent to the worker: their name and the folder and paths they
 * named, never a query or file text. It only records; sending stays with the facade.
 */
export class RequestJournal {
  private readonly records: RequestRecord[] = [];
  private sequence = 0;

  record(name: RequestName, params: unknown): void {
    const fields = params as { projectKey?: string; paths?: string[]; path?: string };
    this.records.push(
      Object.freeze({
        seq: ++this.sequence,
        name,
        projectKey: fields.projectKey,
        paths: fields.paths && Object.freeze([...fields.paths]),
        path: fields.path,
      }),
    );
    if (this.records.length > journalLength) this.records.shift();
  }

  /** The requests recorded, oldest first. */
  entries(): readonly RequestRecord[] {
    return Object.freeze([...this.records]);
  }
}
