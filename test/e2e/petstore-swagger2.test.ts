/**
 * End to end for a Swagger 2.0 spec (fixtures/openapi-2.0/petstore.yaml): collectionFormat
 * multi/csv, formData as application/x-www-form-urlencoded, integer path parameters, header
 * parameters, and the basePath, with API_BASE_URL pointing at a recording upstream.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ToolDefinition } from '../../runtime/types.js';
import { prepareProject, type PreparedProject } from '../support/generated-project.js';
import { CLIENT_KINDS, connectClient, textOf, type ListedTool, type McpTestClient } from '../support/mcp-clients.js';
import { empty, json, startRecordingUpstream, type RecordingUpstream, type Route } from '../support/recording-upstream.js';

const FIXTURE = 'fixtures/openapi-2.0/petstore.yaml';

const PETS = [
  { id: 1, name: 'Rex', status: 'available' },
  { id: 2, name: 'Tom', nickname: null, status: 'sold' },
];

function documentedRoutes(): Route[] {
  return [
    { method: 'GET', path: '/v2/pets', reply: json(PETS) },
    { method: 'POST', path: '/v2/pets', reply: (req) => json({ id: 77, ...(JSON.parse(req.body) as object) }) },
    { method: 'GET', path: '/v2/pets/:petId', reply: (req) => json({ id: Number(req.path.split('/').pop()), name: 'Rex' }) },
    { method: 'POST', path: '/v2/pets/:petId', reply: json({ code: 200, message: 'updated' }) },
    { method: 'DELETE', path: '/v2/pets/:petId', reply: empty(204) },
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

function onlyRequest() {
  expect(upstream.requests).toHaveLength(1);
  return upstream.requests[0]!;
}

describe.each(CLIENT_KINDS)('petstore (Swagger 2.0) through the %s client', (kind) => {
  let client: McpTestClient;
  let listed: ListedTool[];

  beforeAll(async () => {
    // The spec's own base URL is https://petstore.example.com/v2; API_BASE_URL overrides it.
    client = await connectClient(kind, { entry: project.entry, env: { API_BASE_URL: upstream.url('/v2') } });
    listed = await client.listTools();
  });

  afterAll(async () => {
    await client?.close();
  });

  it('lists exactly the planned tools', () => {
    expect(listed.map((t) => t.name).sort()).toEqual(planned.map((t) => t.name).sort());
    expect(listed.map((t) => t.name)).toEqual(
      expect.arrayContaining(['listPets', 'addPet', 'getPetById', 'updatePetWithForm', 'deletePet']),
    );
    const getPetById = listed.find((t) => t.name === 'getPetById');
    expect(getPetById?.inputSchema.required).toContain('petId');
    expect(getPetById?.inputSchema.properties?.petId).toMatchObject({ type: 'integer' });
  });

  it('listPets: collectionFormat multi repeats the key, csv joins with commas', async () => {
    const result = await client.callTool('listPets', { limit: 5, tags: ['a', 'b'], status: ['available', 'sold'] });
    expect(result.isError, textOf(result)).toBeFalsy();

    const req = onlyRequest();
    expect(`${req.method} ${req.path}`).toBe('GET /v2/pets');
    const rawPairs = req.rawQuery.split('&');
    expect(rawPairs.filter((p) => p.startsWith('tags='))).toEqual(['tags=a', 'tags=b']);
    // csv: one `status` pair; the comma may be literal or %2C, but must decode to the joined list.
    const rawStatus = rawPairs.filter((p) => p.startsWith('status='));
    expect(rawStatus).toHaveLength(1);
    expect(['status=available,sold', 'status=available%2Csold', 'status=available%2csold']).toContain(rawStatus[0]);
    expect(req.query.filter(([k]) => k === 'status')).toEqual([['status', 'available,sold']]);
    expect(req.query.filter(([k]) => k === 'limit')).toEqual([['limit', '5']]);

    expect(result.structuredContent).toEqual({ result: PETS });
  });

  it('addPet: POST with the body parameter as JSON', async () => {
    const body = { name: 'Fido', nickname: 'Fi', status: 'pending' };
    const result = await client.callTool('addPet', { body });
    expect(result.isError, textOf(result)).toBeFalsy();
    const req = onlyRequest();
    expect(`${req.method} ${req.path}`).toBe('POST /v2/pets');
    expect(req.headers['content-type']).toMatch(/^application\/json\b/);
    expect(JSON.parse(req.body)).toEqual(body);
    expect(result.structuredContent).toEqual({ id: 77, ...body });
  });

  it('getPetById: integer path parameter and the api_version header', async () => {
    const result = await client.callTool('getPetById', { petId: 42, api_version: '2024-01' });
    expect(result.isError, textOf(result)).toBeFalsy();
    const req = onlyRequest();
    expect(`${req.method} ${req.path}`).toBe('GET /v2/pets/42');
    expect(req.headers['api_version']).toBe('2024-01');
    expect(result.structuredContent).toEqual({ id: 42, name: 'Rex' });
  });

  it('getPetById: a non-integer petId is rejected before anything is sent', async () => {
    const result = await client.callTool('getPetById', { petId: '../42' });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('petId');
    expect(upstream.requests).toEqual([]);
  });

  it('updatePetWithForm: formData goes out as application/x-www-form-urlencoded', async () => {
    const result = await client.callTool('updatePetWithForm', { petId: 7, body: { name: 'Tom & Jerry', status: 'sold' } });
    expect(result.isError, textOf(result)).toBeFalsy();
    const req = onlyRequest();
    expect(`${req.method} ${req.path}`).toBe('POST /v2/pets/7');
    expect(req.headers['content-type']).toMatch(/^application\/x-www-form-urlencoded\b/);
    expect([...new URLSearchParams(req.body)]).toEqual([
      ['name', 'Tom & Jerry'],
      ['status', 'sold'],
    ]);
    expect(result.structuredContent).toEqual({ code: 200, message: 'updated' });
  });

  it('updatePetWithForm: the required form field status is enforced', async () => {
    const result = await client.callTool('updatePetWithForm', { petId: 7, body: { name: 'x' } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('status');
    expect(upstream.requests).toEqual([]);
  });

  it('deletePet: DELETE with the integer path parameter; 204 is a success', async () => {
    const result = await client.callTool('deletePet', { petId: 9 });
    expect(result.isError, textOf(result)).toBeFalsy();
    const req = onlyRequest();
    expect(`${req.method} ${req.path}`).toBe('DELETE /v2/pets/9');
    expect(textOf(result)).toContain('204');
  });
});
