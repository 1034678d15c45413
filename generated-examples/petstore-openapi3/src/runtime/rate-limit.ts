/**
 * Rate limiting of tool calls with a token bucket: the bucket holds up to `burst` tokens, refills
 * at `perMinute` tokens a minute, and every call takes one. A call that finds the bucket empty is
 * refused (it never waits), with the time until a token is available, so the model can retry then.
 */

export type RateDecision = { ok: true } | { ok: false; retryAfterMs: number };

export interface RateLimiterOptions {
  /** Calls allowed per minute on average; 0 disables the limit. */
  perMinute: number;
  /** Calls allowed at once after a quiet period; defaults to `perMinute`. */
  burst?: number;
  /** Clock in milliseconds, for tests. */
  now?: () => number;
}

export class RateLimiter {
  private readonly capacity: number;
  /** Tokens added per millisecond. */
  private readonly rate: number;
  private readonly now: () => number;
  private tokens: number;
  private updatedAt: number;

  constructor(readonly options: RateLimiterOptions) {
    this.now = options.now ?? Date.now;
    this.capacity = Math.max(1, options.burst ?? options.perMinute);
    this.rate = options.perMinute / 60_000;
    this.tokens = this.capacity;
    this.updatedAt = this.now();
  }

  get enabled(): boolean {
    return this.options.perMinute > 0;
  }

  /** Takes a token if there is one; otherwise says how long until there is. */
  take(): RateDecision {
    if (!this.enabled) return { ok: true };
    const now = this.now();
    // A clock that goes backwards (it should not) never adds tokens.
    const elapsed = Math.max(0, now - this.updatedAt);
    this.tokens = Math.min(this.capacity, this.tokens + elapsed * this.rate);
    this.updatedAt = now;
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return { ok: true };
    }
    return { ok: false, retryAfterMs: Math.ceil((1 - this.tokens) / this.rate) };
  }
}

/** The message of a refused call: the limit, and when to try again in whole seconds. */
export function rateLimitedMessage(retryAfterMs: number, perMinute: number): string {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  return (
    `Rate limit reached: this server allows ${perMinute} tool calls per minute (MCP_RATE_LIMIT). ` +
    `Nothing was sent to the API. Retry in ${seconds} s.`
  );
}
