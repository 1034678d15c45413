import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepareProject, type PreparedProject } from '../support/generated-project.js';
import { connectClient, type McpTestClient } from '../support/mcp-clients.js';
import { json, startRecordingUpstream, type RecordingUpstream } from '../support/recording-upstream.js';

/**
 * Property test through the generated petstore server: hostile argument values (path traversal,
 * CR/LF, absolute URLs, huge strings, wrong types) never reach another route or host, and the
 * server answers every call and keeps serving.
 */
let upstream: RecordingUpstream;
let project: PreparedProject;
let client: McpTestClient;

beforeAll(async () => {
  upstream = await startRecordingUpstream([{ method: '*', path: /.*/, reply: json({ id: 1, name: 'Rex' }) }]);
  project = await prepareProject('fixtures/openapi-3.0/petstore.yaml');
  client = await connectClient('v2', { entry: project.entry, env: { API_BASE_URL: upstream.url('/v1'), MCP_RATE_LIMIT: '0' } });
});

afterAll(async () => {
  await client?.close();
  await upstream?.stop();
  await project?.dispose();
});

const hostile = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.constantFrom('..', '.', '../admin', '..%2fadmin', '%2e%2e', 'http://evil.test/x', '//evil.test', 'a\r\nX-Evil: 1', '?admin=1#x', ''),
  fc.array(fc.constantFrom('..', '/', '\\', '%', '.', '@', ':', '?', '#', '\r', '\n', 'a'), { maxLength: 20 }).map((a) => a.join('')),
  fc.nat({ max: 100_000 }).map((n) => 'x'.repeat(n)),
  fc.integer(),
  fc.constant(null),
  fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 3 }),
);

describe('hostile arguments through the generated server (fast-check)', () => {
  it('every call gets an answer, and every request stays on /v1/pets routes of the upstream host', async () => {
    await fc.assert(
      fc.asyncProperty(hostile, hostile, hostile, async (petId, tags, requestId) => {
        const before = upstream.requests.length;
        const a = await client.callTool('showPetById', { petId });
        const b = await client.callTool('listPets', { tags, 'X-Request-Id': requestId });
        expect(Array.isArray(a.content)).toBe(true);
        expect(Array.isArray(b.content)).toBe(true);
        for (const request of upstream.requests.slice(before)) {
          expect(request.path === '/v1/pets' || /^\/v1\/pets\/[^/]+$/.test(request.path), request.path).toBe(true);
          expect(request.headers.host).toBe(new URL(upstream.url()).host);
          expect(JSON.stringify(request.headers)).not.toContain('x-evil');
        }
      }),
      { numRuns: 60 },
    );
    // Still serving normally after all of that.
    const ok = await client.callTool('showPetById', { petId: '42' });
    expect(ok.isError).toBeFalsy();
    expect(upstream.requests.at(-1)?.path).toBe('/v1/pets/42');
  });
});
