/**
 * The Streamable HTTP transport end to end: the petstore fixture is generated, installed and built,
 * started as `node dist/index.js --transport http` (separate processes, real sockets on 127.0.0.1),
 * and driven by the real v1 and v2 MCP clients and by raw HTTP requests, with its API calls landing
 * on a recording upstream.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ToolDefinition } from '../../runtime/types.js';
import { prepareProject, type PreparedProject } from '../support/generated-project.js';
import {
  initializeMessage,
  jsonRpcMessages,
  jsonRpcPost,
  rawRequest,
  RoundRobinProxy,
  runToExit,
  startHttpServer,
  stopAllHttpServers,
  type HttpServerProcess,
} from '../support/http-server.js';
import { textOf } from '../support/mcp-clients.js';
import { connectHttpClient, HTTP_CLIENT_KINDS, type HttpClientKind } from '../support/mcp-http-clients.js';
import { json, startRecordingUpstream, type RecordedRequest, type RecordingUpstream, type Route } from '../support/recording-upstream.js';

const FIXTURE = 'fixtures/petstore.yaml';

const PETS = [
  { id: 1, name: 'Rex', tag: 'dog' },
  { id: 2, name: 'Tom', tag: null },
];
const INVENTORY = { available: 7, pending: 0, sold: 12 };

function routes(): Route[] {
  return [
    { method: 'GET', path: '/v1/pets', reply: json(PETS) },
    { method: 'POST', path: '/v1/pets', reply: (req) => json({ id: 99, ...(JSON.parse(req.body) as object) }, 201) },
    { method: 'GET', path: '/v1/store/inventory', reply: json(INVENTORY) },
  ];
}

/** The token an MCP client presents to the server; it must never reach the API. */
const CLIENT_TOKEN = 'mcp-client-token-3f9a1c7e';

let project: PreparedProject;
let upstream: RecordingUpstream;
let planned: ToolDefinition[];
/** The default server: no MCP_AUTH_TOKEN, default host. */
let server: HttpServerProcess;

beforeAll(async () => {
  upstream = await startRecordingUpstream(routes());
  project = await prepareProject(FIXTURE);
  planned = project.generated.tools;
  server = await startHttpServer(project.entry, { env: { API_BASE_URL: upstream.url('/v1') } });
});

afterAll(async () => {
  await stopAllHttpServers();
  await upstream?.stop();
  await project?.dispose();
});

beforeEach(() => {
  upstream.setRoutes(routes());
  upstream.clearRequests();
});

/** Every header value, path, query and body the upstream saw, as one string to search. */
function everythingUpstreamSaw(requests: RecordedRequest[]): string {
  return JSON.stringify(requests.map((r) => ({ path: r.path, query: r.rawQuery, headers: r.headers, body: r.body })));
}

const EXPECTED_VERSION: Record<HttpClientKind, string> = {
  v1: '2025-11-25',
  'v2-legacy': '2025-11-25',
  'v2-modern': '2026-07-28',
};

