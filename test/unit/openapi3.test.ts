import { describe, expect, it } from 'vitest';
import { mergeParameters, openApi3ToModel } from '../../src/load/openapi3.js';
import type { ApiParameter, Schema } from '../../src/model/api-model.js';
import { planTools } from '../../src/tools/plan-tools.js';
import { deepFreeze } from './model-factory.js';

type Doc = Record<string, unknown>;

function doc(paths: Doc, extra: Doc = {}): Doc {
  return { openapi: '3.0.3', info: { title: 'Pets', version: '2.1.0' }, paths, ...extra };
}

const ok = { '200': { description: 'OK' } };

function onlyOperation(d: Doc, dialect: 'oas30' | 'oas31' = 'oas30') {
  const m = openApi3ToModel(deepFreeze(d), dialect);
  expect(m.operations).toHaveLength(1);
  return m.operations[0]!;
}

const brief = (p: ApiParameter) => `${p.in}:${p.name}:${p.style}:${p.explode}:${p.required}`;

describe('openApi3ToModel: document', () => {
  it('takes title, version and description from info', () => {
    const m = openApi3ToModel(doc({}, { info: { title: 'Pets', version: '2.1.0', description: 'All pets.' } }), 'oas30');
    expect([m.title, m.version, m.description, m.operations]).toEqual(['Pets', '2.1.0', 'All pets.', []]);
  });

  it('3.1: falls back to info.summary for the description', () => {
    const m = openApi3ToModel({ openapi: '3.1.0', info: { title: 'T', version: '1', summary: 'Short' }, paths: {} }, 'oas31');
    expect(m.description).toBe('Short');
  });

  it.each<[string, unknown, string]>([
    ['no servers', undefined, '/'],
    ['an absolute URL', [{ url: 'https://api.test/v1' }, { url: 'https://other.test' }], 'https://api.test/v1'],
    ['a relative URL', [{ url: '/v1' }], '/v1'],
    [
      'variables replaced by their defaults',
      [{ url: 'https://{region}.api.test:{port}/{version}', variables: { region: { default: 'eu', enum: ['eu', 'us'] }, port: { default: '8443' }, version: { default: 'v2' } } }],
      'https://eu.api.test:8443/v2',
    ],
    ['an undeclared variable is left as is', [{ url: 'https://{tenant}.api.test' }], 'https://{tenant}.api.test'],
  ])('baseUrl from %s', (_, servers, want) => {
    expect(openApi3ToModel(doc({}, servers === undefined ? {} : { servers }), 'oas30').baseUrl).toBe(want);
  });

  it('lists operations in path order, then method order', () => {
    const m = openApi3ToModel(
      doc({
        '/b': { post: { responses: ok }, get: { responses: ok } },
        '/a': { delete: { responses: ok }, summary: 'not an operation', parameters: [] },
      }),
      'oas30',
    );
    expect(m.operations.map((o) => `${o.method} ${o.path}`)).toEqual(['GET /b', 'POST /b', 'DELETE /a']);
  });
});

