/**
 * End to end, through real parts only: fixtures/openapi-3.0/petstore.yaml is generated with the
 * in-process pipeline, installed and built with npm, spawned over stdio by the real v1 and v2 MCP
 * clients, and its HTTP calls land on a real HTTP server on 127.0.0.1 that records them.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ToolDefinition } from '../../runtime/types.js';
import { prepareProject, type PreparedProject } from '../support/generated-project.js';
import {
  CLIENT_KINDS,
  connectClient,
  errorCode,
  logEvents,
  textOf,
  type ListedTool,
  type McpTestClient,
  type ToolCallResult,
} from '../support/mcp-clients.js';
import {
  closedPort,
  delayed,
  destroySocket,
  empty,
  json,
  malformedJson,
  startRecordingUpstream,
  text,
  type RecordingUpstream,
  type Route,
} from '../support/recording-upstream.js';
import { spawnServer, within } from '../support/server-process.js';

const FIXTURE = 'fixtures/openapi-3.0/petstore.yaml';

const PETS = [
  { id: 1, name: 'Rex', tag: 'dog' },
  { id: 2, name: 'Tom', tag: null, category: { id: 5, name: 'cats', parent: { id: 1, name: 'animals' } } },
];
const PET_42 = { id: 42, name: 'Douglas', tag: 'towel', weight: 3.5 };
const INVENTORY = { available: 7, pending: 0, sold: 12 };
const COUNTS = [3, 1, 4, 1, 5];

/** The upstream as documented by the fixture; individual tests override single routes. */
function documentedRoutes(): Route[] {
  return [
    { method: 'GET', path: '/v1/pets', reply: json(PETS) },
    { method: 'POST', path: '/v1/pets', reply: (req) => json({ id: 99, ...(JSON.parse(req.body) as object) }, 201) },
    { method: 'GET', path: '/v1/pets/:petId/photo', reply: text('A photo of pet 42, sitting on a towel.') },
    { method: 'GET', path: '/v1/pets/:petId', reply: json(PET_42) },
    { method: 'PUT', path: '/v1/pets/:petId', reply: (req) => json(JSON.parse(req.body)) },
    { method: 'DELETE', path: '/v1/pets/:petId', reply: empty(204) },
    { method: 'GET', path: '/v1/store/inventory', reply: json(INVENTORY) },
    { method: 'GET', path: '/v1/store/counts', reply: json(COUNTS) },
  ];
}

let project: PreparedProject;
let upstream: RecordingUpstream;
let planned: ToolDefinition[];

beforeAll(async () => {
  upstream = await startRecordingUpstream();
  project = await prepareProject(FIXTURE);
  planned = project.generated.tools;
});

afterAll(async () => {
  await upstream?.stop();
  await project?.dispose();
});

beforeEach(() => {
  upstream.setRoutes(documentedRoutes());
  upstream.clearRequests();
});

function plannedTool(name: string): ToolDefinition {
  const tool = planned.find((t) => t.name === name);
  if (!tool) throw new Error(`generate() planned no tool named ${name}; planned: ${planned.map((t) => t.name).join(', ')}`);
  return tool;
}

function onlyRequest() {
  expect(upstream.requests).toHaveLength(1);
  return upstream.requests[0]!;
}