describe.each(HTTP_CLIENT_KINDS)('over HTTP with the %s client', (kind) => {
  it(`connects on ${EXPECTED_VERSION[kind]}, lists the planned tools and calls them`, async () => {
    // The client's own Authorization header (and another custom header) must stay with the MCP server.
    const client = await connectHttpClient(kind, server.url, {
      headers: { Authorization: `Bearer ${CLIENT_TOKEN}`, 'X-Client-Secret': CLIENT_TOKEN },
    });
    try {
      expect(client.protocolVersion()).toBe(EXPECTED_VERSION[kind]);
      expect(client.serverInfo()).toMatchObject({ name: 'swagger-petstore-mcp', version: '1.0.0' });

      const listed = await client.listTools();
      expect(listed.map((t) => t.name).sort()).toEqual(planned.map((t) => t.name).sort());
      for (const tool of planned) expect(listed.find((t) => t.name === tool.name)?.inputSchema).toEqual(tool.inputSchema);

      const pets = await client.callTool('listPets', { limit: 2, status: 'sold' });
      expect(pets.isError, textOf(pets)).toBeFalsy();
      expect(pets.structuredContent).toEqual({ result: PETS });

      const created = await client.callTool('createPet', { body: { name: 'Fido', tag: 'dog' } });
      expect(created.isError, textOf(created)).toBeFalsy();
      expect(created.structuredContent).toEqual({ id: 99, name: 'Fido', tag: 'dog' });

      expect(upstream.requests.map((r) => `${r.method} ${r.path}?${r.rawQuery}`)).toEqual([
        'GET /v1/pets?limit=2&status=sold',
        'POST /v1/pets?',
      ]);
      expect(JSON.parse(upstream.requests[1]!.body)).toEqual({ name: 'Fido', tag: 'dog' });
    } finally {
      await client.close();
    }
  });

  it("never forwards the client's Authorization (or any other) header upstream", async () => {
    const client = await connectHttpClient(kind, server.url, {
      headers: { Authorization: `Bearer ${CLIENT_TOKEN}`, 'X-Client-Secret': CLIENT_TOKEN, Cookie: `session=${CLIENT_TOKEN}` },
    });
    try {
      const result = await client.callTool('getInventory');
      expect(result.isError, textOf(result)).toBeFalsy();
      expect(result.structuredContent).toEqual(INVENTORY);
    } finally {
      await client.close();
    }
    expect(upstream.requests).toHaveLength(1);
    const [req] = upstream.requests;
    expect(req!.headers).not.toHaveProperty('authorization');
    expect(req!.headers).not.toHaveProperty('cookie');
    expect(req!.headers).not.toHaveProperty('x-client-secret');
    expect(req!.headers).not.toHaveProperty('mcp-protocol-version');
    expect(everythingUpstreamSaw(upstream.requests)).not.toContain(CLIENT_TOKEN);
  });
});

describe('listening', () => {
  it('binds 127.0.0.1 by default and logs one server_started line with host and port', async () => {
    const started = server.events().filter((e) => e.event === 'server_started');
    expect(started).toHaveLength(1);
    expect(started[0]).toMatchObject({ transport: 'http', host: '127.0.0.1', port: server.port, path: '/mcp', auth: 'none' });
    // Loopback without a token is the safe default: nothing to warn about.
    expect(server.events().filter((e) => e.event === 'config_warning')).toEqual([]);
    expect((await rawRequest(`http://127.0.0.1:${server.port}/healthz`)).status).toBe(200);
    // Another loopback address of this machine: nothing listens there for a 127.0.0.1 bind.
    await expect(rawRequest(`http://127.0.0.2:${server.port}/healthz`)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });

  it('--host 0.0.0.0 listens on every address, warns, and still checks Host until MCP_ALLOWED_HOSTS says otherwise', async () => {
    const open = await startHttpServer(project.entry, {
      args: ['--host', '0.0.0.0'],
      env: { API_BASE_URL: upstream.url('/v1') },
    });
    try {
      expect(open.events().find((e) => e.event === 'server_started')).toMatchObject({ host: '0.0.0.0' });
      expect(open.events().some((e) => e.event === 'config_warning' && /MCP_ALLOWED_HOSTS/.test(String(e.problem)))).toBe(true);
      expect((await rawRequest(`http://127.0.0.2:${open.port}/healthz`)).status).toBe(200);
      // Reachable on 127.0.0.2, but that name is not an allowed Host.
      expect((await rawRequest(`http://127.0.0.2:${open.port}/mcp`, jsonRpcPost())).status).toBe(403);
      expect((await rawRequest(`http://127.0.0.1:${open.port}/mcp`, jsonRpcPost())).status).toBe(200);
    } finally {
      await open.stop();
    }
    const listed = await startHttpServer(project.entry, {
      args: ['--host', '0.0.0.0'],
      env: { API_BASE_URL: upstream.url('/v1'), MCP_ALLOWED_HOSTS: '127.0.0.2, mcp.example.com:443' },
    });
    try {
      const warnings = listed.events().filter((e) => e.event === 'config_warning').map((e) => String(e.problem));
      expect(warnings.some((w) => w.includes('MCP_ALLOWED_HOSTS'))).toBe(false);
      // Still no token: anyone who reaches the port may call the API, and the log says so.
      expect(warnings.some((w) => w.includes('without MCP_AUTH_TOKEN'))).toBe(true);
      expect((await rawRequest(`http://127.0.0.2:${listed.port}/mcp`, jsonRpcPost())).status).toBe(200);
      const named = jsonRpcPost(initializeMessage(), { host: 'MCP.example.com' });
      expect((await rawRequest(listed.url, named)).status).toBe(200);
    } finally {
      await listed.stop();
    }
  });

  it('answers an initialize POST as a 2025-11-25 server with tools and no session id (stateless)', async () => {
    const res = await rawRequest(server.url, jsonRpcPost());
    expect(res.status).toBe(200);
    expect(res.headers).not.toHaveProperty('mcp-session-id');
    const [message] = jsonRpcMessages(res);
    expect(message).toMatchObject({
      id: 1,
      result: { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'swagger-petstore-mcp' } },
    });
  });

  it('stops gracefully on SIGTERM', async () => {
    const stopping = await startHttpServer(project.entry, { env: { API_BASE_URL: upstream.url('/v1') } });
    expect(await stopping.stop('SIGTERM')).toBe(0);
    expect(stopping.events().map((e) => e.event)).toEqual(expect.arrayContaining(['server_stopping', 'server_stopped']));
  });

  it.each([
    [['--transport', 'http', '--port', 'eighty'], /--port must be a port number/],
    [['--transport', 'http', '--port', '70000'], /--port must be a port number/],
    [['--transport', 'carrier-pigeon'], /use stdio or http/],
  ])('refuses %j with exit code 2', async (args, message) => {
    const { code, stderr } = await runToExit(project.entry, args);
    expect(code).toBe(2);
    expect(stderr).toMatch(message);
  });

  it('exits 1 with a listen_error when the port is taken', async () => {
    const { code, stderr } = await runToExit(project.entry, ['--transport', 'http', '--port', String(server.port)]);
    expect(code).toBe(1);
    expect(stderr).toMatch(/"event":"listen_error".*EADDRINUSE/);
  });
});

