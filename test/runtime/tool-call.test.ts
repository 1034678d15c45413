/**
 * The tool handler of runtime/server.ts end to end in process: a real v2 MCP client over an
 * in-memory transport, and a real HTTP upstream on 127.0.0.1. Covers what the handler adds around
 * executeTool: rate limit, concurrency cap, retries, progress notifications, the audit log line,
 * and clean error text.
 */
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { readConfig } from '../../runtime/config.js';
import { executeTool, safeErrorMessage } from '../../runtime/execute-tool.js';
import { createServer } from '../../runtime/server.js';
import type { ServerInfo, ToolDefinition } from '../../runtime/types.js';

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

let upstream: Server;
let origin: string;
let handler: Handler;
let inFlight = 0;
let peak = 0;
const received: string[] = [];

beforeAll(async () => {
  upstream = createHttpServer((req, res) => {
    inFlight++;
    peak = Math.max(peak, inFlight);
    res.on('close', () => inFlight--);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push(`${req.method} ${req.url}`);
      handler(req, res, Buffer.concat(chunks).toString('utf8'));
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
});

afterAll(async () => {
  upstream.closeAllConnections();
  await new Promise<void>((resolve) => upstream.close(() => resolve()));
});

let stderr: string[];
beforeEach(() => {
  received.length = 0;
  peak = 0;
  handler = (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"id":"1"}');
  stderr = [];
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stderr.push(String(chunk));
    return true;
  });
});
afterEach(() => {
  vi.restoreAllMocks();
});

function events(name: string): Array<Record<string, unknown>> {
  return stderr
    .flatMap((chunk) => chunk.split('\n'))
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((e) => e.event === name);
}

const INFO: ServerInfo = { name: 'test-api', version: '1.0.0', defaultBaseUrl: 'http://unused.invalid' };

function tool(name: string, method: ToolDefinition['http']['method'], path: string, extra: Partial<ToolDefinition> = {}): ToolDefinition {
  const vars = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
  return {
    name,
    description: name,
    annotations: {},
    inputSchema: {
      type: 'object',
      properties: { ...Object.fromEntries(vars.map((v) => [v, { type: 'string' }])), body: { type: 'object' } },
    },
    http: {
      method,
      path,
      arguments: [
        ...vars.map((v) => ({ arg: v, in: 'path' as const, name: v, style: 'simple' as const, explode: false })),
        ...(method === 'POST' || method === 'PUT' ? [{ arg: 'body', in: 'body' as const }] : []),
      ],
    },
    ...extra,
  };
}

const TOOLS: ToolDefinition[] = [
  tool('getItem', 'GET', '/items/{id}'),
  tool('createItem', 'POST', '/items'),
  // A generator bug: {id} has no binding.
  tool('brokenBinding', 'GET', '/broken/{id}', {
    inputSchema: { type: 'object', properties: {} },
    http: { method: 'GET', path: '/broken/{id}', arguments: [] },
  }),
  // Worse: not even a list of bindings, so the runtime itself throws a TypeError.
  tool('brokenDefinition', 'GET', '/x', {
    http: { method: 'GET', path: '/x', arguments: null as unknown as [] },
  }),
];

async function connect(env: Record<string, string> = {}) {
  const server = createServer(INFO, TOOLS, { API_BASE_URL: origin, ...env });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'test', version: '0' });
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  return {
    client,
    call: (name: string, args: Record<string, unknown> = {}, options: Parameters<Client['callTool']>[1] = {}) =>
      client.callTool({ name, arguments: args }, options) as Promise<{ content: Array<{ type: string; text?: string }>; isError?: boolean }>,
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}

const textOf = (r: { content: Array<{ type: string; text?: string }> }) =>
  r.content.map((c) => c.text ?? '').join('\n');

