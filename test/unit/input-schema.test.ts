import { describe, expect, it } from 'vitest';
import { buildToolInput } from '../../src/tools/input-schema.js';
import { isJsonMediaType, preferredBodyMediaType } from '../../src/tools/media-types.js';
import type { Schema } from '../../src/model/api-model.js';
import { accepts, compile } from './json-schema.js';
import { body, names, operation, parameter, petSchema, treeSchema } from './model-factory.js';

const noNames = new Map<Schema, string>();

describe('buildToolInput: parameters', () => {
  it('turns each parameter into a property with its constraints, description and requiredness', () => {
    const op = operation('GET', '/pets/{petId}', {
      parameters: [
        parameter('petId', 'path', { type: 'integer', minimum: 1 }, { description: 'The pet’s id' }),
        parameter('limit', 'query', { type: 'integer', maximum: 100, default: 20, description: 'schema text' }, {
          description: '  Page size  ',
        }),
        parameter('tags', 'query', { type: 'array', items: { type: 'string', enum: ['a', 'b'] } }, { required: true }),
        parameter('X-Trace', 'header', { type: 'string', format: 'uuid' }, { deprecated: true }),
        parameter('session', 'cookie'),
      ],
    });
    const { schema, bindings, body: bodyInfo } = buildToolInput(op, noNames);
    const bodyMediaType = bodyInfo?.mediaType;
    expect(schema).toStrictEqual({
      type: 'object',
      properties: {
        petId: { type: 'integer', minimum: 1, description: 'The pet’s id' },
        limit: { type: 'integer', maximum: 100, default: 20, description: 'Page size' },
        tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] } },
        'X-Trace': { type: 'string', format: 'uuid', deprecated: true },
        session: { type: 'string' },
      },
      required: ['petId', 'tags'],
      additionalProperties: false,
    });
    expect(bindings).toStrictEqual([
      { arg: 'petId', in: 'path', name: 'petId', style: 'simple', explode: false },
      { arg: 'limit', in: 'query', name: 'limit', style: 'form', explode: true },
      { arg: 'tags', in: 'query', name: 'tags', style: 'form', explode: true },
      { arg: 'X-Trace', in: 'header', name: 'X-Trace', style: 'simple', explode: false },
      { arg: 'session', in: 'cookie', name: 'session', style: 'form', explode: true },
    ]);
    expect(bodyMediaType).toBeUndefined();
    expect(accepts(schema, { petId: 1, tags: ['a'] })).toBe(true);
    expect(accepts(schema, { petId: 0, tags: ['a'] })).toBe(false);
    expect(accepts(schema, { tags: ['a'] })).toBe(false);
    expect(accepts(schema, { petId: 1, tags: ['a'], unknown: 1 })).toBe(false);
  });

  it('has no required list and no $defs when nothing needs them', () => {
    const { schema } = buildToolInput(operation('GET', '/pets', { parameters: [parameter('q', 'query')] }), noNames);
    expect(schema).toStrictEqual({ type: 'object', properties: { q: { type: 'string' } }, additionalProperties: false });
  });

  it('an operation without parameters has an empty object schema', () => {
    const { schema, bindings } = buildToolInput(operation('GET', '/health'), noNames);
    expect(schema).toStrictEqual({ type: 'object', properties: {}, additionalProperties: false });
    expect(bindings).toEqual([]);
  });

  it.each([
    ['form, explode false', { style: 'form', explode: false } as const],
    ['spaceDelimited', { style: 'spaceDelimited', explode: false } as const],
    ['pipeDelimited', { style: 'pipeDelimited', explode: false } as const],
    ['deepObject', { style: 'deepObject', explode: true } as const],
  ])('carries the serialization (%s) into the binding', (_, serialization) => {
    const op = operation('GET', '/x', { parameters: [parameter('f', 'query', { type: 'array' }, serialization)] });
    expect(buildToolInput(op, noNames).bindings[0]).toStrictEqual({ arg: 'f', in: 'query', name: 'f', ...serialization });
  });

  it('carries allowReserved only when set', () => {
    const op = operation('GET', '/x', {
      parameters: [parameter('a', 'query', {}, { allowReserved: true }), parameter('b', 'query')],
    });
    const [a, b] = buildToolInput(op, noNames).bindings;
    expect(a).toHaveProperty('allowReserved', true);
    expect(b).not.toHaveProperty('allowReserved');
  });

  it('sanitizes argument names and keeps the wire name in the binding', () => {
    const op = operation('GET', '/x', { parameters: [parameter('filter[name]', 'query'), parameter('$top', 'query')] });
    const { schema, bindings } = buildToolInput(op, noNames);
    expect(Object.keys(schema.properties as object)).toEqual(['filter_name', 'top']);
    expect(bindings.map((b) => [b.arg, 'name' in b ? b.name : undefined])).toEqual([
      ['filter_name', 'filter[name]'],
      ['top', '$top'],
    ]);
  });
});