describe('openApi3ToModel: operations', () => {
  it('maps the operation fields, with the path item’s summary/description as fallback', () => {
    const op = onlyOperation(
      doc({
        '/pets/{petId}': {
          summary: 'Path summary',
          description: 'Path description',
          get: { operationId: 'getPet', tags: ['pets', 7], deprecated: true, description: 'Op description', responses: ok },
        },
      }),
    );
    expect(op).toMatchObject({
      operationId: 'getPet',
      method: 'GET',
      path: '/pets/{petId}',
      summary: 'Path summary',
      description: 'Op description',
      deprecated: true,
      tags: ['pets'],
      pointer: '/paths/~1pets~1{petId}/get',
    });
  });

  it('merges path-level and operation-level parameters; the operation level wins by name + location', () => {
    const op = onlyOperation(
      doc({
        '/pets/{id}': {
          parameters: [
            { name: 'id', in: 'path', required: true, schema: { type: 'integer' } },
            { name: 'limit', in: 'query', description: 'path-level', schema: { type: 'integer' } },
            { name: 'limit', in: 'header', schema: { type: 'string' } },
          ],
          get: {
            parameters: [
              { name: 'limit', in: 'query', description: 'operation-level', required: true, schema: { type: 'integer', maximum: 50 } },
              { name: 'q', in: 'query', schema: { type: 'string' } },
            ],
            responses: ok,
          },
        },
      }),
    );
    expect(op.parameters.map((p) => `${p.in}:${p.name}`)).toEqual(['path:id', 'query:limit', 'header:limit', 'query:q']);
    expect(op.parameters[1]).toMatchObject({ description: 'operation-level', required: true, schema: { type: 'integer', maximum: 50 } });
  });

  it('mergeParameters keeps first-seen order and last-seen value', () => {
    const merged = mergeParameters(
      [{ name: 'a', in: 'query', v: 1 }, { name: 'b', in: 'query', v: 1 }],
      [{ name: 'a', in: 'query', v: 2 }, { name: 'a', in: 'path', v: 2 }],
    );
    expect(merged).toEqual([
      { name: 'a', in: 'query', v: 2 },
      { name: 'b', in: 'query', v: 1 },
      { name: 'a', in: 'path', v: 2 },
    ]);
  });

  it.each<[string, Doc, string]>([
    ['path', { name: 'p', in: 'path', required: true }, 'path:p:simple:false:true'],
    ['path, required omitted (always required)', { name: 'p', in: 'path' }, 'path:p:simple:false:true'],
    ['query', { name: 'q', in: 'query' }, 'query:q:form:true:false'],
    ['query, required', { name: 'q', in: 'query', required: true }, 'query:q:form:true:true'],
    ['header', { name: 'h', in: 'header' }, 'header:h:simple:false:false'],
    ['cookie', { name: 'c', in: 'cookie' }, 'cookie:c:form:true:false'],
    ['query form, explode false', { name: 'q', in: 'query', style: 'form', explode: false }, 'query:q:form:false:false'],
    ['query deepObject (explode defaults false off form)', { name: 'q', in: 'query', style: 'deepObject' }, 'query:q:deepObject:false:false'],
    ['query deepObject, explode', { name: 'q', in: 'query', style: 'deepObject', explode: true }, 'query:q:deepObject:true:false'],
    ['query pipeDelimited', { name: 'q', in: 'query', style: 'pipeDelimited' }, 'query:q:pipeDelimited:false:false'],
    ['path label', { name: 'p', in: 'path', style: 'label', explode: true }, 'path:p:label:true:true'],
    ['path matrix', { name: 'p', in: 'path', style: 'matrix' }, 'path:p:matrix:false:true'],
  ])('style/explode/required: %s', (_, given, want) => {
    const path = given.in === 'path' ? `/x/{${String(given.name)}}` : '/x';
    const op = onlyOperation(doc({ [path]: { get: { parameters: [{ schema: { type: 'string' }, ...given }], responses: ok } } }));
    expect(brief(op.parameters[0]!)).toBe(want);
  });

  it('keeps description, deprecated and allowReserved', () => {
    const op = onlyOperation(
      doc({
        '/x': {
          get: {
            parameters: [{ name: 'q', in: 'query', description: 'Search', deprecated: true, allowReserved: true, schema: { type: 'string' } }],
            responses: ok,
          },
        },
      }),
    );
    expect(op.parameters[0]).toMatchObject({ description: 'Search', deprecated: true, allowReserved: true });
  });

  it('takes a parameter schema from `content` when there is no `schema`', () => {
    const op = onlyOperation(
      doc({
        '/x': {
          get: {
            parameters: [
              {
                name: 'filter',
                in: 'query',
                content: { 'application/json': { schema: { type: 'object', properties: { n: { type: 'string', nullable: true } } } } },
              },
            ],
            responses: ok,
          },
        },
      }),
    );
    expect(op.parameters[0]?.schema).toStrictEqual({ type: 'object', properties: { n: { type: ['string', 'null'] } } });
  });

  it('a parameter with neither schema nor content gets the empty schema', () => {
    const op = onlyOperation(doc({ '/x': { get: { parameters: [{ name: 'q', in: 'query' }], responses: ok } } }));
    expect(op.parameters[0]?.schema).toStrictEqual({});
  });

  it('converts parameter schemas from the 3.0 dialect', () => {
    const op = onlyOperation(
      doc({
        '/x': {
          get: {
            parameters: [{ name: 'n', in: 'query', schema: { type: 'number', minimum: 0, exclusiveMinimum: true, example: 1 } }],
            responses: ok,
          },
        },
      }),
    );
    expect(op.parameters[0]?.schema).toStrictEqual({ type: 'number', exclusiveMinimum: 0, examples: [1] });
  });

  it('maps the request body: required, description, every media type in order', () => {
    const op = onlyOperation(
      doc({
        '/pets': {
          post: {
            requestBody: {
              required: true,
              description: 'The pet',
              content: {
                'application/xml': { schema: { type: 'object' } },
                'application/json': { schema: { type: 'object', properties: { tag: { type: 'string', nullable: true } } } },
                'application/octet-stream': {},
              },
            },
            responses: ok,
          },
        },
      }),
    );
    expect(op.requestBody).toStrictEqual({
      required: true,
      description: 'The pet',
      contents: [
        { mediaType: 'application/xml', schema: { type: 'object' } },
        { mediaType: 'application/json', schema: { type: 'object', properties: { tag: { type: ['string', 'null'] } } } },
        { mediaType: 'application/octet-stream' },
      ],
    });
  });

  it('a request body is optional unless it says required', () => {
    const op = onlyOperation(doc({ '/x': { put: { requestBody: { content: { 'text/plain': {} } }, responses: ok } } }));
    expect(op.requestBody?.required).toBe(false);
    expect(onlyOperation(doc({ '/x': { get: { responses: ok } } })).requestBody).toBeUndefined();
  });

  it('maps every response with its status, description and contents', () => {
    const op = onlyOperation(
      doc({
        '/x': {
          get: {
            responses: {
              '200': { description: 'The pets', content: { 'application/json': { schema: { type: 'array' } }, 'text/csv': {} } },
              '2XX': { description: 'Other success' },
              default: { description: 'Error', content: { 'application/problem+json': { schema: { type: 'object' } } } },
            },
          },
        },
      }),
    );
    expect(op.responses).toStrictEqual([
      {
        status: '200',
        description: 'The pets',
        contents: [{ mediaType: 'application/json', schema: { type: 'array' } }, { mediaType: 'text/csv' }],
      },
      { status: '2XX', description: 'Other success', contents: [] },
      { status: 'default', description: 'Error', contents: [{ mediaType: 'application/problem+json', schema: { type: 'object' } }] },
    ]);
  });

  it('3.1: type arrays and const pass through', () => {
    const op = onlyOperation(
      {
        openapi: '3.1.0',
        info: { title: 'T', version: '1' },
        paths: { '/x': { get: { parameters: [{ name: 'q', in: 'query', schema: { type: ['string', 'null'], const: 'a' } }], responses: ok } } },
      },
      'oas31',
    );
    expect(op.parameters[0]?.schema).toStrictEqual({ type: ['string', 'null'], const: 'a' });
  });
});

