import { describe, expect, it } from 'vitest';
import { RateLimiter, rateLimitedMessage } from '../../runtime/rate-limit.js';

function clock(start = 1_000_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

describe('RateLimiter (token bucket)', () => {
  it('allows a burst of the per-minute budget, then refuses with the time until the next token', () => {
    const c = clock();
    const limiter = new RateLimiter({ perMinute: 60, now: c.now });
    for (let i = 0; i < 60; i++) expect(limiter.take(), `call ${i}`).toEqual({ ok: true });
    // 60 a minute = one token a second.
    expect(limiter.take()).toEqual({ ok: false, retryAfterMs: 1000 });
    c.advance(400);
    expect(limiter.take()).toEqual({ ok: false, retryAfterMs: 600 });
    c.advance(600);
    expect(limiter.take()).toEqual({ ok: true });
    expect(limiter.take().ok).toBe(false);
  });

  it('refills at the per-minute rate and never beyond the burst size', () => {
    const c = clock();
    const limiter = new RateLimiter({ perMinute: 120, burst: 3, now: c.now });
    for (let i = 0; i < 3; i++) expect(limiter.take().ok).toBe(true);
    expect(limiter.take()).toEqual({ ok: false, retryAfterMs: 500 });
    c.advance(60_000); // an hour of refill would be 120 tokens; the bucket holds 3
    for (let i = 0; i < 3; i++) expect(limiter.take().ok).toBe(true);
    expect(limiter.take().ok).toBe(false);
    c.advance(1_000); // two tokens at 2 a second
    expect(limiter.take().ok).toBe(true);
    expect(limiter.take().ok).toBe(true);
    expect(limiter.take().ok).toBe(false);
  });

  it('a burst smaller than the rate still averages out to the rate', () => {
    const c = clock();
    const limiter = new RateLimiter({ perMinute: 6, burst: 1, now: c.now });
    let allowed = 0;
    for (let second = 0; second < 60; second++) {
      if (limiter.take().ok) allowed++;
      c.advance(1000);
    }
    expect(allowed).toBe(6);
  });

  it('0 per minute disables the limit', () => {
    const limiter = new RateLimiter({ perMinute: 0 });
    expect(limiter.enabled).toBe(false);
    for (let i = 0; i < 10_000; i++) expect(limiter.take().ok).toBe(true);
  });

  it('a clock going backwards adds no tokens', () => {
    const c = clock();
    const limiter = new RateLimiter({ perMinute: 60, burst: 1, now: c.now });
    expect(limiter.take().ok).toBe(true);
    c.advance(-10_000);
    expect(limiter.take().ok).toBe(false);
  });

  it('the message says when to retry, in whole seconds (at least 1)', () => {
    expect(rateLimitedMessage(2_100, 120)).toMatch(/120 tool calls per minute.*Retry in 3 s\./);
    expect(rateLimitedMessage(10, 120)).toMatch(/Retry in 1 s\./);
    expect(rateLimitedMessage(10, 120)).toMatch(/Nothing was sent/);
  });
});
