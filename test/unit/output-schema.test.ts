import { describe, expect, it } from 'vitest';
import { WRAP_KEY, buildToolOutput, isObjectRoot, successResponse } from '../../src/tools/output-schema.js';
import type { ApiResponse, HttpMethod, Schema } from '../../src/model/api-model.js';
import { accepts, compile } from './json-schema.js';
import { names, operation, petSchema, response, treeSchema } from './model-factory.js';

const noNames = new Map<Schema, string>();
const outputFor = (schema: Schema, method: HttpMethod = 'GET', schemaNames = noNames) =>
  buildToolOutput(operation(method, '/x', { responses: [response('200', schema)] }), schemaNames);

describe('buildToolOutput: object roots are used directly', () => {
  it.each<[string, Schema, Schema]>([
    [
      'type: object',
      { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'] },
      { type: 'object', properties: { id: { type: 'integer' } } },
    ],
    ['object keywords without a type', { properties: { a: { type: 'string' } } }, { properties: { a: { type: 'string' } }, type: 'object' }],
    ['additionalProperties map', { additionalProperties: { type: 'integer' } }, { additionalProperties: { type: 'integer' }, type: 'object' }],
    [
      'allOf with an object member',
      { allOf: [{ type: 'object', properties: { a: { type: 'string' } } }, { description: 'extra' }] },
      { allOf: [{ type: 'object', properties: { a: { type: 'string' } } }, { description: 'extra' }], type: 'object' },
    ],
    [
      'oneOf whose members are all objects (relaxed to anyOf: output schemas describe shape)',
      { oneOf: [{ type: 'object', properties: { a: {} } }, { type: 'object', properties: { b: {} } }] },
      { anyOf: [{ type: 'object', properties: { a: {} } }, { type: 'object', properties: { b: {} } }], type: 'object' },
    ],
  ])('%s', (_, given, want) => {
    const output = outputFor(given);
    expect(output).toStrictEqual({ schema: want });
    compile(output!.schema);
  });

  it('a discriminated oneOf (enums dropped) still accepts each branch, and `not` is dropped', () => {
    const cat = { type: 'object', properties: { petType: { type: 'string', enum: ['cat'] }, meows: { type: 'boolean' } } };
    const dog = { type: 'object', properties: { petType: { type: 'string', enum: ['dog'] }, barks: { type: 'boolean' } } };
    const output = outputFor({ oneOf: [cat, dog], discriminator: { propertyName: 'petType' } });
    expect(accepts(output!.schema, { petType: 'cat', meows: true })).toBe(true);
    const person = outputFor({ type: 'object', properties: { name: { type: 'string', not: { enum: ['root'] } } } });
    expect(JSON.stringify(person)).not.toContain('"not"');
    expect(accepts(person!.schema, { name: 'ann' })).toBe(true);
  });

  it('drops writeOnly properties and value constraints from the object', () => {
    expect(outputFor(petSchema())).toStrictEqual({
      schema: { type: 'object', properties: { id: { type: 'integer', readOnly: true }, name: { type: 'string' } } },
    });
  });

  it('an object root whose inner parts recurse carries $defs', () => {
    const node = treeSchema();
    const output = outputFor(node, 'GET', names({ Node: node }));
    expect(output?.wrapKey).toBeUndefined();
    expect(Object.keys(output!.schema.$defs as object)).toEqual(['Node']);
    expect(accepts(output!.schema, { value: 'a', children: [{ value: 'b', children: [] }] })).toBe(true);
  });
});

describe('buildToolOutput: everything else is wrapped under `result`', () => {
  it.each<[string, Schema]>([
    ['array', { type: 'array', items: { type: 'object', properties: { id: { type: 'integer' } } } }],
    ['string', { type: 'string' }],
    ['integer', { type: 'integer' }],
    ['boolean', { type: 'boolean' }],
    ['nullable object', { type: ['object', 'null'], properties: { a: { type: 'string' } } }],
    ['oneOf with a non-object member', { oneOf: [{ type: 'object', properties: { a: {} } }, { type: 'string' }] }],
    ['anyOf object | null', { anyOf: [{ type: 'object', properties: { a: {} } }, { type: 'null' }] }],
    ['allOf without an object member', { allOf: [{ type: 'string' }, { minLength: 1 }] }],
    ['empty schema', {}],
  ])('%s', (_, given) => {
    const output = outputFor(given);
    expect(output?.wrapKey).toBe(WRAP_KEY);
    expect(WRAP_KEY).toBe('result');
    expect(output?.schema.type).toBe('object');
    expect(Object.keys(output?.schema.properties as object)).toEqual(['result']);
    expect(output?.schema).not.toHaveProperty('required');
    compile(output!.schema);
  });

  it('wraps an array of a recursive type with $defs at the wrapper root', () => {
    const node = treeSchema();
    const output = outputFor({ type: 'array', items: node }, 'GET', names({ Node: node }));
    expect(output).toStrictEqual({
      schema: {
        type: 'object',
        properties: { result: { type: 'array', items: { $ref: '#/$defs/Node' } } },
        $defs: {
          Node: {
            type: 'object',
            properties: { value: { type: 'string' }, children: { type: 'array', items: { $ref: '#/$defs/Node' } } },
          },
        },
      },
      wrapKey: 'result',
    });
    expect(accepts(output!.schema, { result: [{ value: 'a', children: [] }] })).toBe(true);
    expect(accepts(output!.schema, { result: [{ value: 1 }] })).toBe(false);
  });

  it('keeps the wrapped value’s shape and drops its constraints', () => {
    expect(outputFor({ type: 'array', items: { type: 'string', format: 'uuid' }, minItems: 1 })).toStrictEqual({
      schema: { type: 'object', properties: { result: { type: 'array', items: { type: 'string' } } } },
      wrapKey: 'result',
    });
  });
});

describe('successResponse', () => {
  const statusOf = (...statuses: string[]) =>
    successResponse(operation('GET', '/x', { responses: statuses.map((s) => response(s)) }))?.status;

  it.each<[string[], string | undefined]>([
    [['200'], '200'],
    [['201', '200'], '200'],
    [['default', '204', '201'], '201'],
    [['2XX', '404'], '2XX'],
    [['2XX', '202'], '202'],
    [['2xx'], '2xx'],
    [['400', 'default'], undefined],
    [['301', '199', '300'], undefined],
    [[], undefined],
  ])('%j → %j', (statuses, want) => {
    expect(statusOf(...statuses)).toBe(want);
  });
});

describe('buildToolOutput: no output schema', () => {
  const obj: Schema = { type: 'object', properties: { a: { type: 'string' } } };

  it.each<[string, HttpMethod, ApiResponse[]]>([
    ['no responses', 'GET', []],
    ['only an error response', 'GET', [response('404', obj), response('default', obj)]],
    ['a success without content', 'DELETE', [response('204')]],
    ['non-JSON content', 'GET', [response('200', undefined, { contents: [{ mediaType: 'application/xml', schema: obj }] })]],
    ['JSON without a schema', 'GET', [response('200', undefined, { contents: [{ mediaType: 'application/json' }] })]],
    ['HEAD, even with a JSON schema', 'HEAD', [response('200', obj)]],
  ])('%s → undefined', (_, method, responses) => {
    expect(buildToolOutput(operation(method, '/x', { responses }), noNames)).toBeUndefined();
  });

  it('takes the JSON schema of a later 2xx when the lowest has none', () => {
    const op = operation('POST', '/x', {
      responses: [response('202'), response('201', undefined, { contents: [{ mediaType: 'text/plain', schema: { type: 'string' } }] }), response('203', { type: 'object', title: 'later' })],
    });
    expect(buildToolOutput(op, noNames)?.schema.title).toBe('later');
  });

  it('unions the JSON schemas of all 2xx responses, lowest status first', () => {
    const op = operation('POST', '/x', {
      responses: [response('201', { type: 'object', title: 'created' }), response('200', { type: 'object', title: 'ok' })],
    });
    const schema = buildToolOutput(op, noNames)?.schema;
    expect(schema?.type).toBe('object');
    expect((schema?.anyOf as Schema[]).map((s) => s.title)).toEqual(['ok', 'created']);
  });

  it('a lone default response describes success', () => {
    const op = operation('GET', '/x', { responses: [response('default', { type: 'object', title: 'any' })] });
    expect(buildToolOutput(op, noNames)?.schema.title).toBe('any');
  });

  it('unions every JSON-ish content of the success response, skipping non-JSON', () => {
    const op = operation('GET', '/x', {
      responses: [
        response('200', undefined, {
          contents: [
            { mediaType: 'application/xml', schema: { type: 'object', title: 'xml' } },
            { mediaType: 'application/hal+json', schema: { type: 'object', title: 'hal' } },
            { mediaType: 'application/json', schema: { type: 'object', title: 'json' } },
          ],
        }),
      ],
    });
    expect((buildToolOutput(op, noNames)?.schema.anyOf as Schema[]).map((s) => s.title)).toEqual(['hal', 'json']);
  });
});

describe('isObjectRoot', () => {
  it.each<[Schema, boolean]>([
    [{ type: 'object' }, true],
    [{ type: 'array' }, false],
    [{ type: ['object', 'null'] }, false],
    [{ properties: {} }, true],
    [{ patternProperties: {} }, true],
    [{}, false],
    [{ anyOf: [] }, false],
    [{ $ref: '#/$defs/Obj' }, true],
    [{ $ref: '#/$defs/Str' }, false],
    [{ $ref: '#/$defs/Missing' }, false],
    [{ allOf: [{ $ref: '#/$defs/Obj' }] }, true],
  ])('%j → %s', (schema, want) => {
    expect(isObjectRoot(schema, { Obj: { type: 'object' }, Str: { type: 'string' } })).toBe(want);
  });
});