describe('error text never shows a stack trace or the server file layout', () => {
  it.each(['brokenBinding', 'brokenDefinition'])('%s: a clean isError, details only on stderr', async (name) => {
    const mcp = await connect({ MCP_RATE_LIMIT: '1000' });
    try {
      const result = await mcp.call(name, {});
      expect(result.isError).toBe(true);
      const text = textOf(result);
      expect(text).toMatch(new RegExp(`^(Cannot build the request for|Internal error in the tool) ${name}: `));
      expect(text).toMatch(/problem with the server, not with the arguments/);
      expect(text).not.toMatch(/\n\s*at |\bat .*:\d+:\d+/);
      expect(text).not.toContain(process.cwd());
      expect(text).not.toMatch(/file:|\/runtime\/|\.ts\b|node_modules/);
      expect(received).toEqual([]);
      expect(events('tool_error')).toHaveLength(1);
      expect(events('tool_call')).toEqual([expect.objectContaining({ tool: name, status: 'internal_error', isError: true, attempts: 0 })]);
      // The server keeps serving.
      expect((await mcp.call('getItem', { id: '1' })).isError).toBeFalsy();
    } finally {
      await mcp.close();
    }
  });

  it('safeErrorMessage keeps the first line and removes paths of the server and any file', () => {
    const error = new Error(
      `ENOENT: no such file or directory, open '${process.cwd()}/runtime/secret.json' via file:///srv/app/dist/x.js and /usr/lib/node/y.js\n    at foo (/srv/app/dist/x.js:1:2)`,
    );
    const text = safeErrorMessage(error);
    expect(text).toBe("ENOENT: no such file or directory, open '<path>' via <file> and <path>");
    expect(safeErrorMessage('x'.repeat(1000)).length).toBeLessThan(310);
    expect(safeErrorMessage(undefined)).toBe('unknown error');
    expect(safeErrorMessage(new TypeError("Cannot read properties of null (reading 'filter')"))).toBe(
      "Cannot read properties of null (reading 'filter')",
    );
  });
});

describe('the audit line', () => {
  it('one tool_call line per call with status, attempts and time, and no arguments or bodies', async () => {
    const mcp = await connect({ MCP_RATE_LIMIT: '1001' });
    try {
      await mcp.call('getItem', { id: 'secret-id-value' });
      handler = (_req, res) => res.writeHead(404, { 'content-type': 'text/plain' }).end('no such item');
      await mcp.call('createItem', { body: { password: 'hunter2' } });
      const lines = events('tool_call');
      expect(lines).toEqual([
        { time: expect.any(String), event: 'tool_call', tool: 'getItem', status: 200, isError: false, ms: expect.any(Number), attempts: 1 },
        { time: expect.any(String), event: 'tool_call', tool: 'createItem', status: 404, isError: true, ms: expect.any(Number), attempts: 1 },
      ]);
      expect(stderr.join('')).not.toMatch(/secret-id-value|hunter2|no such item/);
    } finally {
      await mcp.close();
    }
  });

  it('arguments the input schema rejects (the handler never runs) get their line too', async () => {
    const mcp = await connect({ MCP_RATE_LIMIT: '1003' });
    try {
      const result = await mcp.call('getItem', { id: 5 });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/Invalid arguments/);
      expect(received).toEqual([]);
      expect(events('tool_call')).toEqual([
        { time: expect.any(String), event: 'tool_call', tool: 'getItem', status: 'invalid_arguments', isError: true, ms: 0, attempts: 0 },
      ]);
      expect(stderr.join('')).not.toContain('"id":5');
    } finally {
      await mcp.close();
    }
  });

  it('MCP_LOG_BODIES=1 adds truncated request and response bodies', async () => {
    handler = (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id: '1', pad: 'y'.repeat(5000) }));
    const mcp = await connect({ MCP_RATE_LIMIT: '1002', MCP_LOG_BODIES: '1' });
    try {
      await mcp.call('createItem', { body: { name: 'x' } });
      const [line] = events('tool_call');
      expect(line).toMatchObject({ status: 200, requestBody: '{"name":"x"}' });
      expect(String(line!.responseBody)).toMatch(/^\{"id":"1","pad":"y+… \(\d+ more characters\)$/);
      expect(String(line!.responseBody).length).toBeLessThan(2100);
    } finally {
      await mcp.close();
    }
  });
});

