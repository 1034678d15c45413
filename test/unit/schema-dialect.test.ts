import { describe, expect, it } from 'vitest';
import { createDialectConverter, type SchemaDialect } from '../../src/load/schema-dialect.js';
import type { Schema } from '../../src/model/api-model.js';
import { compile } from './json-schema.js';
import { deepFreeze } from './model-factory.js';

const convert = (dialect: SchemaDialect, schema: unknown): Schema => createDialectConverter(dialect)(deepFreeze(schema));

describe('schema-dialect: OAS 3.0 nullable', () => {
  it.each<[string, Schema, Schema]>([
    ['with a type', { type: 'string', nullable: true }, { type: ['string', 'null'] }],
    [
      'with a type and an enum',
      { type: 'string', enum: ['a', 'b'], nullable: true },
      { type: ['string', 'null'], enum: ['a', 'b', null] },
    ],
    ['with an enum already holding null', { type: 'string', enum: ['a', null], nullable: true }, { type: ['string', 'null'], enum: ['a', null] }],
    ['with an enum, no type', { enum: [1, 2], nullable: true }, { enum: [1, 2, null] }],
    [
      'without a type',
      { allOf: [{ type: 'object', properties: { a: { type: 'string' } } }], nullable: true },
      { anyOf: [{ allOf: [{ type: 'object', properties: { a: { type: 'string' } } }] }, { type: 'null' }] },
    ],
    ['nullable: false', { type: 'integer', nullable: false }, { type: 'integer' }],
  ])('%s', (_, given, want) => {
    const out = convert('oas30', given);
    expect(out).toStrictEqual(want);
    compile(out);
  });

  it('a nullable schema accepts null and its type, nothing else', () => {
    const validate = compile(convert('oas30', { type: 'integer', nullable: true }));
    expect([validate(null), validate(3), validate('3')]).toEqual([true, true, false]);
  });
});

describe('schema-dialect: draft-04 exclusive bounds', () => {
  it.each<[string, SchemaDialect, Schema, Schema]>([
    ['exclusiveMinimum: true', 'oas30', { type: 'number', minimum: 0, exclusiveMinimum: true }, { type: 'number', exclusiveMinimum: 0 }],
    ['exclusiveMinimum: false', 'oas30', { type: 'number', minimum: 0, exclusiveMinimum: false }, { type: 'number', minimum: 0 }],
    ['exclusiveMaximum: true', 'oas30', { type: 'number', maximum: 10, exclusiveMaximum: true }, { type: 'number', exclusiveMaximum: 10 }],
    ['exclusiveMaximum: false', 'oas30', { type: 'number', maximum: 10, exclusiveMaximum: false }, { type: 'number', maximum: 10 }],
    ['exclusive flag without its bound', 'oas30', { type: 'number', exclusiveMinimum: true }, { type: 'number' }],
    [
      'both, in Swagger 2.0',
      'swagger2',
      { type: 'integer', minimum: 1, exclusiveMinimum: true, maximum: 5, exclusiveMaximum: true },
      { type: 'integer', exclusiveMinimum: 1, exclusiveMaximum: 5 },
    ],
    ['3.1 numeric form passes through', 'oas31', { type: 'number', exclusiveMinimum: 0 }, { type: 'number', exclusiveMinimum: 0 }],
  ])('%s', (_, dialect, given, want) => {
    expect(convert(dialect, given)).toStrictEqual(want);
  });

  it('an exclusive bound excludes the bound itself', () => {
    const validate = compile(convert('oas30', { type: 'number', minimum: 0, exclusiveMinimum: true }));
    expect([validate(0), validate(0.1)]).toEqual([false, true]);
  });
});

describe('schema-dialect: Swagger 2.0', () => {
  it.each<[string, Schema, Schema]>([
    ['x-nullable', { type: 'string', 'x-nullable': true }, { type: ['string', 'null'] }],
    ['type: file', { type: 'file', description: 'The upload' }, { type: 'string', format: 'binary', description: 'The upload' }],
  ])('%s', (_, given, want) => {
    expect(convert('swagger2', given)).toStrictEqual(want);
  });

  it('x-nullable only counts in Swagger 2.0 (an x- extension elsewhere)', () => {
    expect(convert('oas30', { type: 'string', 'x-nullable': true })).toStrictEqual({ type: 'string' });
  });
});