describe('buildToolInput: name clashes (path > query > header > cookie > body)', () => {
  const argsOf = (...params: Parameters<typeof parameter>[]) => {
    const op = operation('POST', '/x', { parameters: params.map((p) => parameter(...p)) });
    return buildToolInput(op, noNames).bindings.map((b) => `${b.in}:${'name' in b ? b.name : ''}→${b.arg}`);
  };

  it.each<[string, Parameters<typeof parameter>[], (string | RegExp)[]]>([
    ['path before header', [['id', 'header'], ['id', 'path']], ['path:id→id', 'header:id→header_id']],
    ['query before header', [['id', 'header'], ['id', 'query']], ['query:id→id', 'header:id→header_id']],
    ['header before cookie', [['id', 'cookie'], ['id', 'header']], ['header:id→id', 'cookie:id→cookie_id']],
    [
      'all four locations',
      [['id', 'cookie'], ['id', 'header'], ['id', 'query'], ['id', 'path']],
      ['path:id→id', 'query:id→query_id', 'header:id→header_id', 'cookie:id→cookie_id'],
    ],
    ['names that clash after sanitizing', [['a[b]', 'query'], ['a_b', 'path']], ['path:a_b→a_b', 'query:a[b]→query_a_b']],
    [
      'a prefixed name that is itself taken',
      [['id', 'path'], ['header_id', 'query'], ['id', 'header']],
      ['path:id→id', 'query:header_id→header_id', /^header:id→header_id_[0-9a-f]{6}$/],
    ],
  ])('%s', (_, params, want) => {
    const got = argsOf(...params);
    expect(got).toEqual(want.map((w) => (typeof w === 'string' ? w : expect.stringMatching(w))));
    const args = got.map((g) => g.split('→')[1]);
    expect(new Set(args).size).toBe(args.length);
  });

  it('a request body yields `body` to a parameter of that name', () => {
    const op = operation('POST', '/x', {
      parameters: [parameter('body', 'query')],
      requestBody: body({ type: 'object' }, { required: true }),
    });
    const { schema, bindings } = buildToolInput(op, noNames);
    expect(bindings).toStrictEqual([
      { arg: 'body', in: 'query', name: 'body', style: 'form', explode: true },
      { arg: 'request_body', in: 'body' },
    ]);
    expect(schema.required).toEqual(['request_body']);
    expect(Object.keys(schema.properties as object)).toEqual(['body', 'request_body']);
  });

  it('an `id` in the path and one in the body never clash: body fields stay under `body`', () => {
    const op = operation('PUT', '/pets/{id}', {
      parameters: [parameter('id', 'path')],
      requestBody: body({ type: 'object', properties: { id: { type: 'string' } } }),
    });
    const { schema } = buildToolInput(op, noNames);
    expect(Object.keys(schema.properties as object)).toEqual(['id', 'body']);
  });
});

