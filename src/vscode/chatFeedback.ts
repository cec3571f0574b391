/** Helpful and unhelpful votes of one kind of chat request. */
export interface FeedbackCount {
  readonly helpful: number;
  readonly unhelpful: number;
}

/** Helpful/unhelpful chat feedback counted per request kind; no prompt text is kept. */
export class ChatFeedback {
  private readonly counts = new Map<string, { helpful: number; unhelpful: number }>();

  record(kind: string, helpful: boolean): void {
    const counts = this.counts.get(kind) ?? { helpful: 0, unhelpful: 0 };
    if (helpful) counts.helpful++;
    else counts.unhelpful++;
    this.counts.set(kind, counts);
  }

  /** Every kind with its counts, in the order first heard; the copies cannot change. */
  entries(): ReadonlyArray<readonly [string, FeedbackCount]> {
    return [...this.counts].map(([kind, counts]) => Object.freeze([kind, Object.freeze({ ...counts })] as const));
  }
}