describe.each(CLIENT_KINDS)('petstore (OpenAPI 3.0) through the %s client', (kind) => {
  let client: McpTestClient;
  let listed: ListedTool[];

  beforeAll(async () => {
    client = await connectClient(kind, { entry: project.entry, env: { API_BASE_URL: upstream.url('/v1') } });
    // Listing first also makes the clients cache the output schemas they validate results against.
    listed = await client.listTools();
  });

  afterAll(async () => {
    await client?.close();
  });

  function listedTool(name: string): ListedTool {
    const tool = listed.find((t) => t.name === name);
    if (!tool) throw new Error(`tools/list has no tool named ${name}; listed: ${listed.map((t) => t.name).join(', ')}`);
    return tool;
  }

  /** A call that must succeed, proving the server is still serving after a failure. */
  async function expectStillServing(): Promise<void> {
    upstream.clearRequests();
    const result = await client.callTool('getInventory');
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(result.structuredContent).toEqual(INVENTORY);
    expect(upstream.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /v1/store/inventory']);
  }

  describe('tools/list', () => {
    it('lists exactly the tools generate() planned, once each', () => {
      const names = listed.map((t) => t.name);
      expect(new Set(names).size).toBe(names.length);
      expect([...names].sort()).toEqual(planned.map((t) => t.name).sort());
      // A few names the fixture pins down: operationIds, and a derived name for the operation without one.
      expect(names).toEqual(expect.arrayContaining(['listPets', 'showPetById', 'createPet', 'deletePet', 'get_pets_petId_photo']));
    });

    it('passes the planned input and output schemas through unchanged, all of type object', () => {
      for (const tool of planned) {
        const seen = listedTool(tool.name);
        expect(seen.inputSchema.type, tool.name).toBe('object');
        expect(seen.inputSchema, tool.name).toEqual(tool.inputSchema);
        if (tool.output) {
          expect(seen.outputSchema?.type, tool.name).toBe('object');
          expect(seen.outputSchema, tool.name).toEqual(tool.output.schema);
        } else {
          expect(seen.outputSchema, tool.name).toBeUndefined();
        }
      }
      // JSON responses have output schemas; the text/plain and 204 operations do not.
      expect(listedTool('listPets').outputSchema).toBeDefined();
      expect(listedTool('getInventory').outputSchema).toBeDefined();
      expect(listedTool('get_pets_petId_photo').outputSchema).toBeUndefined();
      expect(listedTool('deletePet').outputSchema).toBeUndefined();
    });

    it('marks path parameters as required', () => {
      for (const tool of planned) {
        const pathArgs = tool.http.arguments.filter((b) => b.in === 'path').map((b) => b.arg);
        expect(listedTool(tool.name).inputSchema.required ?? [], tool.name).toEqual(expect.arrayContaining(pathArgs));
      }
      for (const name of ['showPetById', 'updatePet', 'deletePet', 'get_pets_petId_photo']) {
        expect(listedTool(name).inputSchema.required, name).toContain('petId');
        expect(listedTool(name).inputSchema.properties, name).toHaveProperty('petId');
      }
      expect(listedTool('listPets').inputSchema.required ?? []).toEqual([]);
    });

    it('derives annotations from the HTTP method', () => {
      for (const tool of planned) {
        const hints = listedTool(tool.name).annotations ?? {};
        switch (tool.http.method) {
          case 'GET':
            expect(hints.readOnlyHint, tool.name).toBe(true);
            break;
          case 'DELETE':
            expect(hints, tool.name).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: true });
            break;
          case 'POST':
            expect(hints, tool.name).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: false });
            break;
          case 'PUT':
            expect(hints, tool.name).toMatchObject({ readOnlyHint: false, idempotentHint: true });
            break;
          default:
            throw new Error(`the fixture has no ${tool.http.method} operation; extend this test`);
        }
      }
      // The fixture does have each kind, so the loop above cannot pass vacuously.
      expect(listedTool('listPets').annotations?.readOnlyHint).toBe(true);
      expect(listedTool('deletePet').annotations).toMatchObject({ destructiveHint: true, idempotentHint: true });
      expect(listedTool('createPet').annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: false });
      expect(listedTool('updatePet').annotations).toMatchObject({ readOnlyHint: false, idempotentHint: true });
    });

    it('reports the generated server name and version in the handshake', () => {
      expect(client.serverInfo()).toMatchObject({ name: 'swagger-petstore-mcp', version: '1.0.0' });
    });
  });

  describe('calls reach the upstream as documented', () => {
    it('listPets: query (form, explode), enum, header; array result wrapped under "result"', async () => {
      const result = await client.callTool('listPets', {
        limit: 2,
        tags: ['a', 'b'],
        status: 'sold',
        'X-Request-Id': 'req-123',
      });
      expect(result.isError, textOf(result)).toBeFalsy();

      const req = onlyRequest();
      expect(req.method).toBe('GET');
      expect(req.path).toBe('/v1/pets');
      expect(req.rawQuery.split('&').filter((p) => p.startsWith('tags='))).toEqual(['tags=a', 'tags=b']);
      expect([...req.query].sort()).toEqual(
        [
          ['limit', '2'],
          ['status', 'sold'],
          ['tags', 'a'],
          ['tags', 'b'],
        ].sort(),
      );
      expect(req.headers['x-request-id']).toBe('req-123');
      expect(req.headers.accept).toContain('application/json');
      expect(req.body).toBe('');

      expect(result.structuredContent).toEqual({ result: PETS });
      expect(JSON.parse(textOf(result))).toEqual({ result: PETS });
    });

    it('listPets without arguments sends no query and no optional header', async () => {
      const result = await client.callTool('listPets', {});
      expect(result.isError, textOf(result)).toBeFalsy();
      const req = onlyRequest();
      expect(req.path).toBe('/v1/pets');
      expect(req.rawQuery).toBe('');
      expect(req.headers).not.toHaveProperty('x-request-id');
    });

    it('showPetById: path parameter; the object result is the structured content', async () => {
      const result = await client.callTool('showPetById', { petId: '42' });
      expect(result.isError, textOf(result)).toBeFalsy();
      const req = onlyRequest();
      expect(`${req.method} ${req.path}`).toBe('GET /v1/pets/42');
      expect(req.rawQuery).toBe('');
      expect(result.structuredContent).toEqual(PET_42);
      expect(JSON.parse(textOf(result))).toEqual(PET_42);
    });

    it('createPet: POST with the body argument as JSON', async () => {
      const body = { name: 'Fido', tag: 'dog', weight: 12.5, category: { id: 3, name: 'dogs', parent: { id: 1, name: 'animals' } } };
      const result = await client.callTool('createPet', { body });
      expect(result.isError, textOf(result)).toBeFalsy();
      const req = onlyRequest();
      expect(`${req.method} ${req.path}`).toBe('POST /v1/pets');
      expect(req.headers['content-type']).toMatch(/^application\/json\b/);
      expect(JSON.parse(req.body)).toEqual(body);
      expect(result.structuredContent).toEqual({ id: 99, ...body });
    });

    it('updatePet: PUT with path parameter and JSON body', async () => {
      const body = { id: 42, name: 'Douglas Adams' };
      const result = await client.callTool('updatePet', { petId: '42', body });
      expect(result.isError, textOf(result)).toBeFalsy();
      const req = onlyRequest();
      expect(`${req.method} ${req.path}`).toBe('PUT /v1/pets/42');
      expect(JSON.parse(req.body)).toEqual(body);
      expect(result.structuredContent).toEqual(body);
    });

    it('deletePet: 204 is a success with a short text', async () => {
      const result = await client.callTool('deletePet', { petId: '42' });
      expect(result.isError, textOf(result)).toBeFalsy();
      const req = onlyRequest();
      expect(`${req.method} ${req.path}`).toBe('DELETE /v1/pets/42');
      expect(req.body).toBe('');
      expect(result.structuredContent).toBeUndefined();
      expect(textOf(result)).toContain('204');
      expect(textOf(result).length).toBeLessThan(200);
    });

    it('get_pets_petId_photo: a text/plain response comes back as text content', async () => {
      const result = await client.callTool('get_pets_petId_photo', { petId: '42' });
      expect(result.isError, textOf(result)).toBeFalsy();
      expect(`${onlyRequest().method} ${onlyRequest().path}`).toBe('GET /v1/pets/42/photo');
      expect(onlyRequest().headers.accept).toContain('text/plain');
      expect(result.content).toEqual([{ type: 'text', text: 'A photo of pet 42, sitting on a towel.' }]);
      expect(result.structuredContent).toBeUndefined();
    });

    it('getInventory: an object with additionalProperties is returned as is', async () => {
      const result = await client.callTool('getInventory', {});
      expect(result.isError, textOf(result)).toBeFalsy();
      expect(`${onlyRequest().method} ${onlyRequest().path}`).toBe('GET /v1/store/inventory');
      expect(result.structuredContent).toEqual(INVENTORY);
      expect(JSON.parse(textOf(result))).toEqual(INVENTORY);
    });

    it('listCounts: a JSON array is wrapped under "result"', async () => {
      const result = await client.callTool('listCounts', {});
      expect(result.isError, textOf(result)).toBeFalsy();
      expect(`${onlyRequest().method} ${onlyRequest().path}`).toBe('GET /v1/store/counts');
      expect(result.structuredContent).toEqual({ result: COUNTS });
      expect(JSON.parse(textOf(result))).toEqual({ result: COUNTS });
    });
  });

  describe('path arguments cannot leave the base path', () => {
    it('petId "../admin" is sent as one encoded segment, never as /v1/admin', async () => {
      const result = await client.callTool('showPetById', { petId: '../admin' });
      const paths = upstream.requests.map((r) => r.path);
      expect(paths).not.toContain('/v1/admin');
      expect(paths.every((p) => p.startsWith('/v1/pets/'))).toBe(true);
      if (result.isError) {
        // Rejecting is acceptable too, but then nothing may have been sent.
        expect(paths).toEqual([]);
      } else {
        expect(paths).toEqual(['/v1/pets/..%2Fadmin']);
      }
    });

    it.each(['..', '.'])('petId %j is rejected and nothing is sent', async (petId) => {
      const result = await client.callTool('showPetById', { petId });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain('petId');
      expect(upstream.requests).toEqual([]);
      await expectStillServing();
    });

    it('"?" and "#" in a path argument are encoded, not turned into a query or fragment', async () => {
      const result = await client.callTool('showPetById', { petId: 'a?b=1#c' });
      expect(result.isError, textOf(result)).toBeFalsy();
      const req = onlyRequest();
      expect(req.path).toBe('/v1/pets/a%3Fb%3D1%23c');
      expect(req.rawQuery).toBe('');
    });
  });

  describe('errors are tool results, and the server keeps serving', () => {
    it('upstream 404: isError, the message has the status and the error body', async () => {
      upstream.route('GET', '/v1/pets/:petId', json({ code: 404, message: 'no pet 7 here' }, 404));
      const result = await client.callTool('showPetById', { petId: '7' });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain('404');
      expect(textOf(result)).toContain('no pet 7 here');
      expect(result.structuredContent).toBeUndefined();
      expect(onlyRequest().path).toBe('/v1/pets/7');
      await expectStillServing();
    });

    it('upstream 500: isError with the status and the trimmed body', async () => {
      upstream.route('GET', '/v1/pets/:petId', text('\n   database on fire   \n\n', 500));
      const result = await client.callTool('showPetById', { petId: '7' });
      expect(result.isError).toBe(true);
      const message = textOf(result);
      expect(message).toContain('500');
      expect(message.split('\n')).toContain('database on fire');
      await expectStillServing();
    });

    it('upstream closes the connection without answering: isError naming the upstream', async () => {
      upstream.route('GET', '/v1/pets/:petId', destroySocket());
      const result = await client.callTool('showPetById', { petId: '7' });
      expect(result.isError).toBe(true);
      // The request was sent, so the message must not claim the upstream was unreachable.
      expect(textOf(result)).toMatch(/connection .* was lost/i);
      expect(textOf(result)).toMatch(/may or may not have processed/);
      expect(textOf(result)).toContain(`127.0.0.1:${upstream.port}`);
      expect(textOf(result)).not.toMatch(/\n\s+at /); // no stack trace
      expect(upstream.requests.length).toBeGreaterThanOrEqual(1);
      await expectStillServing();
    });

    it('malformed JSON for a tool with an outputSchema: isError with the raw body, client does not throw', async () => {
      upstream.route('GET', '/v1/pets/:petId', malformedJson('{"id": 42, "name": "Dou'));
      const result = await client.callTool('showPetById', { petId: '42' });
      expect(result.isError).toBe(true);
      expect(result.structuredContent).toBeUndefined();
      expect(textOf(result)).toContain('{"id": 42, "name": "Dou');
      expect(textOf(result)).toMatch(/not valid JSON/i);
      await expectStillServing();
    });

    it.each([
      ['limit of the wrong type', 'listPets', { limit: 'x' }, /limit/],
      ['limit below its minimum', 'listPets', { limit: 0 }, /limit/],
      ['status outside its enum', 'listPets', { status: 'lost' }, /status/],
      ['X-Request-Id not matching its pattern', 'listPets', { 'X-Request-Id': 'Not Valid!' }, /X-Request-Id/],
      ['an unknown extra argument', 'listPets', { bogus: 1 }, /additional propert|bogus/i],
      ['missing required petId', 'showPetById', {}, /petId/],
      ['missing required body', 'createPet', {}, /body/],
      ['body.name shorter than minLength', 'createPet', { body: { name: '' } }, /name/],
      ['body.weight not above its exclusive minimum', 'createPet', { body: { name: 'x', weight: 0 } }, /weight/],
    ] as const)('invalid arguments (%s): isError naming the problem, nothing sent', async (_what, tool, args, problem) => {
      const result = await client.callTool(tool, args);
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(problem);
      expect(upstream.requests).toEqual([]);
      await expectStillServing();
    });

    it('unknown tool: a protocol error, not a result', async () => {
      let caught: unknown;
      try {
        await client.callTool('noSuchTool', {});
      } catch (error) {
        caught = error;
      }
      expect(caught, 'callTool should have rejected').toBeInstanceOf(Error);
      const code = errorCode(caught);
      expect(code === -32602 || /not found/i.test((caught as Error).message), `code ${code}: ${(caught as Error).message}`).toBe(true);
      expect(upstream.requests).toEqual([]);
      await expectStillServing();
    });
  });

  describe('an upstream that deviates from its own spec', () => {
    it('extra fields in an object result: still a success with structuredContent', async () => {
      const pet = { ...PET_42, owner: 'Arthur', vaccinated: true };
      upstream.route('GET', '/v1/pets/:petId', json(pet));
      const result = await client.callTool('showPetById', { petId: '42' });
      expect(result.isError, textOf(result)).toBeFalsy();
      expect(result.structuredContent).toEqual(pet);
    });

    it('a documented property of the wrong type: isError with the raw JSON, client does not throw', async () => {
      const pet = { id: 42, name: 123 };
      upstream.route('GET', '/v1/pets/:petId', json(pet));
      const result = await client.callTool('showPetById', { petId: '42' });
      expect(result.isError).toBe(true);
      expect(result.structuredContent).toBeUndefined();
      expect(textOf(result)).toMatch(/(does not|did not|doesn't) match the documented (output )?schema/i);
      expect(textOf(result)).toContain(JSON.stringify(pet));
      expect(textOf(result)).toContain('name');
      await expectStillServing();
    });

    it('a wrong item type inside a wrapped array: isError, client does not throw', async () => {
      upstream.route('GET', '/v1/store/counts', json([1, 'two', 3]));
      const result = await client.callTool('listCounts', {});
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain('[1,"two",3]');
      await expectStillServing();
    });
  });

  describe('configuration and failure modes that need their own server process', () => {
    it('unreachable upstream (nothing listening): isError saying it could not reach it', async () => {
      const port = await closedPort();
      const offline = await connectClient(kind, {
        entry: project.entry,
        env: { API_BASE_URL: `http://127.0.0.1:${port}/v1` },
      });
      try {
        await offline.listTools();
        for (let i = 0; i < 2; i++) {
          const result = await offline.callTool('showPetById', { petId: '42' });
          expect(result.isError).toBe(true);
          expect(textOf(result)).toMatch(/could not reach/i);
          expect(textOf(result)).toContain(`127.0.0.1:${port}`);
        }
        // Still serving: the protocol keeps working.
        expect((await offline.listTools()).length).toBe(planned.length);
      } finally {
        await offline.close();
      }
      expect(upstream.requests).toEqual([]);
    });

    it('API_TIMEOUT_MS: a slow upstream gives a timeout error, then the next call works', async () => {
      const impatient = await connectClient(kind, {
        entry: project.entry,
        env: { API_BASE_URL: upstream.url('/v1'), API_TIMEOUT_MS: '300' },
      });
      try {
        await impatient.listTools();
        upstream.route('GET', '/v1/pets/:petId', delayed(3_000, json(PET_42)));
        const started = Date.now();
        const slow = await impatient.callTool('showPetById', { petId: '42' });
        expect(Date.now() - started).toBeLessThan(2_500);
        expect(slow.isError).toBe(true);
        expect(textOf(slow)).toMatch(/timed out/i);
        expect(textOf(slow)).toContain('300');

        const fast: ToolCallResult = await impatient.callTool('getInventory', {});
        expect(fast.isError, textOf(fast)).toBeFalsy();
        expect(fast.structuredContent).toEqual(INVENTORY);
      } finally {
        await impatient.close();
      }
    });
  });

  describe('stdio hygiene', () => {
    it('logs structured JSON lines to stderr, including a tool_call event per call', async () => {
      await client.callTool('listCounts', {});
      await client.waitForStderr(/"event":"tool_call".*"tool":"listCounts"/);
      const lines = client.stderr().split('\n').filter((l) => l.trim() !== '');
      expect(lines.length).toBeGreaterThan(0);
      // Every stderr line is a log event (nothing unstructured leaks out).
      for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow();
      const events = logEvents(client.stderr());
      expect(events.every((e) => typeof e.event === 'string' && typeof e.time === 'string')).toBe(true);
      expect(events.filter((e) => e.event === 'server_started')).toHaveLength(1);
      expect(events).toContainEqual(expect.objectContaining({ event: 'tool_call', tool: 'listCounts', isError: false }));
    });
  });
});

