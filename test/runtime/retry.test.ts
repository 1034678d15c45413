import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { UpstreamRequest } from '../../runtime/build-request.js';
import { callUpstream, type UpstreamResult } from '../../runtime/call-upstream.js';
import {
  DEFAULT_RETRY_POLICY,
  backoffDelay,
  parseRetryAfter,
  retryReason,
  sleep,
  withRetries,
  type RetryEvent,
  type RetryPolicy,
} from '../../runtime/retry.js';

/**
 * A real HTTP server on 127.0.0.1. `/flaky/<n>/<retry-after>` answers 503 (with that Retry-After,
 * unless it is "none") to the first n requests for that path, then 200.
 */
let server: Server;
let origin: string;
const hits = new Map<string, number>();
const methods: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const path = req.url ?? '/';
      methods.push(`${req.method} ${path}`);
      const count = (hits.get(path) ?? 0) + 1;
      hits.set(path, count);
      const flaky = /^\/flaky\/(\d+)\/([^/]+)(?:\/(\d+))?$/.exec(path);
      if (flaky) {
        const failures = Number(flaky[1]);
        const status = Number(flaky[3] ?? 503);
        if (count <= failures) {
          const headers: Record<string, string> = { 'content-type': 'text/plain' };
          if (flaky[2] !== 'none') headers['retry-after'] = decodeURIComponent(flaky[2]!);
          res.writeHead(status, headers).end('busy');
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
        return;
      }
      res.writeHead(404).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  hits.clear();
  methods.length = 0;
});

const FAST: RetryPolicy = { maxRetries: 2, baseDelayMs: 10, maxDelayMs: 40, maxTotalWaitMs: 5_000 };

function request(method: UpstreamRequest['method'], path: string): UpstreamRequest {
  return { method, url: `${origin}${path}`, headers: {} };
}

/** withRetries around a real callUpstream, as execute-tool.ts uses it. */
async function send(
  method: UpstreamRequest['method'],
  path: string,
  options: { policy?: RetryPolicy; timeoutMs?: number; signal?: AbortSignal } = {},
) {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const deadline = Date.now() + timeoutMs;
  const events: RetryEvent[] = [];
  const started = Date.now();
  const { outcome, attempts } = await withRetries(
    () => callUpstream(request(method, path), { timeoutMs: Math.max(1, deadline - Date.now()), signal: options.signal }),
    {
      method,
      policy: options.policy ?? FAST,
      deadline,
      signal: options.signal,
      onRetry: (event) => events.push(event),
    },
  );
  return { outcome, attempts, events, ms: Date.now() - started };
}

function status(outcome: UpstreamResult): number | string {
  return outcome.ok ? outcome.status : outcome.kind;
}

describe('parseRetryAfter', () => {
  const now = Date.parse('2025-01-01T00:00:00Z');
  it('reads delay-seconds', () => {
    expect(parseRetryAfter('0', now)).toBe(0);
    expect(parseRetryAfter(' 3 ', now)).toBe(3000);
    expect(parseRetryAfter('120', now)).toBe(120_000);
  });
  it('reads an HTTP date, a past one as 0', () => {
    expect(parseRetryAfter('Wed, 01 Jan 2025 00:00:05 GMT', now)).toBe(5000);
    expect(parseRetryAfter('Tue, 31 Dec 2024 23:59:00 GMT', now)).toBe(0);
  });
  it('ignores what is neither', () => {
    for (const value of [undefined, null, '', 'soon', '1.5', '-3', '2e3']) {
      expect(parseRetryAfter(value, now), String(value)).toBeUndefined();
    }
  });
});

describe('backoffDelay', () => {
  const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, baseDelayMs: 100, maxDelayMs: 1000 };
  it('doubles each retry, with half of it random, up to the maximum', () => {
    expect([1, 2, 3, 4, 5].map((n) => backoffDelay(n, policy, () => 0))).toEqual([50, 100, 200, 400, 500]);
    expect([1, 2, 3, 4, 5].map((n) => backoffDelay(n, policy, () => 1))).toEqual([100, 200, 400, 800, 1000]);
    for (let i = 0; i < 100; i++) {
      const d = backoffDelay(2, policy);
      expect(d).toBeGreaterThanOrEqual(100);
      expect(d).toBeLessThanOrEqual(200);
    }
  });
});

describe('retryReason', () => {
  const answer = (code: number, headers: Record<string, string> = {}): UpstreamResult => ({
    ok: true,
    status: code,
    statusText: '',
    headers: new Headers(headers),
    contentType: '',
    body: new Uint8Array(0),
    truncated: false,
  });
  it('retries 429, 502, 503, 504 for idempotent methods only', () => {
    for (const method of ['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']) {
      for (const code of [429, 502, 503, 504]) expect(retryReason(method, answer(code)), `${method} ${code}`).toEqual({ reason: `HTTP ${code}` });
    }
    for (const method of ['POST', 'PATCH']) {
      for (const code of [429, 502, 503, 504]) expect(retryReason(method, answer(code)), `${method} ${code}`).toBeUndefined();
    }
  });
  it('does not retry other answers', () => {
    for (const code of [200, 201, 204, 301, 400, 401, 404, 409, 500, 501]) expect(retryReason('GET', answer(code)), String(code)).toBeUndefined();
  });
  it('carries Retry-After', () => {
    expect(retryReason('GET', answer(503, { 'retry-after': '2' }))).toEqual({ reason: 'HTTP 503', retryAfterMs: 2000 });
  });
  it('retries a refused connection (nothing was sent), nothing else that failed', () => {
    const refused: UpstreamResult = { ok: false, kind: 'network', code: 'ECONNREFUSED', message: 'x' };
    expect(retryReason('GET', refused)).toEqual({ reason: 'connection refused' });
    expect(retryReason('POST', refused)).toBeUndefined();
    expect(retryReason('GET', { ok: false, kind: 'network', code: 'ECONNRESET', message: 'x' })).toBeUndefined();
    expect(retryReason('GET', { ok: false, kind: 'network', code: 'HPE_INVALID_CONSTANT', message: 'x' })).toBeUndefined();
    expect(retryReason('GET', { ok: false, kind: 'timeout', message: 'x' })).toBeUndefined();
    expect(retryReason('GET', { ok: false, kind: 'aborted', message: 'x' })).toBeUndefined();
  });
});

