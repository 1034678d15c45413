import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UpstreamRequest } from '../../runtime/build-request.js';
import { callUpstream, type UpstreamResult } from '../../runtime/call-upstream.js';

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

async function startServer(handler: Handler): Promise<{ server: Server; origin: string; hits: string[] }> {
  const hits: string[] = [];
  const server = createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => handler(req, res, Buffer.concat(chunks).toString('utf8')));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, origin: `http://127.0.0.1:${port}`, hits };
}

async function stopServer(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

let main: Awaited<ReturnType<typeof startServer>>;
let other: Awaited<ReturnType<typeof startServer>>;

beforeAll(async () => {
  other = await startServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' }).end('other origin');
  });
  main = await startServer((req, res, body) => {
    const url = new URL(req.url ?? '/', 'http://x');
    switch (url.pathname) {
      case '/echo':
        res.writeHead(201, 'Made', { 'content-type': 'application/json' });
        res.end(JSON.stringify({ method: req.method, url: req.url, headers: req.headers, body }));
        return;
      case '/slow':
        setTimeout(() => res.writeHead(200).end('late'), 2000).unref();
        return;
      case '/slow-body':
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('start');
        setTimeout(() => res.end('end'), 2000).unref();
        return;
      case '/reset':
        req.socket.destroy();
        return;
      case '/reset-mid-body':
        res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '1000' });
        res.write('partial');
        setTimeout(() => req.socket.destroy(), 20);
        return;
      case '/big': {
        const size = Number(url.searchParams.get('size'));
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        // Several writes so the client sees several chunks.
        for (let sent = 0; sent < size; sent += 4096) res.write(Buffer.alloc(Math.min(4096, size - sent), 0x61));
        res.end();
        return;
      }
      case '/redirect':
        res.writeHead(Number(url.searchParams.get('status') ?? 302), { location: url.searchParams.get('to') ?? '/echo' });
        res.end('moved');
        return;
      case '/loop':
        res.writeHead(302, { location: '/loop' }).end();
        return;
      default:
        res.writeHead(404).end();
    }
  });
});

afterAll(async () => {
  await stopServer(main.server);
  await stopServer(other.server);
});

function get(url: string, extra: Partial<UpstreamRequest> = {}): UpstreamRequest {
  return { method: 'GET', url, headers: { Accept: 'application/json' }, ...extra };
}

function ok(result: UpstreamResult): Extract<UpstreamResult, { ok: true }> {
  if (!result.ok) throw new Error(`expected ok, got ${result.kind}: ${result.message}`);
  return result;
}

function json(result: UpstreamResult): Record<string, any> {
  return JSON.parse(new TextDecoder().decode(ok(result).body));
}

