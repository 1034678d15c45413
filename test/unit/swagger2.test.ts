import { describe, expect, it } from 'vitest';
import { collectionStyle, swagger2ToModel } from '../../src/load/swagger2.js';
import type { ApiOperation, ParameterLocation, Schema } from '../../src/model/api-model.js';
import { deepFreeze } from './model-factory.js';

type Doc = Record<string, unknown>;

function doc(paths: Doc, extra: Doc = {}): Doc {
  return { swagger: '2.0', info: { title: 'Pets', version: '1.0.0' }, paths, ...extra };
}

const ok = { '200': { description: 'OK' } };

function onlyOperation(d: Doc): ApiOperation {
  const m = swagger2ToModel(deepFreeze(d));
  expect(m.operations).toHaveLength(1);
  return m.operations[0]!;
}

describe('swagger2ToModel: base URL', () => {
  it.each<[string, Doc, string]>([
    ['host, basePath and https', { host: 'api.test', basePath: '/v2', schemes: ['https'] }, 'https://api.test/v2'],
    ['https preferred over http', { host: 'api.test', basePath: '/v2', schemes: ['http', 'https'] }, 'https://api.test/v2'],
    ['http only', { host: 'api.test:8080', schemes: ['http'] }, 'http://api.test:8080'],
    ['no schemes: https', { host: 'api.test', basePath: '/api' }, 'https://api.test/api'],
    ['no host: basePath only (relative)', { basePath: '/v2', schemes: ['http'] }, '/v2'],
    ['nothing', {}, '/'],
  ])('%s', (_, extra, want) => {
    expect(swagger2ToModel(doc({}, extra)).baseUrl).toBe(want);
  });

  it('takes title, version and description from info', () => {
    const m = swagger2ToModel(doc({}, { info: { title: 'Petstore', version: '9', description: 'Pets.' } }));
    expect([m.title, m.version, m.description]).toEqual(['Petstore', '9', 'Pets.']);
  });
});

describe('swagger2ToModel: parameters', () => {
  it('turns the parameter’s own fields into its schema, in the JSON Schema 2020-12 dialect', () => {
    const op = onlyOperation(
      doc({
        '/pets/{id}': {
          get: {
            parameters: [
              { name: 'id', in: 'path', type: 'integer', format: 'int64', minimum: 1, exclusiveMinimum: true, description: 'Pet id' },
              { name: 'status', in: 'query', required: true, type: 'string', enum: ['a', 'b'], default: 'a', 'x-nullable': true },
              { name: 'X-Rate', in: 'header', type: 'number', maximum: 5, example: 2 },
            ],
            responses: ok,
          },
        },
      }),
    );
    expect(op.parameters).toStrictEqual([
      {
        name: 'id',
        in: 'path',
        required: true,
        description: 'Pet id',
        schema: { type: 'integer', format: 'int64', exclusiveMinimum: 1, description: 'Pet id' },
        style: 'simple',
        explode: false,
      },
      {
        name: 'status',
        in: 'query',
        required: true,
        description: undefined,
        schema: { type: ['string', 'null'], enum: ['a', 'b', null], default: 'a' },
        style: 'form',
        explode: true,
      },
      {
        name: 'X-Rate',
        in: 'header',
        required: false,
        description: undefined,
        schema: { type: 'number', maximum: 5, examples: [2] },
        style: 'simple',
        explode: false,
      },
    ]);
  });

  it('merges path-level parameters, with the operation level winning', () => {
    const op = onlyOperation(
      doc({
        '/pets/{id}': {
          parameters: [
            { name: 'id', in: 'path', required: true, type: 'string' },
            { name: 'q', in: 'query', type: 'string', description: 'path-level' },
          ],
          get: { parameters: [{ name: 'q', in: 'query', type: 'string', description: 'operation-level' }], responses: ok },
        },
      }),
    );
    expect(op.parameters.map((p) => [p.in, p.name, p.description])).toEqual([
      ['path', 'id', undefined],
      ['query', 'q', 'operation-level'],
    ]);
  });

  it.each<[string, ParameterLocation, string | undefined, string]>([
    ['csv', 'query', 'csv', 'form:false'],
    ['default (csv)', 'query', undefined, 'form:false'],
    ['ssv', 'query', 'ssv', 'spaceDelimited:false'],
    ['tsv', 'query', 'tsv', 'tabDelimited:false'],
    ['pipes', 'query', 'pipes', 'pipeDelimited:false'],
    ['multi', 'query', 'multi', 'form:true'],
    ['csv in the path', 'path', 'csv', 'simple:false'],
    ['csv in a header', 'header', 'csv', 'simple:false'],
  ])('array collectionFormat %s in %s → style:explode %s', (_, location, collectionFormat, want) => {
    const path = location === 'path' ? '/x/{ids}' : '/x';
    const op = onlyOperation(
      doc({
        [path]: {
          get: {
            parameters: [{ name: 'ids', in: location, required: location === 'path', type: 'array', items: { type: 'string' }, ...(collectionFormat ? { collectionFormat } : {}) }],
            responses: ok,
          },
        },
      }),
    );
    const p = op.parameters[0]!;
    expect(`${p.style}:${p.explode}`).toBe(want);
    expect(p.schema).toStrictEqual({ type: 'array', items: { type: 'string' } });
  });

  it('a scalar parameter ignores collectionFormat and gets the location default', () => {
    const op = onlyOperation(doc({ '/x': { get: { parameters: [{ name: 'q', in: 'query', type: 'string', collectionFormat: 'pipes' }], responses: ok } } }));
    expect(op.parameters[0]).toMatchObject({ style: 'form', explode: true });
  });

  it.each<[ParameterLocation, string | undefined, { style: string; explode: boolean }]>([
    ['query', undefined, { style: 'form', explode: true }],
    ['path', undefined, { style: 'simple', explode: false }],
    ['header', undefined, { style: 'simple', explode: false }],
    ['query', 'csv', { style: 'form', explode: false }],
    ['path', 'csv', { style: 'simple', explode: false }],
    ['query', 'multi', { style: 'form', explode: true }],
    ['query', 'ssv', { style: 'spaceDelimited', explode: false }],
    ['query', 'tsv', { style: 'tabDelimited', explode: false }],
    ['query', 'pipes', { style: 'pipeDelimited', explode: false }],
  ])('collectionStyle(%s, %s) → %o', (location, format, want) => {
    expect(collectionStyle(location, format)).toStrictEqual(want);
  });
});

