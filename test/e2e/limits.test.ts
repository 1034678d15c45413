/**
 * Production limits end to end: fixtures/petstore.yaml is generated, installed and built, spawned
 * over stdio by the real v1 and v2 MCP clients, and its API calls land on real sockets on
 * 127.0.0.1 — an HTTP server scripted per test (so it can delay, refuse, stream 50 MB, count
 * requests in flight and see sockets close) and a raw TCP server that answers with garbage.
 *
 * Rate limit, concurrency cap, retries, progress notifications, cancellation, the response size
 * cap, broken connections and the audit log line, each checked where it shows: at the upstream and
 * in what the client receives.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Server as NetServer, type Socket } from 'node:net';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { prepareProject, type PreparedProject } from '../support/generated-project.js';
import { CLIENT_KINDS, connectClient, logEvents, textOf, type ClientKind, type McpTestClient } from '../support/mcp-clients.js';

const FIXTURE = 'fixtures/petstore.yaml';
const INVENTORY = { available: 7, pending: 0, sold: 12 };
const PET = { id: 42, name: 'Douglas' };

// ---------------------------------------------------------------------------------------------
// a scripted upstream

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

const sendJson = (res: ServerResponse, value: unknown, status = 200, headers: Record<string, string> = {}) => {
  const body = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), ...headers }).end(body);
};

/** The documented answers; a test replaces single routes with `upstream.on(...)`. */
function documented(req: IncomingMessage, res: ServerResponse, body: string): void {
  const route = `${req.method} ${req.url?.split('?')[0]}`;
  if (route === 'GET /v1/store/inventory') return sendJson(res, INVENTORY);
  if (/^GET \/v1\/pets\/[^/]+$/.test(route)) return sendJson(res, PET);
  if (route === 'POST /v1/pets') return sendJson(res, { id: 99, ...(JSON.parse(body) as object) }, 201);
  sendJson(res, { error: `no route for ${route}` }, 599);
}

class ScriptedUpstream {
  readonly requests: string[] = [];
  inFlight = 0;
  peakInFlight = 0;
  /** Requests whose connection closed before the answer was complete. */
  readonly abandoned: string[] = [];
  private handlers = new Map<string, Handler>();
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private port = 0;