describe('callUpstream', () => {
  it('sends method, headers and body, and returns status, headers and body', async () => {
    const result = ok(
      await callUpstream(
        { method: 'POST', url: `${main.origin}/echo?x=1`, headers: { 'Content-Type': 'application/json', 'X-Id': 'a' }, body: '{"a":1}' },
        { timeoutMs: 2000 },
      ),
    );
    expect(result).toMatchObject({ status: 201, statusText: 'Made', contentType: 'application/json', truncated: false });
    const echoed = JSON.parse(new TextDecoder().decode(result.body));
    expect(echoed).toMatchObject({ method: 'POST', url: '/echo?x=1', body: '{"a":1}' });
    expect(echoed.headers).toMatchObject({ 'content-type': 'application/json', 'x-id': 'a' });
  });

  it('returns non-2xx responses as they are', async () => {
    expect(ok(await callUpstream(get(`${main.origin}/missing`), { timeoutMs: 2000 })).status).toBe(404);
  });

  it('times out waiting for headers', async () => {
    const started = Date.now();
    const result = await callUpstream(get(`${main.origin}/slow`), { timeoutMs: 100 });
    expect(result).toEqual({ ok: false, kind: 'timeout', message: 'Upstream request timed out after 100 ms' });
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it('times out while reading a slow body', async () => {
    const result = await callUpstream(get(`${main.origin}/slow-body`), { timeoutMs: 150 });
    expect(result).toMatchObject({ ok: false, kind: 'timeout' });
  });

  it('reports a cancellation by the caller as aborted', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const result = await callUpstream(get(`${main.origin}/slow`), { timeoutMs: 5000, signal: controller.signal });
    expect(result).toMatchObject({ ok: false, kind: 'aborted' });
  });

  it('reports an already-aborted signal without sending', async () => {
    const before = main.hits.length;
    const result = await callUpstream(get(`${main.origin}/echo`), { timeoutMs: 5000, signal: AbortSignal.abort() });
    expect(result).toMatchObject({ ok: false, kind: 'aborted' });
    expect(main.hits.length).toBe(before);
  });

  it('reports connection refused with the origin and code only', async () => {
    const closed = await startServer(() => {});
    const origin = closed.origin;
    await stopServer(closed.server);
    const result = await callUpstream(get(`${origin}/x?api_key=secret`), { timeoutMs: 2000 });
    expect(result).toEqual({ ok: false, kind: 'network', code: 'ECONNREFUSED', message: `Could not reach ${origin}: ECONNREFUSED` });
  });

  it('reports a connection reset before the response', async () => {
    const result = await callUpstream(get(`${main.origin}/reset?token=secret`), { timeoutMs: 2000 });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.kind).toBe('network');
    expect(result.message).toMatch(new RegExp(`^Connection to ${main.origin} was lost .*may or may not have processed`));
    expect(result.message).not.toMatch(/secret|\n|at /);
  });

  it('reports a connection reset in the middle of the body', async () => {
    const result = await callUpstream(get(`${main.origin}/reset-mid-body`), { timeoutMs: 2000 });
    expect(result).toMatchObject({ ok: false, kind: 'network' });
  });

  it('reports an answer that is not HTTP, without the bytes, as network with the parser code', async () => {
    const raw = createNetServer((socket) => {
      socket.on('error', () => {});
      socket.once('data', () => socket.end('\u0000\u0001SSH-2.0-not-http\r\n\r\n'));
    });
    await new Promise<void>((resolve) => raw.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(raw.address() as AddressInfo).port}`;
    try {
      const result = await callUpstream(get(`${origin}/x?token=secret`), { timeoutMs: 2000 });
      expect(result).toMatchObject({ ok: false, kind: 'network', code: expect.stringMatching(/^HPE_/) });
      if (result.ok) return;
      expect(result.message).toMatch(new RegExp(`^The upstream at ${origin} answered with something that is not valid HTTP \\(.*\\(HPE_\\w+\\)\\); the API may or may not have processed the request$`));
      expect(result.message).not.toMatch(/secret|SSH|\n/);
    } finally {
      await new Promise<void>((resolve) => raw.close(() => resolve()));
    }
  });

  it('truncates at maxResponseBytes instead of buffering more', async () => {
    const result = ok(await callUpstream(get(`${main.origin}/big?size=100000`), { timeoutMs: 2000, maxResponseBytes: 1000 }));
    expect(result.truncated).toBe(true);
    expect(result.body.byteLength).toBe(1000);
    expect(result.body.every((b) => b === 0x61)).toBe(true);
  });

  it('does not mark a body of exactly maxResponseBytes as truncated', async () => {
    const result = ok(await callUpstream(get(`${main.origin}/big?size=1000`), { timeoutMs: 2000, maxResponseBytes: 1000 }));
    expect(result).toMatchObject({ truncated: false });
    expect(result.body.byteLength).toBe(1000);
  });

  it('follows a same-origin redirect', async () => {
    const result = await callUpstream(get(`${main.origin}/redirect?to=/echo%3Fafter=1`), { timeoutMs: 2000 });
    expect(json(result)).toMatchObject({ method: 'GET', url: '/echo?after=1' });
  });

  it('keeps method and body on 307, turns POST into GET on 303', async () => {
    const post = (status: number): UpstreamRequest => ({
      method: 'POST',
      url: `${main.origin}/redirect?status=${status}&to=/echo`,
      headers: { 'Content-Type': 'application/json' },
      body: '{"a":1}',
    });
    expect(json(await callUpstream(post(307), { timeoutMs: 2000 }))).toMatchObject({ method: 'POST', body: '{"a":1}' });
    const after303 = json(await callUpstream(post(303), { timeoutMs: 2000 }));
    expect(after303).toMatchObject({ method: 'GET', body: '' });
    expect(after303.headers['content-type']).toBeUndefined();
  });

  it('does not follow a redirect to another origin', async () => {
    const before = other.hits.length;
    const result = ok(
      await callUpstream(get(`${main.origin}/redirect?to=${encodeURIComponent(`${other.origin}/steal`)}`, { headers: { Authorization: 'Bearer t' } }), {
        timeoutMs: 2000,
      }),
    );
    expect(result.status).toBe(302);
    expect(result.headers.get('location')).toBe(`${other.origin}/steal`);
    expect(other.hits.length).toBe(before);
  });

  it('stops after 5 redirects and returns the last 3xx', async () => {
    const before = main.hits.length;
    const result = ok(await callUpstream(get(`${main.origin}/loop`), { timeoutMs: 2000 }));
    expect(result.status).toBe(302);
    expect(main.hits.length - before).toBe(6);
  });

  it('uses the injected fetch implementation', async () => {
    const calls: string[] = [];
    const fetchImpl: typeof fetch = async (input) => {
      calls.push(String(input));
      return new Response('{"fake":true}', { status: 200, headers: { 'content-type': 'application/json' } });
    };
    expect(json(await callUpstream(get('http://fake.test/x'), { timeoutMs: 100, fetchImpl }))).toEqual({ fake: true });
    expect(calls).toEqual(['http://fake.test/x']);
  });
});