describe('swagger2ToModel: request bodies', () => {
  it('turns the body parameter into a request body with the consumes media types', () => {
    const pet = { type: 'object', properties: { name: { type: 'string' } } };
    const op = onlyOperation(
      doc(
        { '/pets': { post: { parameters: [{ name: 'pet', in: 'body', required: true, description: 'The pet', schema: pet }], responses: ok } } },
        { consumes: ['application/json', 'application/xml'] },
      ),
    );
    expect(op.parameters).toEqual([]);
    expect(op.requestBody).toStrictEqual({
      required: true,
      description: 'The pet',
      contents: [
        { mediaType: 'application/json', schema: pet },
        { mediaType: 'application/xml', schema: pet },
      ],
    });
    expect(op.requestBody!.contents[0]!.schema).toBe(op.requestBody!.contents[1]!.schema);
  });

  it('operation-level consumes override the document’s; none means application/json', () => {
    const body = [{ name: 'b', in: 'body', schema: { type: 'object' } }];
    const withOverride = onlyOperation(
      doc({ '/x': { put: { consumes: ['application/merge-patch+json'], parameters: body, responses: ok } } }, { consumes: ['application/xml'] }),
    );
    expect(withOverride.requestBody?.contents.map((c) => c.mediaType)).toEqual(['application/merge-patch+json']);
    const withNone = onlyOperation(doc({ '/x': { put: { parameters: body, responses: ok } } }));
    expect(withNone.requestBody).toMatchObject({ required: false, contents: [{ mediaType: 'application/json' }] });
  });

  it('turns formData parameters into one urlencoded object body', () => {
    const op = onlyOperation(
      doc({
        '/pets/{id}': {
          post: {
            parameters: [
              { name: 'id', in: 'path', required: true, type: 'integer' },
              { name: 'name', in: 'formData', required: true, type: 'string', description: 'New name' },
              { name: 'age', in: 'formData', type: 'integer', minimum: 0 },
            ],
            responses: ok,
          },
        },
      }),
    );
    expect(op.parameters.map((p) => p.name)).toEqual(['id']);
    expect(op.requestBody).toStrictEqual({
      required: true,
      contents: [
        {
          mediaType: 'application/x-www-form-urlencoded',
          schema: {
            type: 'object',
            properties: { name: { type: 'string', description: 'New name' }, age: { type: 'integer', minimum: 0 } },
            required: ['name'],
          },
        },
      ],
    });
  });

  it('a form with a file parameter is multipart, and the file a binary string', () => {
    const op = onlyOperation(
      doc({
        '/upload': {
          post: {
            parameters: [
              { name: 'file', in: 'formData', type: 'file' },
              { name: 'note', in: 'formData', type: 'string' },
            ],
            responses: ok,
          },
        },
      }),
    );
    expect(op.requestBody).toStrictEqual({
      required: false,
      contents: [
        {
          mediaType: 'multipart/form-data',
          schema: {
            type: 'object',
            properties: { file: { type: 'string', format: 'binary' }, note: { type: 'string' } },
          },
        },
      ],
    });
  });

  it('a form follows the form media types the operation declares', () => {
    const op = onlyOperation(
      doc({
        '/x': {
          post: {
            consumes: ['application/json', 'multipart/form-data'],
            parameters: [{ name: 'a', in: 'formData', type: 'string' }],
            responses: ok,
          },
        },
      }),
    );
    expect(op.requestBody?.contents.map((c) => c.mediaType)).toEqual(['multipart/form-data']);
  });
});