describe('rate limit', () => {
  it('over the burst: isError with a retry time, nothing sent upstream, audit status rate_limited', async () => {
    const mcp = await connect({ MCP_RATE_LIMIT: '6', MCP_RATE_BURST: '2' });
    try {
      expect((await mcp.call('getItem', { id: '1' })).isError).toBeFalsy();
      expect((await mcp.call('getItem', { id: '2' })).isError).toBeFalsy();
      const refused = await mcp.call('getItem', { id: '3' });
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toMatch(/Rate limit reached.*6 tool calls per minute.*Retry in (9|10) s\./);
      expect(received).toEqual(['GET /items/1', 'GET /items/2']);
      expect(events('tool_call').at(-1)).toMatchObject({ status: 'rate_limited', isError: true, attempts: 0 });
    } finally {
      await mcp.close();
    }
  });

  it('is shared by every server of the process (the HTTP transport makes one per request)', async () => {
    const env = { MCP_RATE_LIMIT: '60', MCP_RATE_BURST: '1' };
    const a = await connect(env);
    const b = await connect(env);
    try {
      expect((await a.call('getItem', { id: '1' })).isError).toBeFalsy();
      expect(textOf(await b.call('getItem', { id: '2' }))).toMatch(/Rate limit reached/);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('invalid arguments do not use up the budget', async () => {
    const mcp = await connect({ MCP_RATE_LIMIT: '60', MCP_RATE_BURST: '3' });
    try {
      for (let i = 0; i < 5; i++) expect(textOf(await mcp.call('getItem', { id: '..' }))).toMatch(/Invalid arguments/);
      expect(events('tool_call').every((e) => e.status === 'invalid_arguments')).toBe(true);
    } finally {
      await mcp.close();
    }
  });
});

describe('concurrency cap', () => {
  it('at most MCP_MAX_CONCURRENCY requests reach the upstream at once; the rest wait and succeed', async () => {
    handler = (_req, res) => setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end('{"id":"1"}'), 100);
    const mcp = await connect({ MCP_RATE_LIMIT: '0', MCP_MAX_CONCURRENCY: '3' });
    try {
      const results = await Promise.all(Array.from({ length: 10 }, (_, i) => mcp.call('getItem', { id: String(i) })));
      expect(results.every((r) => !r.isError)).toBe(true);
      expect(received).toHaveLength(10);
      expect(peak).toBe(3);
    } finally {
      await mcp.close();
    }
  });

  it('a call still waiting for a slot at its deadline times out without reaching the upstream', async () => {
    handler = (_req, res) => setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end('{"id":"1"}'), 700);
    const mcp = await connect({ MCP_RATE_LIMIT: '0', MCP_MAX_CONCURRENCY: '1', API_TIMEOUT_MS: '400' });
    try {
      const [first, second] = await Promise.all([mcp.call('getItem', { id: 'a' }), mcp.call('getItem', { id: 'b' })]);
      expect(textOf(first)).toMatch(/timed out after 400 ms\./);
      expect(textOf(second)).toMatch(/timed out after 400 ms while waiting for a free upstream slot \(MCP_MAX_CONCURRENCY=1\)/);
      expect(received).toEqual(['GET /items/a']);
    } finally {
      await mcp.close();
    }
  });
});

describe('retries and progress', () => {
  it('a GET answered 503 (Retry-After: 0) then 200 succeeds; the retry is reported as progress and logged', async () => {
    let n = 0;
    handler = (_req, res) =>
      ++n === 1
        ? res.writeHead(503, { 'retry-after': '0' }).end('busy')
        : res.writeHead(200, { 'content-type': 'application/json' }).end('{"id":"1"}');
    const mcp = await connect({ MCP_RATE_LIMIT: '0' });
    try {
      const progress: Array<{ progress: number; message?: string }> = [];
      const result = await mcp.call('getItem', { id: '1' }, { onprogress: (p) => progress.push(p) });
      expect(result.isError).toBeFalsy();
      expect(received).toEqual(['GET /items/1', 'GET /items/1']);
      expect(progress).toEqual([{ progress: 1, message: 'HTTP 503 from the upstream; retrying in 0 ms (attempt 2 of 3)' }]);
      expect(events('upstream_retry')).toEqual([expect.objectContaining({ tool: 'getItem', attempt: 2, reason: 'HTTP 503', delayMs: 0 })]);
      expect(events('tool_call')).toEqual([expect.objectContaining({ status: 200, attempts: 2, isError: false })]);
    } finally {
      await mcp.close();
    }
  });

  it('a POST answered 503 is not retried', async () => {
    handler = (_req, res) => res.writeHead(503, { 'retry-after': '0' }).end('busy');
    const mcp = await connect({ MCP_RATE_LIMIT: '0' });
    try {
      const result = await mcp.call('createItem', { body: {} });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/HTTP 503/);
      expect(textOf(result)).not.toMatch(/tried \d+ times/);
      expect(received).toEqual(['POST /items']);
    } finally {
      await mcp.close();
    }
  });

  it('a GET that stays 503 says how many times it was sent', async () => {
    handler = (_req, res) => res.writeHead(503, { 'retry-after': '0' }).end('busy');
    const mcp = await connect({ MCP_RATE_LIMIT: '0', API_MAX_RETRIES: '3' });
    try {
      const result = await mcp.call('getItem', { id: '1' });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/tried 4 times; retries are exhausted/);
      expect(received).toHaveLength(4);
      expect(events('tool_call')).toEqual([expect.objectContaining({ status: 503, attempts: 4 })]);
    } finally {
      await mcp.close();
    }
  });

  it('a slow upstream sends progress every interval until the result, and none after', async () => {
    handler = (_req, res) => setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end('{"id":"1"}'), 1100);
    const mcp = await connect({ MCP_RATE_LIMIT: '0', MCP_PROGRESS_INTERVAL_MS: '200' });
    try {
      const progress: Array<{ progress: number; message?: string }> = [];
      const result = await mcp.call('getItem', { id: '1' }, { onprogress: (p) => progress.push(p) });
      expect(result.isError).toBeFalsy();
      expect(progress.length).toBeGreaterThanOrEqual(3);
      expect(progress.length).toBeLessThanOrEqual(6);
      progress.forEach((p, i) => expect(p.progress).toBe(i + 1));
      expect(progress.every((p) => /^waiting for upstream \(\d+ s\)$/.test(p.message ?? ''))).toBe(true);
      const count = progress.length;
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(progress).toHaveLength(count);
    } finally {
      await mcp.close();
    }
  });

  it('no progressToken, no progress notifications', async () => {
    handler = (_req, res) => setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end('{"id":"1"}'), 500);
    const mcp = await connect({ MCP_RATE_LIMIT: '0', MCP_PROGRESS_INTERVAL_MS: '100' });
    const seen: unknown[] = [];
    mcp.client.setNotificationHandler('notifications/progress', (n) => void seen.push(n));
    try {
      expect((await mcp.call('getItem', { id: '1' })).isError).toBeFalsy();
      expect(seen).toEqual([]);
    } finally {
      await mcp.close();
    }
  });
});