describe('withRetries against a real HTTP server', () => {
  it('GET: 503 with Retry-After: 1, then 200 — waits about a second, two attempts', async () => {
    const { outcome, attempts, events, ms } = await send('GET', '/flaky/1/1');
    expect(status(outcome)).toBe(200);
    expect(attempts).toBe(2);
    expect(hits.get('/flaky/1/1')).toBe(2);
    expect(events).toEqual([{ attempt: 2, maxAttempts: 3, delayMs: 1000, reason: 'HTTP 503' }]);
    expect(ms).toBeGreaterThanOrEqual(950);
    expect(ms).toBeLessThan(3000);
  });

  it('POST is never retried: the 503 is the result', async () => {
    const { outcome, attempts, events } = await send('POST', '/flaky/1/0');
    expect(status(outcome)).toBe(503);
    expect(attempts).toBe(1);
    expect(events).toEqual([]);
    expect(methods).toEqual(['POST /flaky/1/0']);
  });

  it('PATCH is never retried either', async () => {
    const { outcome, attempts } = await send('PATCH', '/flaky/1/0/429');
    expect(status(outcome)).toBe(429);
    expect(attempts).toBe(1);
  });

  it.each(['PUT', 'DELETE', 'HEAD', 'OPTIONS'] as const)('%s is retried', async (method) => {
    const { outcome, attempts } = await send(method, '/flaky/2/0/502');
    expect(status(outcome)).toBe(200);
    expect(attempts).toBe(3);
  });

  it('backs off without Retry-After, and gives up after maxRetries with the last answer', async () => {
    const { outcome, attempts, events } = await send('GET', '/flaky/9/none/504');
    expect(status(outcome)).toBe(504);
    expect(attempts).toBe(3);
    expect(hits.get('/flaky/9/none/504')).toBe(3);
    expect(events.map((e) => e.attempt)).toEqual([2, 3]);
    expect(events[0]!.delayMs).toBeGreaterThanOrEqual(5);
    expect(events[0]!.delayMs).toBeLessThanOrEqual(10);
    expect(events[1]!.delayMs).toBeGreaterThanOrEqual(10);
    expect(events[1]!.delayMs).toBeLessThanOrEqual(20);
  });

  it('maxRetries 0 disables retrying', async () => {
    const { attempts } = await send('GET', '/flaky/1/0', { policy: { ...FAST, maxRetries: 0 } });
    expect(attempts).toBe(1);
  });

  it('a Retry-After beyond the total wait budget is not waited for', async () => {
    const { outcome, attempts, ms } = await send('GET', '/flaky/1/60', { policy: { ...FAST, maxTotalWaitMs: 10_000 } });
    expect(status(outcome)).toBe(503);
    expect(outcome.ok && outcome.headers.get('retry-after')).toBe('60');
    expect(attempts).toBe(1);
    expect(ms).toBeLessThan(1000);
  });

  it('a wait that would end past the call deadline is not started', async () => {
    const { outcome, attempts, ms } = await send('GET', '/flaky/1/2', { timeoutMs: 1500 });
    expect(status(outcome)).toBe(503);
    expect(attempts).toBe(1);
    expect(ms).toBeLessThan(1000);
  });

  it('an HTTP-date Retry-After is honoured', async () => {
    // Dates have whole seconds: two seconds ahead is a wait of one to two seconds.
    const date = new Date(Date.now() + 2000).toUTCString();
    const path = `/flaky/1/${encodeURIComponent(date)}`;
    const { outcome, attempts, events, ms } = await send('GET', path);
    expect(status(outcome)).toBe(200);
    expect(attempts).toBe(2);
    expect(events[0]!.delayMs).toBeGreaterThan(900);
    expect(events[0]!.delayMs).toBeLessThanOrEqual(2000);
    expect(ms).toBeGreaterThanOrEqual(events[0]!.delayMs - 50);
  });

  it('cancellation cuts the wait short', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const { outcome, attempts, ms } = await send('GET', '/flaky/1/5', { signal: controller.signal });
    expect(status(outcome)).toBe(503);
    expect(attempts).toBe(1);
    expect(ms).toBeLessThan(1000);
    expect(hits.get('/flaky/1/5')).toBe(1);
  });

  it('a refused connection is retried for GET, not for POST', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const attempt = (method: 'GET' | 'POST') =>
      withRetries(() => callUpstream({ method, url: `http://127.0.0.1:${port}/x`, headers: {} }, { timeoutMs: 2000 }), {
        method,
        policy: FAST,
        deadline: Date.now() + 5000,
      });
    const get = await attempt('GET');
    expect(get.attempts).toBe(3);
    expect(get.outcome).toMatchObject({ ok: false, kind: 'network', code: 'ECONNREFUSED' });
    const post = await attempt('POST');
    expect(post.attempts).toBe(1);
  });
});

describe('sleep', () => {
  it('resolves true after the time, false when aborted', async () => {
    expect(await sleep(5)).toBe(true);
    const controller = new AbortController();
    const pending = sleep(10_000, controller.signal);
    controller.abort();
    expect(await pending).toBe(false);
    expect(await sleep(10, AbortSignal.abort())).toBe(false);
  });
});