describe('swagger2ToModel: responses', () => {
  it('gives each response with a schema the produces media types, and none without a schema', () => {
    const pet = { type: 'object', properties: { id: { type: 'integer' } } };
    const op = onlyOperation(
      doc(
        {
          '/pets': {
            get: {
              responses: {
                '200': { description: 'Pets', schema: { type: 'array', items: pet } },
                '204': { description: 'Nothing' },
                default: { description: 'Error', schema: { type: 'object', 'x-nullable': true } },
              },
            },
          },
        },
        { produces: ['application/json', 'application/xml'] },
      ),
    );
    expect(op.responses).toStrictEqual([
      {
        status: '200',
        description: 'Pets',
        contents: [
          { mediaType: 'application/json', schema: { type: 'array', items: pet } },
          { mediaType: 'application/xml', schema: { type: 'array', items: pet } },
        ],
      },
      { status: '204', description: 'Nothing', contents: [] },
      {
        status: 'default',
        description: 'Error',
        contents: [
          { mediaType: 'application/json', schema: { type: ['object', 'null'] } },
          { mediaType: 'application/xml', schema: { type: ['object', 'null'] } },
        ],
      },
    ]);
  });

  it('operation-level produces override; none means application/json', () => {
    const responses = { '200': { description: 'OK', schema: { type: 'string' } } };
    const overridden = onlyOperation(doc({ '/x': { get: { produces: ['text/plain'], responses } } }, { produces: ['application/json'] }));
    expect(overridden.responses[0]?.contents.map((c) => c.mediaType)).toEqual(['text/plain']);
    const none = onlyOperation(doc({ '/x': { get: { responses } } }));
    expect(none.responses[0]?.contents.map((c) => c.mediaType)).toEqual(['application/json']);
  });
});

describe('swagger2ToModel: definitions', () => {
  it('names definitions by identity and keeps recursive ones cyclic', () => {
    const category: Doc = { type: 'object', properties: { name: { type: 'string' } } };
    (category.properties as Doc).sub = { type: 'array', items: category };
    const m = swagger2ToModel(
      deepFreeze(
        doc(
          { '/c': { get: { operationId: 'getCategory', responses: { '200': { description: 'OK', schema: category } } } } },
          { definitions: { Category: category } },
        ),
      ),
    );
    const op = m.operations[0]!;
    const schema = op.responses[0]!.contents[0]!.schema!;
    expect(m.schemaNames.get(schema)).toBe('Category');
    expect(((schema.properties as Record<string, Schema>).sub as Schema).items).toBe(schema);
    expect(op).toMatchObject({ operationId: 'getCategory', method: 'GET', path: '/c', pointer: '/paths/~1c/get' });
  });
});