describe('buildToolInput: request body', () => {
  it('puts the body under `body`, required when the request body is', () => {
    const op = operation('POST', '/pets', {
      requestBody: body(petSchema(), { required: true, description: 'The new pet' }),
    });
    const { schema, bindings, body: bodyInfo } = buildToolInput(op, noNames);
    const bodyMediaType = bodyInfo?.mediaType;
    expect(schema).toStrictEqual({
      type: 'object',
      properties: {
        body: {
          type: 'object',
          properties: { name: { type: 'string', minLength: 1 }, secret: { type: 'string', writeOnly: true } },
          required: ['name'],
          description: 'The new pet',
        },
      },
      required: ['body'],
      additionalProperties: false,
    });
    expect(bindings).toStrictEqual([{ arg: 'body', in: 'body' }]);
    expect(bodyMediaType).toBe('application/json');
    expect(accepts(schema, { body: { name: 'Rex' } })).toBe(true);
    expect(accepts(schema, { body: { id: 1, name: 'Rex' } })).toBe(true); // readOnly id left out, not forbidden
    expect(accepts(schema, {})).toBe(false);
  });

  it('an optional body is not required and gets a default description', () => {
    const { schema } = buildToolInput(operation('PATCH', '/x', { requestBody: body({ type: 'object' }) }), noNames);
    expect(schema.required).toBeUndefined();
    expect((schema.properties as Record<string, Schema>).body).toStrictEqual({ type: 'object', description: 'The request body.' });
  });

  it('an octet-stream body without a schema is a file argument (base64 data, name, media type)', () => {
    const op = operation('POST', '/upload', { requestBody: body([{ mediaType: 'application/octet-stream' }]) });
    const { schema, body: bodyInfo } = buildToolInput(op, noNames);
    const file = (schema.properties as Record<string, Schema>).body as Schema;
    expect(Object.keys(file.properties as object)).toEqual(['data', 'filename', 'mimeType']);
    expect(file.required).toEqual(['data']);
    expect(file.description).toMatch(/^The request body\. A file/);
    expect(bodyInfo).toEqual({ mediaType: 'application/octet-stream', encoding: 'binary' });
  });

  it.each<[string, Schema | undefined, string]>([
    ['application/json', { type: 'object' }, 'json'],
    ['application/problem+json', { type: 'object' }, 'json'],
    ['application/x-www-form-urlencoded', { type: 'object' }, 'form'],
    ['multipart/form-data', { type: 'object' }, 'multipart'],
    ['text/plain', { type: 'string' }, 'text'],
    ['application/xml', { type: 'object' }, 'text'],
    ['image/png', { type: 'string', format: 'binary' }, 'binary'],
    ['application/octet-stream', undefined, 'binary'],
    ['application/x-custom', { type: 'string' }, 'text'],
  ])('%s with %j is encoded as %s', (mediaType, schema, want) => {
    const op = operation('POST', '/x', { requestBody: body([{ mediaType, ...(schema ? { schema } : {}) }]) });
    expect(buildToolInput(op, noNames).body?.encoding).toBe(want);
  });

  it('multipart: binary fields and arrays of them are file fields, with the spec\'s field encodings', () => {
    const schema: Schema = {
      type: 'object',
      properties: {
        note: { type: 'string' },
        photo: { type: 'string', format: 'binary' },
        extras: { type: 'array', items: { type: 'string', format: 'binary' } },
      },
    };
    const encoding = { photo: { contentType: 'image/png' } };
    const op = operation('POST', '/x', { requestBody: body([{ mediaType: 'multipart/form-data', schema, encoding }]) });
    const input = buildToolInput(op, noNames);
    expect(input.body).toEqual({ mediaType: 'multipart/form-data', encoding: 'multipart', fileFields: ['photo', 'extras'], fieldEncodings: encoding });
    const fields = ((input.schema.properties as Record<string, Schema>).body as Schema).properties as Record<string, Schema>;
    expect(fields.note).toEqual({ type: 'string' });
    expect((fields.photo?.properties as Record<string, Schema>).data?.contentEncoding).toBe('base64');
    expect(((fields.extras?.items as Schema).properties as Record<string, Schema>).data).toBeDefined();
  });

  it('--prefer-media-type overrides the default preference', () => {
    const op = operation('POST', '/x', {
      requestBody: body([{ mediaType: 'application/json', schema: { type: 'object' } }, { mediaType: 'application/xml', schema: { type: 'object' } }]),
    });
    expect(buildToolInput(op, noNames, { preferMediaTypes: ['application/xml'] }).body?.mediaType).toBe('application/xml');
    expect(buildToolInput(op, noNames).body?.mediaType).toBe('application/json');
  });

  it('a request body with no content at all adds no argument', () => {
    const { schema, bindings, body: bodyInfo } = buildToolInput(operation('POST', '/x', { requestBody: body([]) }), noNames);
    const bodyMediaType = bodyInfo?.mediaType;
    expect(schema.properties).toEqual({});
    expect(bindings).toEqual([]);
    expect(bodyMediaType).toBeUndefined();
  });

  it.each<[string, string[], string]>([
    ['application/json over anything listed before it', ['text/plain', 'application/xml', 'application/json'], 'application/json'],
    ['application/json over +json', ['application/vnd.api+json', 'application/json'], 'application/json'],
    ['+json over forms and text', ['text/plain', 'multipart/form-data', 'application/merge-patch+json'], 'application/merge-patch+json'],
    ['json with parameters', ['text/plain', 'application/json; charset=utf-8'], 'application/json; charset=utf-8'],
    ['urlencoded over multipart', ['multipart/form-data', 'application/x-www-form-urlencoded'], 'application/x-www-form-urlencoded'],
    ['multipart over text', ['text/plain', 'multipart/form-data'], 'multipart/form-data'],
    ['text over other types', ['application/octet-stream', 'text/csv'], 'text/csv'],
    ['the first one otherwise', ['application/pdf', 'application/octet-stream'], 'application/pdf'],
    ['*/* is no preference: the first listed', ['*/*', 'application/xml'], '*/*'],
  ])('bodyMediaType: %s', (_, mediaTypes, want) => {
    const op = operation('POST', '/x', {
      requestBody: body(mediaTypes.map((mediaType) => ({ mediaType, schema: { type: 'object', title: mediaType } }))),
    });
    const input = buildToolInput(op, noNames);
    expect(input.body?.mediaType).toBe(want);
    // the body argument follows the chosen media type's schema (raw-bytes types take a file instead)
    if (input.body?.encoding !== 'binary') {
      expect(((input.schema.properties as Record<string, Schema>).body as Schema).title).toBe(want);
    }
  });

  it('a recursive body schema puts $defs at the root of the input schema', () => {
    const node = treeSchema();
    const op = operation('POST', '/trees', {
      parameters: [parameter('dryRun', 'query', { type: 'boolean' })],
      requestBody: body({ type: 'object', properties: { root: node } }, { required: true }),
    });
    const { schema } = buildToolInput(op, names({ Node: node }));
    expect(Object.keys(schema.$defs as object)).toEqual(['Node']);
    expect(((schema.properties as Record<string, Schema>).body as Schema).properties).toStrictEqual({
      root: { $ref: '#/$defs/Node' },
    });
    compile(schema);
    expect(accepts(schema, { body: { root: { value: 'a', children: [{ value: 'b' }] } } })).toBe(true);
    expect(accepts(schema, { body: { root: { value: 'a', children: [{ value: 2 }] } } })).toBe(false);
  });
});

describe('media types', () => {
  it.each([
    ['application/json', true],
    ['Application/JSON; charset=utf-8', true],
    ['application/problem+json', true],
    ['*/*', true],
    ['application/xml', false],
    ['text/json-ish', false],
  ])('isJsonMediaType(%j) = %s', (mediaType, want) => {
    expect(isJsonMediaType(mediaType)).toBe(want);
  });

  it('preferredBodyMediaType of nothing is undefined', () => {
    expect(preferredBodyMediaType([])).toBeUndefined();
  });
});
