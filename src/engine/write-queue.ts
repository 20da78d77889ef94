// Store writes asked for from synchronous callbacks (progress, detected language): they run one after
// another in the order asked, and the job awaits `flush` before its next step, so no write floats unobserved.

export class WriteQueue {
  private tail: Promise<void> = Promise.resolve();
  private failure: { error: unknown } | null = null;

  push(write: () => Promise<unknown>): void {
    // The chain never rejects (the first failure is kept for flush): nothing is left unhandled.
    this.tail = this.tail.then(async () => {
      if (!this.failure) await write();
    }).catch((error: unknown) => {
      this.failure ??= { error };
    });
  }

  /** Waits for every write pushed so far; throws the first one that failed. */
  async flush(): Promise<void> {
    await this.tail;
    if (this.failure) throw this.failure.error;
  }
}