  async start(): Promise<this> {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const route = `${req.method} ${req.url?.split('?')[0]}`;
        this.requests.push(route);
        this.inFlight++;
        this.peakInFlight = Math.max(this.peakInFlight, this.inFlight);
        res.on('close', () => {
          this.inFlight--;
          if (!res.writableFinished) this.abandoned.push(route);
        });
        res.on('error', () => {}); // a client that goes away mid-body is part of the tests
        (this.handlers.get(route) ?? documented)(req, res, Buffer.concat(chunks).toString('utf8'));
      });
    });
    server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.server = server;
    this.port = (server.address() as AddressInfo).port;
    return this;
  }

  url(base = '/v1'): string {
    return `http://127.0.0.1:${this.port}${base}`;
  }

  /** Answers `METHOD /path` (exact, raw path) with `handler` until reset(). */
  on(route: string, handler: Handler): this {
    this.handlers.set(route, handler);
    return this;
  }

  reset(): void {
    this.handlers.clear();
    this.requests.length = 0;
    this.abandoned.length = 0;
    this.peakInFlight = 0;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/**
 * A TCP server that speaks HTTP only sometimes: `/v1/pets/garbage` gets bytes that are not HTTP,
 * anything else a valid JSON answer, so one server process can show both.
 */
async function startGarbageServer(): Promise<{ url: string; server: NetServer }> {
  const server = createNetServer((socket) => {
    let head = '';
    socket.on('error', () => {});
    socket.on('data', (chunk: Buffer) => {
      head += chunk.toString('latin1');
      if (!head.includes('\r\n\r\n')) return;
      const target = head.split(' ')[1] ?? '';
      head = '';
      if (target.startsWith('/v1/pets/garbage')) {
        socket.end(Buffer.from('\x00\x01\x02 SSH-2.0-definitely-not-http \xff\xfe\r\n\r\n', 'latin1'));
        return;
      }
      const body = JSON.stringify(INVENTORY);
      socket.write(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, server };
}

// ---------------------------------------------------------------------------------------------

let project: PreparedProject;
let upstream: ScriptedUpstream;
let garbage: { url: string; server: NetServer };

beforeAll(async () => {
  upstream = await new ScriptedUpstream().start();
  garbage = await startGarbageServer();
  project = await prepareProject(FIXTURE);
});

afterAll(async () => {
  await upstream?.stop();
  await new Promise<void>((resolve) => (garbage ? garbage.server.close(() => resolve()) : resolve()));
  await project?.dispose();
});

beforeEach(() => {
  upstream.reset();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitUntil(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await sleep(20);
  }
}

/** Peak resident set size of a process, in bytes (Linux). */
function peakRss(pid: number): number {
  const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!match) throw new Error(`no VmHWM for ${pid}`);
  return Number(match[1]) * 1024;
}

function toolCalls(client: McpTestClient): Array<Record<string, unknown>> {
  return logEvents(client.stderr()).filter((e) => e.event === 'tool_call');
}

describe.each(CLIENT_KINDS)('limits through the %s client', (kind: ClientKind) => {
  /** A server with every limit at its default. */
  let client: McpTestClient;
  const extra: McpTestClient[] = [];

  async function connect(env: Record<string, string>): Promise<McpTestClient> {
    const c = await connectClient(kind, { entry: project.entry, env });
    extra.push(c);
    return c;
  }

  beforeAll(async () => {
    client = await connectClient(kind, { entry: project.entry, env: { API_BASE_URL: upstream.url() } });
  });

  afterAll(async () => {
    await client?.close();
    await Promise.all(extra.map((c) => c.close()));
  });

  async function expectStillServing(c: McpTestClient = client): Promise<void> {
    const result = await c.callTool('getInventory');
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(result.structuredContent).toEqual(INVENTORY);
  }

  it('rate limit: calls over the burst get isError with a retry time, and nothing reaches the upstream', async () => {
    const limited = await connect({ API_BASE_URL: upstream.url(), MCP_RATE_LIMIT: '3' });
    const results = [];
    for (let i = 0; i < 5; i++) results.push(await limited.callTool('getInventory'));
    expect(results.slice(0, 3).map((r) => r.isError ?? false)).toEqual([false, false, false]);
    for (const refused of results.slice(3)) {
      expect(refused.isError).toBe(true);
      // 3 a minute: the next token is about 20 s away.
      expect(textOf(refused)).toMatch(/Rate limit reached: this server allows 3 tool calls per minute \(MCP_RATE_LIMIT\)\. Nothing was sent to the API\. Retry in (19|20) s\./);
    }
    expect(upstream.requests).toEqual(Array(3).fill('GET /v1/store/inventory'));
    await limited.waitForStderr(/"status":"rate_limited"[^\n]*\n[^\n]*"status":"rate_limited"/);
    expect(toolCalls(limited).map((e) => e.status)).toEqual([200, 200, 200, 'rate_limited', 'rate_limited']);
  });

  it('concurrency cap: the upstream never sees more than MCP_MAX_CONCURRENCY requests at once; none fails', async () => {
    const capped = await connect({ API_BASE_URL: upstream.url(), MCP_MAX_CONCURRENCY: '2' });
    upstream.on('GET /v1/store/inventory', (_req, res) => setTimeout(() => sendJson(res, INVENTORY), 250));
    const results = await Promise.all(Array.from({ length: 8 }, () => capped.callTool('getInventory')));
    expect(results.filter((r) => r.isError)).toEqual([]);
    expect(upstream.requests).toHaveLength(8);
    expect(upstream.peakInFlight).toBe(2);
  });

  it('the default cap (8) holds too', async () => {
    upstream.on('GET /v1/store/inventory', (_req, res) => setTimeout(() => sendJson(res, INVENTORY), 250));
    const results = await Promise.all(Array.from({ length: 12 }, () => client.callTool('getInventory')));
    expect(results.filter((r) => r.isError)).toEqual([]);
    expect(upstream.peakInFlight).toBe(8);
  });

  it('retries: a GET answered 503 is retried (Retry-After honoured) and succeeds', async () => {
    let calls = 0;
    upstream.on('GET /v1/pets/42', (_req, res) =>
      ++calls === 1 ? sendJson(res, { message: 'busy' }, 503, { 'retry-after': '1' }) : sendJson(res, PET),
    );
    const started = Date.now();
    const result = await client.callTool('showPetById', { petId: '42' });
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(result.structuredContent).toEqual(PET);
    expect(upstream.requests).toEqual(['GET /v1/pets/42', 'GET /v1/pets/42']);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    await client.waitForStderr(/"event":"tool_call","tool":"showPetById","status":200,"isError":false,"ms":\d+,"attempts":2/);
  });

  it('retries: a POST answered 503 is not retried', async () => {
    upstream.on('POST /v1/pets', (_req, res) => sendJson(res, { message: 'busy' }, 503, { 'retry-after': '0' }));
    const result = await client.callTool('createPet', { body: { name: 'Fido' } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('HTTP 503');
    expect(textOf(result)).toContain('Retry-After: 0');
    expect(upstream.requests).toEqual(['POST /v1/pets']);
  });

  it('retries: a GET that stays 503 is sent 1 + API_MAX_RETRIES (2) times, then the 503 is the result', async () => {
    upstream.on('GET /v1/pets/7', (_req, res) => sendJson(res, { message: 'down' }, 503, { 'retry-after': '0' }));
    const result = await client.callTool('showPetById', { petId: '7' });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('HTTP 503');
    expect(textOf(result)).toMatch(/tried 3 times; retries are exhausted/);
    expect(upstream.requests).toHaveLength(3);
  });

  it('progress: a slow upstream sends notifications/progress about every second until the result', async () => {
    let calls = 0;
    upstream.on('GET /v1/pets/42', (_req, res) =>
      ++calls === 1 ? sendJson(res, { message: 'busy' }, 503, { 'retry-after': '0' }) : setTimeout(() => sendJson(res, PET), 2_600),
    );
    const progress: Array<{ progress: number; message?: string }> = [];
    const result = await client.callTool('showPetById', { petId: '42' }, { onprogress: (p) => progress.push(p) });
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(result.structuredContent).toEqual(PET);
    const messages = progress.map((p) => p.message);
    expect(messages[0]).toBe('HTTP 503 from the upstream; retrying in 0 ms (attempt 2 of 3)');
    const ticks = messages.slice(1);
    expect(ticks.length).toBeGreaterThanOrEqual(2);
    expect(ticks.length).toBeLessThanOrEqual(3);
    ticks.forEach((m, i) => expect(m).toBe(`waiting for upstream (${i + 1} s)`));
    progress.forEach((p, i) => expect(p.progress).toBe(i + 1));
    const count = progress.length;
    await sleep(1_200);
    expect(progress).toHaveLength(count); // nothing after the result
  });

  it('cancellation: the client aborting the call aborts the upstream request; the server keeps serving', async () => {
    upstream.on('GET /v1/pets/13', () => {}); // never answers
    const controller = new AbortController();
    const pending = client.callTool('showPetById', { petId: '13' }, { signal: controller.signal });
    await waitUntil(() => upstream.requests.includes('GET /v1/pets/13'), 5_000, 'the upstream has the request');
    controller.abort();
    await expect(pending).rejects.toThrow();
    // The upstream sees its connection close: the request was aborted, not left to time out (30 s).
    await waitUntil(() => upstream.abandoned.includes('GET /v1/pets/13'), 3_000, 'the upstream request is aborted');
    await client.waitForStderr(/"tool":"showPetById","status":"cancelled"/);
    await expectStillServing();
  });

  it('a 50 MB response is cut at MCP_MAX_RESPONSE_BYTES with a note; memory stays bounded and the server keeps serving', async () => {
    const cap = 1024 * 1024;
    const big = await connect({ API_BASE_URL: upstream.url(), MCP_MAX_RESPONSE_BYTES: String(cap) });
    const chunk = Buffer.alloc(1024 * 1024, 'a');
    let sentMb = 0;
    upstream.on('GET /v1/pets/42/photo', (_req, res) => {
      // 50 MB streamed (chunked, with backpressure), the way a large export or download arrives.
      res.writeHead(200, { 'content-type': 'text/plain' });
      const pump = () => {
        while (!res.destroyed && sentMb < 50) {
          sentMb++;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        if (!res.destroyed) res.end();
      };
      pump();
    });
    await expectStillServing(big); // warmed up: the baseline includes a first call
    const before = peakRss(big.pid!);
    const result = await big.callTool('get_pets_petId_photo', { petId: '42' });
    expect(result.isError, textOf(result).slice(0, 200)).toBeFalsy();
    const text = textOf(result);
    expect(text).toMatch(new RegExp(`\\(response truncated at ${cap} bytes\\)$`));
    expect(text.length).toBeLessThan(cap + 100);
    // The server stopped reading at the cap and closed the connection: the upstream could not
    // send it everything.
    await waitUntil(() => upstream.abandoned.includes('GET /v1/pets/42/photo'), 3_000, 'the upstream sees the connection close');
    expect(sentMb).toBeLessThan(50);
    const growth = peakRss(big.pid!) - before;
    // Buffering 50 MB would add at least 50 MB (more once decoded); the capped read adds a few.
    expect(growth, `peak RSS grew by ${Math.round(growth / 1024 / 1024)} MB`).toBeLessThan(40 * 1024 * 1024);
    await expectStillServing(big);
  });

  it('a connection reset before the answer: isError, and the server keeps serving', async () => {
    upstream.on('GET /v1/pets/5', (req) => req.socket.destroy());
    const result = await client.callTool('showPetById', { petId: '5' });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/Connection to http:\/\/127\.0\.0\.1:\d+ was lost/);
    expect(textOf(result)).not.toMatch(/\n\s+at |node_modules|\.js:\d+/);
    expect(upstream.requests).toEqual(['GET /v1/pets/5']); // a reset request may have been processed: not retried
    await client.waitForStderr(/"tool":"showPetById","status":"network_error"/);
    await expectStillServing();
  });

  it('garbage bytes instead of HTTP: isError, and the server keeps serving', async () => {
    const confused = await connect({ API_BASE_URL: garbage.url });
    const result = await confused.callTool('showPetById', { petId: 'garbage' });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/answered with something that is not valid HTTP/);
    expect(textOf(result)).not.toMatch(/\n\s+at |node_modules|\.js:\d+|SSH/);
    await expectStillServing(confused);
  });

  it('the audit line: one per call, with status and attempts, never arguments or bodies', async () => {
    const secret = 'tag-3c1f0b9e';
    upstream.on('POST /v1/pets', (_req, res) => sendJson(res, { message: `rejected ${secret}-reply` }, 422));
    await client.callTool('createPet', { body: { name: 'Fido', tag: secret } });
    await client.waitForStderr(/"tool":"createPet","status":422/);
    const line = toolCalls(client).at(-1)!;
    expect(Object.keys(line).sort()).toEqual(['attempts', 'event', 'isError', 'ms', 'status', 'time', 'tool']);
    expect(line).toMatchObject({ tool: 'createPet', status: 422, isError: true, attempts: 1 });
    expect(client.stderr()).not.toContain(secret);

    // Arguments the input schema rejects never reach the tool handler, and are logged all the same.
    const invalid = await client.callTool('listPets', { limit: 'many' });
    expect(invalid.isError).toBe(true);
    await client.waitForStderr(/"tool":"listPets","status":"invalid_arguments","isError":true,"ms":0,"attempts":0/);
    expect(client.stderr()).not.toContain('many');
  });
});
