/**
 * End to end for an OpenAPI 3.1 spec (fixtures/openapi-3.1/bookshop.yaml): type arrays, const,
 * a `+json` request media type and a recursive output schema that both clients must accept.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ToolDefinition } from '../../runtime/types.js';
import { prepareProject, type PreparedProject } from '../support/generated-project.js';
import { CLIENT_KINDS, connectClient, textOf, type ListedTool, type McpTestClient } from '../support/mcp-clients.js';
import { json, startRecordingUpstream, type RecordingUpstream, type Route } from '../support/recording-upstream.js';

const FIXTURE = 'fixtures/openapi-3.1/bookshop.yaml';
/** Also exercises generate()'s `name` option. */
const SERVER_NAME = 'bookshop-e2e';

const BOOK = { isbn: '978-0345391803', title: "The Hitchhiker's Guide to the Galaxy", kind: 'book', price: null };
const SEARCH = { items: [BOOK, { isbn: '978-0330258647', title: 'The Restaurant at the End of the Universe', price: 9.99 }], next: null };
const NESTED_SHELF = {
  id: 1,
  name: 'Fiction',
  children: [
    { id: 2, name: 'Science fiction', children: [{ id: 3, name: 'Douglas Adams', children: [] }] },
    { id: 4, name: 'Fantasy' },
  ],
};

function documentedRoutes(): Route[] {
  return [
    { method: 'GET', path: '/api/books', reply: json(SEARCH) },
    { method: 'GET', path: '/api/books/:isbn', reply: json(BOOK) },
    { method: 'PATCH', path: '/api/shelves/:id', reply: json(NESTED_SHELF) },
  ];
}

let project: PreparedProject;
let upstream: RecordingUpstream;
let planned: ToolDefinition[];

beforeAll(async () => {
  upstream = await startRecordingUpstream();
  project = await prepareProject(FIXTURE, SERVER_NAME);
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

describe.each(CLIENT_KINDS)('bookshop (OpenAPI 3.1) through the %s client', (kind) => {
  let client: McpTestClient;
  let listed: ListedTool[];

  beforeAll(async () => {
    client = await connectClient(kind, { entry: project.entry, env: { API_BASE_URL: upstream.url('/api') } });
    listed = await client.listTools();
  });

  afterAll(async () => {
    await client?.close();
  });

  it('lists the planned tools with their schemas, under the requested server name', () => {
    expect(client.serverInfo()?.name).toBe(SERVER_NAME);
    expect(listed.map((t) => t.name).sort()).toEqual(planned.map((t) => t.name).sort());
    expect(listed.map((t) => t.name)).toEqual(expect.arrayContaining(['searchBooks', 'getBook', 'patch_shelves_id']));
    for (const tool of planned) {
      const seen = listed.find((t) => t.name === tool.name);
      expect(seen?.inputSchema, tool.name).toEqual(tool.inputSchema);
      expect(seen?.outputSchema, tool.name).toEqual(tool.output?.schema);
    }
    expect(listed.find((t) => t.name === 'searchBooks')?.inputSchema.required).toContain('q');
    // The recursive Shelf schema is listed with its $defs, not expanded.
    const shelf = listed.find((t) => t.name === 'patch_shelves_id')?.outputSchema;
    expect(JSON.stringify(shelf)).toContain('#/$defs/Shelf');
    expect(listed.find((t) => t.name === 'patch_shelves_id')?.annotations).toMatchObject({ readOnlyHint: false, idempotentHint: false });
  });

  it('searchBooks: the required q and the optional minPrice go into the query; nullable fields validate', async () => {
    const result = await client.callTool('searchBooks', { q: 'adams & co', minPrice: 2.5 });
    expect(result.isError, textOf(result)).toBeFalsy();
    const req = onlyRequest();
    expect(`${req.method} ${req.path}`).toBe('GET /api/books');
    expect(req.query).toEqual([
      ['q', 'adams & co'],
      ['minPrice', '2.5'],
    ]);
    expect(result.structuredContent).toEqual(SEARCH);
  });

  it.each([
    ['missing q', {}],
    ['empty q (minLength 1)', { q: '' }],
    ['minPrice 0 (exclusiveMinimum 0)', { q: 'x', minPrice: 0 }],
  ])('searchBooks rejects %s without calling the upstream', async (_what, args) => {
    const result = await client.callTool('searchBooks', args);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/q|minPrice/);
    expect(upstream.requests).toEqual([]);
  });

  it('getBook: path parameter; const and type-array properties in the result', async () => {
    const result = await client.callTool('getBook', { isbn: '978-0345391803' });
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(`${onlyRequest().method} ${onlyRequest().path}`).toBe('GET /api/books/978-0345391803');
    expect(result.structuredContent).toEqual(BOOK);
  });

  it('getBook: a value violating the documented const is an error, not a client exception', async () => {
    upstream.route('GET', '/api/books/:isbn', json({ ...BOOK, kind: 'magazine' }));
    const result = await client.callTool('getBook', { isbn: '1' });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('"kind":"magazine"');
  });

  it('patch_shelves_id: application/merge-patch+json body; nested recursive output is structured content', async () => {
    const body = { name: 'Fiction (all)', id: 10 };
    const result = await client.callTool('patch_shelves_id', { id: 1, body });
    expect(result.isError, textOf(result)).toBeFalsy();
    const req = onlyRequest();
    expect(`${req.method} ${req.path}`).toBe('PATCH /api/shelves/1');
    expect(req.headers['content-type']).toMatch(/^application\/merge-patch\+json\b/);
    expect(JSON.parse(req.body)).toEqual(body);
    expect(result.structuredContent).toEqual(NESTED_SHELF);
  });

  it('patch_shelves_id: a wrong type deep inside the recursive result is reported, not thrown', async () => {
    const broken = { id: 1, children: [{ id: 2, children: [{ id: 'three' }] }] };
    upstream.route('PATCH', '/api/shelves/:id', json(broken));
    const result = await client.callTool('patch_shelves_id', { id: 1, body: { name: 'x' } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain(JSON.stringify(broken));
  });
});
