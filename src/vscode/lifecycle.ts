import * as vscode from 'vscode';

/**
 * The base of everything in the extension that listens or allocates: each listener, emitter,
 * timer or child object is registered right after it is created and disposed with its owner, in
 * reverse order (VS Code's own `Disposable` and `_register` in `lifecycle.ts`).
 */
export abstract class Disposable implements vscode.Disposable {
  private readonly registered: vscode.Disposable[] = [];
  private disposedFlag = false;

  protected get isDisposed(): boolean {
    return this.disposedFlag;
  }

  /** Keeps `value` until this object is disposed; a value registered after that is disposed at once. */
  protected _register<T extends vscode.Disposable>(value: T): T {
    if (this.disposedFlag) value.dispose();
    else this.registered.push(value);
    return value;
  }

  dispose(): void {
    if (this.disposedFlag) return;
    this.disposedFlag = true;
    // One failing disposal must not keep the others alive.
    for (const value of this.registered.splice(0).reverse()) {
      try {
        value.dispose();
      } catch {
        // Nothing else to do at disposal: the owner is going away.
      }
    }
  }
}

/** A timer as a disposable: disposing it clears the timer if it has not fired yet. */
export function timeout(callback: () => void, delayMs: number): vscode.Disposable {
  const timer = setTimeout(callback, delayMs);
  return new vscode.Disposable(() => clearTimeout(timer));
}

/** Whether `work` settles within `timeoutMs` (it goes on either way); a rejection counts as settled. */
export async function settlesWithin(work: Promise<unknown>, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
  try {
    return await Promise.race([
      work.then(
        () => true,
        () => true,
      ),
      expired,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