describe('the server process (spawned directly)', () => {
  it('writes only JSON-RPC to stdout and exits when stdin closes', async () => {
    const server = spawnServer(project.entry, { API_BASE_URL: upstream.url('/v1') });
    try {
      server.send({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
      });
      expect(await server.response(1)).toHaveProperty('result.serverInfo.name', 'swagger-petstore-mcp');
      server.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      server.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
      server.send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'listPets', arguments: { limit: 1 } } });
      const listing = await server.response(2);
      expect((listing.result as { tools: unknown[] }).tools).toHaveLength(planned.length);
      const call = await server.response(3);
      expect(call).toHaveProperty('result.structuredContent', { result: PETS });
      expect(upstream.requests.map((r) => `${r.method} ${r.path}?${r.rawQuery}`)).toEqual(['GET /v1/pets?limit=1']);

      server.child.stdin.end();
      expect(await within(server.exited, 5_000)).toBe(0);

      const lines = server.stdout().split('\n');
      expect(lines.pop()).toBe(''); // newline-terminated
      for (const line of lines) {
        const message = JSON.parse(line) as Record<string, unknown>;
        expect(message.jsonrpc, line).toBe('2.0');
      }
      expect(lines).toHaveLength(3);
      expect(logEvents(server.stderr())).toContainEqual(expect.objectContaining({ event: 'tool_call', tool: 'listPets' }));
    } finally {
      await server.kill();
    }
  });
});
