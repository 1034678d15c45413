/**
 * Retries of upstream requests that failed in a way worth repeating: 429, 502, 503 and 504
 * answers, and connections refused (nothing was sent). Only idempotent methods are retried — a
 * POST or PATCH that timed out or got a 503 may still have been processed, and repeating it could
 * act twice. Waits grow exponentially with jitter, a Retry-After header (seconds or an HTTP date)
 * is honoured, and the total wait is bounded: never past the call's deadline, and cut short when
 * the call is cancelled.
 */
import type { UpstreamResult } from './call-upstream.js';
import type { HttpMethod } from './types.js';

/** RFC 9110 idempotent methods (TRACE aside: a tool has no use for it). */
export const IDEMPOTENT_METHODS: ReadonlySet<string> = new Set([
  'GET',
  'HEAD',
  'OPTIONS',
  'PUT',
  'DELETE',
]);

/** Answers that mean "not now" rather than "no". */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 502, 503, 504]);

export interface RetryPolicy {
  /** Retries after the first attempt; 0 disables retrying. */
  maxRetries: number;
  /** The first backoff delay; it doubles with each retry. */
  baseDelayMs: number;
  /** The longest backoff delay when the upstream sends no Retry-After. */
  maxDelayMs: number;
  /** The most time one call spends waiting between attempts, Retry-After included. */
  maxTotalWaitMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxRetries: 2,
  baseDelayMs: 500,
  maxDelayMs: 5_000,
  maxTotalWaitMs: 10_000,
};

/** A retry is not worth it unless the attempt after the wait has at least this long. */
const MIN_ATTEMPT_MS = 100;

/** Retry-After as milliseconds from `now`: delay-seconds or an HTTP date; undefined if invalid. */
export function parseRetryAfter(
  value: string | null | undefined,
  now: number = Date.now(),
): number | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // An HTTP date has letters (a day name); this keeps "1.5" or "-3" from parsing as dates.
  if (!/[a-z]/i.test(text)) return undefined;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * Backoff before retry number `retry` (1 for the first): half of the exponential step fixed and
 * half random ("equal jitter"), so many clients retrying at once spread out, yet none comes back
 * immediately.
 */
export function backoffDelay(
  retry: number,
  policy: RetryPolicy,
  random: () => number = Math.random,
): number {
  const step = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, retry - 1));
  return Math.round(step / 2 + (random() * step) / 2);
}

/** Why an attempt's outcome may be retried (for logs and progress messages), or undefined. */
export function retryReason(
  method: HttpMethod | string,
  outcome: UpstreamResult,
): { reason: string; retryAfterMs?: number } | undefined {
  if (!IDEMPOTENT_METHODS.has(method.toUpperCase())) return undefined;
  if (outcome.ok) {
    if (!RETRYABLE_STATUSES.has(outcome.status)) return undefined;
    const retryAfterMs = parseRetryAfter(outcome.headers.get('retry-after'));
    return retryAfterMs === undefined
      ? { reason: `HTTP ${outcome.status}` }
      : { reason: `HTTP ${outcome.status}`, retryAfterMs };
  }
  if (outcome.kind === 'network' && outcome.code === 'ECONNREFUSED') {
    return { reason: 'connection refused' };
  }
  return undefined;
}

/** Resolves true after `ms`, or false as soon as `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export interface RetryEvent {
  /** The attempt about to be made (2 for the first retry). */
  attempt: number;
  /** Attempts at most, the first included. */
  maxAttempts: number;
  delayMs: number;
  reason: string;
}

export interface RetryOptions {
  method: HttpMethod | string;
  policy: RetryPolicy;
  /** Epoch milliseconds after which no attempt is started and no wait may end. */
  deadline: number;
  /** Aborts the waits between attempts (cancellation or the call's deadline). */
  signal?: AbortSignal;
  /** Told before each wait. */
  onRetry?: (event: RetryEvent) => void;
  now?: () => number;
  random?: () => number;
}

/**
 * Runs `attempt` until its outcome is final: a success, an answer or failure that is not
 * retryable, no retries left, or no time left for a wait and another attempt. Returns the last
 * outcome (so a final 503 still reaches the model with its Retry-After) and the number of attempts.
 */
export async function withRetries(
  attempt: () => Promise<UpstreamResult>,
  options: RetryOptions,
): Promise<{ outcome: UpstreamResult; attempts: number }> {
  const now = options.now ?? Date.now;
  const { policy } = options;
  let attempts = 0;
  let waited = 0;
  for (;;) {
    const outcome = await attempt();
    attempts++;
    if (attempts > policy.maxRetries) return { outcome, attempts };
    const why = retryReason(options.method, outcome);
    if (!why) return { outcome, attempts };
    const delayMs = why.retryAfterMs ?? backoffDelay(attempts, policy, options.random);
    const left = options.deadline - now();
    if (waited + delayMs > policy.maxTotalWaitMs || delayMs + MIN_ATTEMPT_MS > left) {
      return { outcome, attempts };
    }
    options.onRetry?.({
      attempt: attempts + 1,
      maxAttempts: policy.maxRetries + 1,
      delayMs,
      reason: why.reason,
    });
    if (!(await sleep(delayMs, options.signal))) return { outcome, attempts };
    waited += delayMs;
  }
}
