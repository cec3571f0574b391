import * as vscode from 'vscode';
import { overallState, type FolderSnapshot, type FolderState } from './folderIndexer';
import { Disposable, timeout } from './lifecycle';

/** An immutable picture of the whole workspace index; a new one is made after every change. */
export interface IndexStatus {
  readonly trusted: boolean;
  readonly state: FolderState;
  readonly folders: readonly FolderSnapshot[];
}

/** Which paths of which folder changed in the index; `paths` undefined means any of the folder's may have. */
export interface IndexChange {
  readonly folderKey: string;
  readonly paths: readonly string[] | undefined;
}

/** Status events from progress and merged file events are sent at most once per this many milliseconds. */
const statusThrottleMs = 100;

/**
 * The status the facade publishes: one immutable snapshot, made when first asked for after a
 * change; change events sent at once when urgent and at most every 100 ms otherwise (progress,
 * merged file events); and the `projectKnowledge.state` context key kept in step with it.
 */
export class StatusPublisher extends Disposable {
  private readonly _onDidChangeStatus = this._register(new vscode.EventEmitter<IndexStatus>());
  /** State, progress, pending paths: anything shown about the index (throttled for progress). */
  readonly onDidChangeStatus = this._onDidChangeStatus.event;
  private cached: IndexStatus | undefined;
  private timer: vscode.Disposable | undefined;
  private lastContextState: FolderState | undefined;

  /** `current` reads trust and every folder's snapshot; it is called only when the snapshot is out of date. */
  constructor(private readonly current: () => { trusted: boolean; folders: FolderSnapshot[] }) {
    super();
    this._register(
      new vscode.Disposable(() => {
        this.timer?.dispose();
      }),
    );
  }

  status(): IndexStatus {
    if (!this.cached) {
      const { trusted, folders } = this.current();
      this.cached = Object.freeze({
        trusted,
        state: overallState(
          trusted,
          folders.map((folder) => folder.state),
        ),
        folders: Object.freeze(folders),
      });
    }
    return this.cached;
  }

  /** Something shown changed: the snapshot is made again, and listeners hear of it now (`urgent`) or within 100 ms. */
  changed(urgent: boolean): void {
    this.cached = undefined;
    if (urgent) {
      this.timer?.dispose();
      this.timer = undefined;
      this.fire();
    } else {
      this.timer ??= timeout(() => {
        this.timer = undefined;
        this.fire();
      }, statusThrottleMs);
    }
  }

  private fire(): void {
    const status = this.status();
    if (status.state !== this.lastContextState) {
      this.lastContextState = status.state;
      void vscode.commands.executeCommand('setContext', 'projectKnowledge.state', status.state);
    }
    this._onDidChangeStatus.fire(status);
  }
}