describe('cancellation', () => {
  it('aborting the client request aborts the upstream request and the wait for a slot', async () => {
    let closed = 0;
    handler = (_req, res) => res.on('close', () => closed++); // never answers
    const mcp = await connect({ MCP_RATE_LIMIT: '0', MCP_MAX_CONCURRENCY: '1' });
    try {
      const controller = new AbortController();
      const first = mcp.call('getItem', { id: 'a' }, { signal: controller.signal });
      const second = mcp.call('getItem', { id: 'b' }, { signal: controller.signal });
      await vi.waitFor(() => expect(received).toEqual(['GET /items/a']));
      controller.abort();
      await expect(first).rejects.toThrow();
      await expect(second).rejects.toThrow();
      await vi.waitFor(() => expect(closed).toBe(1));
      await vi.waitFor(() => expect(events('tool_call')).toHaveLength(2));
      expect(events('tool_call').map((e) => e.status)).toEqual(['cancelled', 'cancelled']);
      // The slot was given back: the next call goes through.
      handler = (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"id":"1"}');
      expect((await mcp.call('getItem', { id: 'c' })).isError).toBeFalsy();
      expect(received).toEqual(['GET /items/a', 'GET /items/c']);
    } finally {
      await mcp.close();
    }
  });
});

describe('executeTool (no SDK)', () => {
  it('returns the result and the audit, and never throws', async () => {
    const config = readConfig({ API_BASE_URL: origin }, INFO);
    const outcome = await executeTool(TOOLS[0]!, { id: '7' }, { config, env: { API_BASE_URL: origin } });
    expect(outcome.audit).toEqual({ status: 200, attempts: 1 });
    expect(outcome.result.isError).toBeFalsy();
    const broken = await executeTool(TOOLS[3]!, {}, { config });
    expect(broken.audit).toEqual({ status: 'internal_error', attempts: 0 });
    expect(broken.result.isError).toBe(true);
  });

  it('reports a connection that was refused as network_error after retrying it', async () => {
    const closed = createHttpServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const config = readConfig({ API_BASE_URL: url }, INFO);
    const progress: string[] = [];
    const outcome = await executeTool(TOOLS[0]!, { id: '7' }, { config, random: () => 0, onProgress: (m) => progress.push(m) });
    expect(outcome.audit).toEqual({ status: 'network_error', attempts: 3 });
    expect(progress).toEqual([
      'the upstream refused the connection; retrying in 250 ms (attempt 2 of 3)',
      'the upstream refused the connection; retrying in 500 ms (attempt 3 of 3)',
    ]);
    expect(outcome.result.content[0]).toEqual({ type: 'text', text: expect.stringMatching(/Could not reach .*ECONNREFUSED \(tried 3 times; retries are exhausted\)$/) });
  });
});