describe('openApi3ToModel: component schemas', () => {
  /** What swagger-parser's dereference leaves for `Node: { children: [$ref Node] }`: an object cycle. */
  function cyclicDoc(): { d: Doc; node: Doc } {
    const node: Doc = { type: 'object', properties: { name: { type: 'string' } } };
    (node.properties as Doc).children = { type: 'array', items: node };
    (node.properties as Doc).parent = { allOf: [node], nullable: true };
    const pet: Doc = { type: 'object', properties: { id: { type: 'integer' } } };
    const d = doc(
      {
        '/tree': {
          get: { operationId: 'getTree', responses: { '200': { description: 'The tree', content: { 'application/json': { schema: node } } } } },
          put: {
            operationId: 'putTree',
            requestBody: { required: true, content: { 'application/json': { schema: node } } },
            responses: { '200': { description: 'Pets', content: { 'application/json': { schema: { type: 'array', items: pet } } } } },
          },
        },
      },
      { components: { schemas: { Node: node, Pet: pet } } },
    );
    return { d, node };
  }

  it('records component names by the identity of the converted schemas the operations use', () => {
    const { d } = cyclicDoc();
    const m = openApi3ToModel(deepFreeze(d), 'oas30');
    const [get, put] = m.operations;
    const treeSchema = get!.responses[0]!.contents[0]!.schema!;
    expect(m.schemaNames.get(treeSchema)).toBe('Node');
    expect(put!.requestBody!.contents[0]!.schema).toBe(treeSchema);
    const petItems = (put!.responses[0]!.contents[0]!.schema as Schema).items as Schema;
    expect(m.schemaNames.get(petItems)).toBe('Pet');
  });

  it('keeps a recursive schema cyclic in the same place', () => {
    const { d } = cyclicDoc();
    const m = openApi3ToModel(deepFreeze(d), 'oas30');
    const tree = m.operations[0]!.responses[0]!.contents[0]!.schema!;
    const props = tree.properties as Record<string, Schema>;
    expect((props.children as Schema).items).toBe(tree);
    expect(props.parent).toStrictEqual({ anyOf: [{ allOf: [tree] }, { type: 'null' }] });
  });

  it('plans tools over the cyclic model with $defs named after the component', () => {
    const { d } = cyclicDoc();
    const tools = planTools(openApi3ToModel(deepFreeze(d), 'oas30'));
    expect(tools.map((t) => t.name)).toEqual(['getTree', 'putTree']);
    const out = tools[0]!.output!.schema;
    expect(Object.keys(out.$defs as object)).toEqual(['Node']);
    expect(JSON.stringify(tools)).toContain('"$ref":"#/$defs/Node"');
    expect(Object.keys(tools[1]!.inputSchema.$defs as object)).toEqual(['Node']);
  });
});