describe('health endpoint', () => {
  it('GET /healthz is 200 {"status":"ok"} with nothing else in it', async () => {
    const res = await rawRequest(`${server.origin}/healthz`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    expect(JSON.parse(res.body)).toStrictEqual({ status: 'ok' });
  });

  it('needs no token, and answers whatever the Host (load balancer probes use IP addresses)', async () => {
    const guarded = await startHttpServer(project.entry, { env: { API_BASE_URL: upstream.url('/v1'), MCP_AUTH_TOKEN: CLIENT_TOKEN } });
    try {
      const res = await rawRequest(`${guarded.origin}/healthz`, { headers: { host: '10.1.2.3:8080' } });
      expect(res.status).toBe(200);
      expect(res.body).not.toContain(CLIENT_TOKEN);
    } finally {
      await guarded.stop();
    }
  });

  it('only GET and HEAD; other paths are 404', async () => {
    expect((await rawRequest(`${server.origin}/healthz`, { method: 'POST' })).status).toBe(405);
    expect((await rawRequest(`${server.origin}/healthz`, { method: 'HEAD' })).status).toBe(200);
    expect((await rawRequest(`${server.origin}/`)).status).toBe(404);
    expect((await rawRequest(`${server.origin}/mcp/extra`, jsonRpcPost())).status).toBe(404);
  });
});

describe('DNS rebinding protection', () => {
  const callInventory = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'getInventory', arguments: {} } };
  const v2025 = { 'mcp-protocol-version': '2025-11-25' };

  it.each(['http://evil.example', 'https://attacker.test:8443', 'null', 'http://localhost.evil.example'])(
    'Origin %s → 403, and nothing reaches the upstream',
    async (origin) => {
      const res = await rawRequest(server.url, jsonRpcPost(callInventory, { ...v2025, origin }));
      expect(res.status).toBe(403);
      expect(res.headers).not.toHaveProperty('access-control-allow-origin');
      expect(upstream.requests).toEqual([]);
    },
  );

  it('a localhost Origin (any port) passes and gets CORS headers', async () => {
    const res = await rawRequest(server.url, jsonRpcPost(callInventory, { ...v2025, origin: 'http://localhost:6274' }));
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe('http://localhost:6274');
    expect(jsonRpcMessages(res)[0]).toMatchObject({ id: 7, result: { structuredContent: INVENTORY } });
    expect(upstream.requests).toHaveLength(1);
  });

  it.each(['evil.example', 'evil.example:80', 'localhost.evil.example', '[::2]'])(
    'Host %s → 403, and nothing reaches the upstream',
    async (host) => {
      const res = await rawRequest(server.url, jsonRpcPost(callInventory, { ...v2025, host }));
      expect(res.status).toBe(403);
      expect(JSON.parse(res.body)).toMatchObject({ error: { message: expect.stringMatching(/Invalid Host/) } });
      expect(upstream.requests).toEqual([]);
    },
  );

  it('localhost, 127.0.0.1 and [::1] are allowed Host names, with any port', async () => {
    for (const host of [`localhost:${server.port}`, `127.0.0.1:${server.port}`, '[::1]:1234', 'LOCALHOST'])
      expect((await rawRequest(server.url, jsonRpcPost(initializeMessage(), { host }))).status, host).toBe(200);
  });

  it('MCP_ALLOWED_ORIGINS adds origins (by host name, as full origins or bare names); others stay refused', async () => {
    const web = await startHttpServer(project.entry, {
      env: { API_BASE_URL: upstream.url('/v1'), MCP_ALLOWED_ORIGINS: 'https://app.example.com, tools.example.org' },
    });
    try {
      for (const origin of ['https://app.example.com', 'https://tools.example.org', 'http://localhost:3000']) {
        const res = await rawRequest(web.url, jsonRpcPost(initializeMessage(), { origin }));
        expect(res.status, origin).toBe(200);
        expect(res.headers['access-control-allow-origin']).toBe(origin);
      }
      expect((await rawRequest(web.url, jsonRpcPost(initializeMessage(), { origin: 'https://example.com' }))).status).toBe(403);

      const preflight = await rawRequest(web.url, {
        method: 'OPTIONS',
        headers: {
          origin: 'https://app.example.com',
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization, content-type, mcp-protocol-version',
        },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers).toMatchObject({
        'access-control-allow-origin': 'https://app.example.com',
        'access-control-allow-headers': 'authorization, content-type, mcp-protocol-version',
      });
      expect(preflight.headers['access-control-allow-methods']).toContain('POST');
    } finally {
      await web.stop();
    }
  });
});

