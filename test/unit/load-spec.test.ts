import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpGenError } from '../../src/diagnostics.js';
import { loadSpec } from '../../src/load/load-spec.js';
import type { Schema } from '../../src/model/api-model.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mcp-gen-load-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let counter = 0;
function specFile(content: object | string, ext = 'json'): string {
  const file = join(dir, `spec-${++counter}.${ext}`);
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

async function loadError(source: string): Promise<McpGenError> {
  try {
    await loadSpec(source);
  } catch (error) {
    expect(error).toBeInstanceOf(McpGenError);
    return error as McpGenError;
  }
  throw new Error('expected loadSpec to fail');
}

const recursive30 = {
  openapi: '3.0.3',
  info: { title: 'Trees', version: '1.0.0' },
  servers: [{ url: 'https://{host}/api', variables: { host: { default: 'trees.test' } } }],
  paths: {
    '/trees/{id}': {
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }],
      get: {
        operationId: 'getTree',
        responses: { '200': { description: 'A tree', content: { 'application/json': { schema: { $ref: '#/components/schemas/Node' } } } } },
      },
    },
  },
  components: {
    schemas: {
      Node: {
        type: 'object',
        properties: {
          label: { type: 'string', nullable: true },
          children: { type: 'array', items: { $ref: '#/components/schemas/Node' } },
        },
      },
    },
  },
};

describe('loadSpec', () => {
  it('loads OpenAPI 3.0 JSON: version, base URL, dereferenced recursive $ref kept as a named cycle', async () => {
    const { version, model, source } = await loadSpec(specFile(recursive30));
    expect(version).toBe('3.0');
    expect(source.endsWith('.json')).toBe(true);
    expect(model.baseUrl).toBe('https://trees.test/api');
    const op = model.operations[0]!;
    expect(op.parameters.map((p) => p.name)).toEqual(['id']);
    const node = op.responses[0]!.contents[0]!.schema!;
    const props = node.properties as Record<string, Schema>;
    expect((props.children as Schema).items).toBe(node);
    expect(props.label).toStrictEqual({ type: ['string', 'null'] });
    expect(model.schemaNames.get(node)).toBe('Node');
  });

  it('loads YAML Swagger 2.0', async () => {
    const yaml = [
      'swagger: "2.0"',
      'info: { title: Petstore, version: "1.0" }',
      'host: pets.test',
      'basePath: /v1',
      'schemes: [http]',
      'paths:',
      '  /pets:',
      '    get:',
      '      operationId: listPets',
      '      produces: [application/json]',
      '      parameters:',
      '        - { name: tags, in: query, type: array, items: { type: string }, collectionFormat: multi }',
      '      responses:',
      '        "200": { description: OK, schema: { type: array, items: { type: string } } }',
    ].join('\n');
    const { version, model } = await loadSpec(specFile(yaml, 'yaml'));
    expect(version).toBe('2.0');
    expect(model.baseUrl).toBe('http://pets.test/v1');
    expect(model.operations[0]?.parameters[0]).toMatchObject({ name: 'tags', style: 'form', explode: true });
  });

  it('loads OpenAPI 3.1', async () => {
    const { version, model } = await loadSpec(
      specFile({
        openapi: '3.1.0',
        info: { title: 'T', version: '1' },
        paths: {
          '/x': {
            get: {
              parameters: [{ name: 'q', in: 'query', schema: { type: ['string', 'null'] } }],
              responses: { '200': { description: 'OK' } },
            },
          },
        },
      }),
    );
    expect(version).toBe('3.1');
    expect(model.operations[0]?.parameters[0]?.schema).toStrictEqual({ type: ['string', 'null'] });
  });

  it('an invalid spec is SPEC_INVALID with a pointer', async () => {
    const error = await loadError(specFile({ openapi: '3.0.3', info: { title: 'T' }, paths: {} }));
    expect(error.diagnostic.code).toBe('SPEC_INVALID');
    expect(error.diagnostic.pointer).toMatch(/^\/info/);
    expect(error.message).toMatch(/version/);
  });

  it('a missing file is SPEC_UNREADABLE', async () => {
    const error = await loadError(join(dir, 'does-not-exist.yaml'));
    expect(error.diagnostic.code).toBe('SPEC_UNREADABLE');
  });

  it('malformed YAML is SPEC_PARSE', async () => {
    const error = await loadError(specFile('openapi: 3.0.3\ninfo: [unclosed\n', 'yaml'));
    expect(error.diagnostic.code).toBe('SPEC_PARSE');
  });

  describe('over HTTP', () => {
    let server: Server;
    let origin: string;
    beforeAll(async () => {
      server = createServer((req, res) => {
        const relative = { ...recursive30, servers: [{ url: 'v1/' }] };
        if (req.url === '/specs/api.json') res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(relative));
        else res.writeHead(404).end();
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it('resolves a relative server URL against where the spec was fetched from', async () => {
      // (a root-relative `/v1` loses the port: see the report; swagger-parser rewrites it first)
      const { model } = await loadSpec(`${origin}/specs/api.json`);
      expect(model.baseUrl).toBe(`${origin}/specs/v1/`);
    });
  });

  it('keeps a relative server URL relative for a local file', async () => {
    const { model } = await loadSpec(specFile({ ...recursive30, servers: [{ url: '/v1' }] }));
    expect(model.baseUrl).toBe('/v1');
  });
});
