/**
 * A small counting semaphore that caps concurrent upstream requests. Callers over the cap wait
 * in arrival order; a waiter whose signal aborts (cancellation or the call's deadline) leaves the
 * queue without taking a slot.
 */

/** Gives the slot back; calling it more than once is harmless. */
export type Release = () => void;

export class Semaphore {
  private active = 0;
  private readonly waiters: Array<(release: Release) => void> = [];

  /** @param max slots; 0 (or less) means no cap. */
  constructor(readonly max: number) {}

  /** Requests holding a slot now. */
  get inFlight(): number {
    return this.active;
  }

  /** Callers waiting for a slot now. */
  get waiting(): number {
    return this.waiters.length;
  }

  /** A slot at once when one is free, without waiting; undefined otherwise. */
  tryAcquire(): Release | undefined {
    if (this.max > 0 && this.active >= this.max) return undefined;
    this.active++;
    return this.releaser();
  }

  /**
   * Resolves with a release function once a slot is free, or with `undefined` if `signal` aborts
   * first (the caller then holds nothing).
   */
  acquire(signal?: AbortSignal): Promise<Release | undefined> {
    if (signal?.aborted) return Promise.resolve(undefined);
    const now = this.tryAcquire();
    if (now) return Promise.resolve(now);
    return new Promise((resolve) => {
      const grant = (release: Release) => {
        signal?.removeEventListener('abort', onAbort);
        resolve(release);
      };
      const onAbort = () => {
        const index = this.waiters.indexOf(grant);
        if (index !== -1) this.waiters.splice(index, 1);
        resolve(undefined);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(grant);
    });
  }

  private releaser(): Release {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiters.shift();
      // The slot passes straight to the next waiter, so `active` stays the same.
      if (next) next(this.releaser());
      else this.active--;
    };
  }
}