describe('schema-dialect: examples and OpenAPI-only keywords', () => {
  it.each<[string, SchemaDialect, Schema, Schema]>([
    ['example → examples (3.0)', 'oas30', { type: 'string', example: 'rex' }, { type: 'string', examples: ['rex'] }],
    ['example → examples (2.0)', 'swagger2', { type: 'integer', example: 3 }, { type: 'integer', examples: [3] }],
    ['example → examples (3.1)', 'oas31', { type: 'integer', example: 3 }, { type: 'integer', examples: [3] }],
    ['3.1 examples kept', 'oas31', { type: 'integer', examples: [1, 2] }, { type: 'integer', examples: [1, 2] }],
    ['examples win over example', 'oas31', { type: 'integer', example: 0, examples: [1] }, { type: 'integer', examples: [1] }],
    [
      'discriminator, xml, externalDocs and x-* dropped',
      'oas30',
      {
        type: 'object',
        discriminator: { propertyName: 'kind' },
        xml: { name: 'pet' },
        externalDocs: { url: 'https://example.test' },
        'x-internal': true,
        'x-go-type': 'Pet',
        properties: { kind: { type: 'string', xml: { attribute: true } } },
      },
      { type: 'object', properties: { kind: { type: 'string' } } },
    ],
    [
      'property names that look like keywords are kept',
      'oas30',
      { type: 'object', properties: { 'x-rate': { type: 'integer' }, nullable: { type: 'boolean' }, example: { type: 'string' } } },
      { type: 'object', properties: { 'x-rate': { type: 'integer' }, nullable: { type: 'boolean' }, example: { type: 'string' } } },
    ],
  ])('%s', (_, dialect, given, want) => {
    expect(convert(dialect, given)).toStrictEqual(want);
  });
});

describe('schema-dialect: structure', () => {
  it('rewrites draft-04 tuple items as prefixItems', () => {
    expect(convert('oas30', { type: 'array', items: [{ type: 'string' }, { type: 'integer', nullable: true }] })).toStrictEqual({
      type: 'array',
      prefixItems: [{ type: 'string' }, { type: ['integer', 'null'] }],
    });
  });

  it('converts nested subschemas in every position', () => {
    const n = { type: 'string', nullable: true };
    const given = {
      type: 'object',
      properties: { a: n },
      patternProperties: { '^x': n },
      additionalProperties: n,
      items: n,
      not: n,
      allOf: [n],
      anyOf: [n],
      oneOf: [n],
      if: n,
      then: n,
      else: n,
    };
    const out = convert('oas30', given);
    const want = { type: ['string', 'null'] };
    for (const key of ['additionalProperties', 'items', 'not', 'if', 'then', 'else']) expect(out[key]).toStrictEqual(want);
    for (const key of ['allOf', 'anyOf', 'oneOf']) expect(out[key]).toStrictEqual([want]);
    expect(out.properties).toStrictEqual({ a: want });
    expect(out.patternProperties).toStrictEqual({ '^x': want });
  });

  it('boolean schemas become {} and { not: {} }', () => {
    const c = createDialectConverter('oas30');
    expect(c(true)).toStrictEqual({});
    expect(c(false)).toStrictEqual({ not: {} });
    expect(convert('oas30', { type: 'object', additionalProperties: false })).toStrictEqual({
      type: 'object',
      additionalProperties: false,
    });
  });

  it('3.1 passes type arrays and const through', () => {
    const given = { type: ['string', 'null'], const: 'fixed', contentMediaType: 'text/plain' };
    expect(convert('oas31', given)).toStrictEqual(given);
  });

  it('keeps sharing: one input object converts to one output object', () => {
    const shared = { type: 'string', nullable: true };
    const out = convert('oas30', { type: 'object', properties: { a: shared, b: shared } });
    const props = out.properties as Record<string, Schema>;
    expect(props.a).toBe(props.b);
    const c = createDialectConverter('oas30');
    expect(c(shared)).toBe(c(shared));
  });

  it('keeps a cycle in the same place', () => {
    const node: Record<string, unknown> = { type: 'object', nullable: true, properties: {} };
    (node.properties as Record<string, unknown>).children = { type: 'array', items: node };
    (node.properties as Record<string, unknown>).parent = node;
    const out = convert('oas30', node);
    const props = out.properties as Record<string, Schema>;
    expect(out.type).toEqual(['object', 'null']);
    expect(props.parent).toBe(out);
    expect((props.children as Schema).items).toBe(out);
  });

  it('keeps a cycle through a nullable schema without a type', () => {
    const node: Record<string, unknown> = { nullable: true, properties: {} };
    (node.properties as Record<string, unknown>).next = node;
    const out = convert('oas30', node);
    expect(out.anyOf).toHaveLength(2);
    const inner = (out.anyOf as Schema[])[0] as Schema;
    expect((inner.properties as Record<string, Schema>).next).toBe(out);
  });

  it('never mutates its input (deep-frozen input converts without throwing)', () => {
    const node: Record<string, unknown> = {
      type: 'object',
      nullable: true,
      required: ['a'],
      properties: { a: { type: 'number', minimum: 0, exclusiveMinimum: true, example: 1, enum: [1, 2], nullable: true } },
    };
    (node.properties as Record<string, unknown>).self = node;
    const before = JSON.stringify({ ...node, properties: { a: (node.properties as Record<string, unknown>).a } });
    expect(() => convert('oas30', node)).not.toThrow();
    expect(JSON.stringify({ ...node, properties: { a: (node.properties as Record<string, unknown>).a } })).toBe(before);
  });
});