describe('bearer token (MCP_AUTH_TOKEN)', () => {
  const TOKEN = 's3cr3t-mcp-token-for-e2e';
  let guarded: HttpServerProcess;
  const callInventory = jsonRpcPost(
    { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'getInventory', arguments: {} } },
    { 'mcp-protocol-version': '2025-11-25' },
  );

  beforeAll(async () => {
    guarded = await startHttpServer(project.entry, { env: { API_BASE_URL: upstream.url('/v1'), MCP_AUTH_TOKEN: TOKEN } });
  });

  afterAll(async () => {
    await guarded?.stop();
  });

  it.each([
    ['no Authorization header', undefined],
    ['a wrong token', 'Bearer not-the-token'],
    ['the token with one character more', `Bearer ${TOKEN}x`],
    ['the token with a different scheme', `Basic ${TOKEN}`],
    ['the bare token', TOKEN],
  ])('%s → 401 with a Bearer challenge, and nothing reaches the upstream', async (_, authorization) => {
    const request = { ...callInventory, headers: { ...callInventory.headers, ...(authorization ? { authorization } : {}) } };
    const res = await rawRequest(guarded.url, request);
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toMatch(/^Bearer error="invalid_token"/);
    expect(JSON.parse(res.body)).toMatchObject({ error: 'invalid_token' });
    expect(upstream.requests).toEqual([]);
  });

  it('the right token works, and is not forwarded upstream', async () => {
    const res = await rawRequest(guarded.url, { ...callInventory, headers: { ...callInventory.headers, authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(200);
    expect(jsonRpcMessages(res)[0]).toMatchObject({ id: 3, result: { structuredContent: INVENTORY } });
    expect(upstream.requests).toHaveLength(1);
    expect(upstream.requests[0]!.headers).not.toHaveProperty('authorization');
    expect(everythingUpstreamSaw(upstream.requests)).not.toContain(TOKEN);
  });

  it('Host and Origin are checked before the token (403 even with the right token)', async () => {
    const auth = { authorization: `Bearer ${TOKEN}` };
    expect((await rawRequest(guarded.url, jsonRpcPost(initializeMessage(), { ...auth, origin: 'http://evil.example' }))).status).toBe(403);
    expect((await rawRequest(guarded.url, jsonRpcPost(initializeMessage(), { ...auth, host: 'evil.example' }))).status).toBe(403);
  });

  it.each(HTTP_CLIENT_KINDS)('the %s client connects with the token and is refused without it', async (kind) => {
    const client = await connectHttpClient(kind, guarded.url, { headers: { Authorization: `Bearer ${TOKEN}` } });
    try {
      expect((await client.listTools()).length).toBe(planned.length);
      const result = await client.callTool('getInventory');
      expect(result.structuredContent).toEqual(INVENTORY);
    } finally {
      await client.close();
    }
    await expect(connectHttpClient(kind, guarded.url)).rejects.toThrow(/401|Unauthorized|invalid_token/i);
    await expect(connectHttpClient(kind, guarded.url, { headers: { Authorization: 'Bearer wrong' } })).rejects.toThrow(
      /401|Unauthorized|invalid_token/i,
    );
  });

  it('logs say auth is on and never contain the token', () => {
    expect(guarded.events().find((e) => e.event === 'server_started')).toMatchObject({ auth: 'bearer' });
    expect(guarded.events().some((e) => e.event === 'http_rejected' && e.reason === 'unauthorized')).toBe(true);
    expect(guarded.stderr()).not.toContain(TOKEN);
  });
});

describe('stateless: two server processes behind a round-robin proxy with no affinity', () => {
  let second: HttpServerProcess;
  let proxy: RoundRobinProxy;

  beforeAll(async () => {
    second = await startHttpServer(project.entry, { env: { API_BASE_URL: upstream.url('/v1') } });
    proxy = await new RoundRobinProxy([server, second]).start();
  });

  afterAll(async () => {
    await proxy?.stop();
    await second?.stop();
  });

  it.each(HTTP_CLIENT_KINDS)('the %s client works while its requests alternate between the processes', async (kind) => {
    proxy.requests.length = 0;
    const client = await connectHttpClient(kind, proxy.url);
    try {
      const listed = await client.listTools();
      expect(listed).toHaveLength(planned.length);
      for (let i = 0; i < 4; i++) {
        const result = await client.callTool('getInventory');
        expect(result.isError, textOf(result)).toBeFalsy();
        expect(result.structuredContent).toEqual(INVENTORY);
      }
    } finally {
      await client.close();
    }
    const seen = proxy.requests.filter((r) => r.rpcMethod !== undefined);
    // Strict alternation, and each process answered tool calls.
    proxy.requests.slice(1).forEach((r, i) => expect(r.backend).not.toBe(proxy.requests[i]!.backend));
    const callsOn = (backend: number) => seen.filter((r) => r.rpcMethod === 'tools/call' && r.backend === backend).length;
    expect(callsOn(0)).toBeGreaterThanOrEqual(1);
    expect(callsOn(1)).toBeGreaterThanOrEqual(1);
    // Every JSON-RPC POST succeeded wherever it landed (a 2025 client's optional GET stream is 405).
    expect(seen.every((r) => r.status === 200 || r.status === 202), JSON.stringify(proxy.requests)).toBe(true);
    expect(upstream.requests).toHaveLength(4);
  });

  it('both processes logged tool calls', () => {
    for (const backend of [server, second])
      expect(backend.events().some((e) => e.event === 'tool_call' && e.tool === 'getInventory')).toBe(true);
  });
});
