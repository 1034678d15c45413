import { describe, expect, it } from 'vitest';
import { appendSentence, createToolSchemaConverter, type SchemaUse } from '../../src/tools/tool-schema.js';
import type { Schema } from '../../src/model/api-model.js';
import { accepts, compile, isFinite } from './json-schema.js';
import { deepFreeze, names, petSchema, treeSchema } from './model-factory.js';

/** Converts one schema for one use and returns it with its $defs at the root, ready for Ajv. */
function run(use: SchemaUse, schema: Schema, schemaNames: ReadonlyMap<Schema, string> = new Map()): Schema {
  const converter = createToolSchemaConverter(use, schemaNames, [schema]);
  const converted = converter.convert(schema);
  const defs = converter.defs();
  const out = defs ? { ...converted, $defs: defs } : converted;
  expect(isFinite(out)).toBe(true);
  compile(out); // every produced schema must compile under JSON Schema 2020-12
  return out;
}

describe('tool-schema: readOnly / writeOnly', () => {
  it('input leaves out readOnly properties and removes them from required', () => {
    const out = run('input', petSchema());
    expect(out).toStrictEqual({
      type: 'object',
      properties: { name: { type: 'string', minLength: 1 }, secret: { type: 'string', writeOnly: true } },
      required: ['name'],
    });
    expect(accepts(out, { name: 'Rex' })).toBe(true);
    expect(accepts(out, {})).toBe(false);
  });

  it('input drops required entirely when only readOnly properties were required', () => {
    const out = run('input', {
      type: 'object',
      properties: { id: { type: 'integer', readOnly: true }, note: { type: 'string' } },
      required: ['id'],
    });
    expect(out).not.toHaveProperty('required');
  });

  it('output leaves out writeOnly properties and keeps readOnly ones', () => {
    const out = run('output', petSchema());
    expect(out).toStrictEqual({
      type: 'object',
      properties: { id: { type: 'integer', readOnly: true }, name: { type: 'string' } },
    });
  });

  it('hides properties inside nested objects and arrays too', () => {
    const out = run('input', { type: 'array', items: petSchema() });
    expect(Object.keys((out.items as Schema).properties as object)).toEqual(['name', 'secret']);
  });
});

describe('tool-schema: keyword filtering', () => {
  const constrained: Schema = {
    type: 'object',
    title: 'Thing',
    description: 'A thing',
    required: ['code'],
    additionalProperties: false,
    minProperties: 1,
    properties: {
      code: { type: 'string', pattern: '^[A-Z]{3}$', minLength: 3, maxLength: 3, format: 'uuid', default: 'EUR' },
      count: { type: 'integer', minimum: 0, maximum: 10, multipleOf: 2, examples: [4] },
      when: { type: 'string', format: 'date-time', deprecated: true },
      tags: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 5, uniqueItems: true },
      kind: { type: 'string', enum: ['a', 'b'] },
      fixed: { const: 'x', enum: ['x'] },
    },
  };

  it('input keeps every constraint', () => {
    const out = run('input', constrained);
    expect(out).toStrictEqual(constrained);
    expect(accepts(out, { code: 'EUR', count: 4 })).toBe(true);
    expect(accepts(out, { code: 'eur' })).toBe(false);
    expect(accepts(out, { code: 'EUR', count: 3 })).toBe(false);
    expect(accepts(out, { code: 'EUR', extra: 1 })).toBe(false);
  });

  it('output keeps the shape and annotations, drops value constraints, and notes enums', () => {
    expect(run('output', constrained)).toStrictEqual({
      type: 'object',
      title: 'Thing',
      description: 'A thing',
      properties: {
        code: { type: 'string', default: 'EUR' },
        count: { type: 'integer', examples: [4] },
        when: { type: 'string', deprecated: true },
        tags: { type: 'array', items: { type: 'string' } },
        kind: { type: 'string', description: 'Documented values: "a", "b".' },
        fixed: { const: 'x' },
      },
    });
  });

  it('output keeps a schema-valued additionalProperties', () => {
    expect(run('output', { type: 'object', additionalProperties: { type: 'integer', minimum: 0 } })).toStrictEqual({
      type: 'object',
      additionalProperties: { type: 'integer' },
    });
  });

  it('output appends the enum note to an existing description', () => {
    expect(run('output', { type: 'integer', description: 'Level', enum: [1, 2] })).toStrictEqual({
      type: 'integer',
      description: 'Level. Documented values: 1, 2.',
    });
  });

  it('drops keywords neither use knows', () => {
    const given = { type: 'string', $id: 'x', $schema: 'y', collectionFormat: 'csv', discriminator: {}, foo: 1 };
    expect(run('input', given)).toStrictEqual({ type: 'string' });
    expect(run('output', given)).toStrictEqual({ type: 'string' });
  });

  it('removes duplicate enum values (deep equality) in input', () => {
    expect(run('input', { enum: ['a', 'b', 'a', 1, 1, null, null, { k: 1 }, { k: 1 }] })).toStrictEqual({
      enum: ['a', 'b', 1, null, { k: 1 }],
    });
  });

  it('removes duplicate required names', () => {
    const out = run('input', { type: 'object', properties: { a: { type: 'string' } }, required: ['a', 'a'] });
    expect(out.required).toEqual(['a']);
  });
});

describe('tool-schema: patterns clients cannot compile', () => {
  it.each([
    // valid as a plain RegExp, a SyntaxError with the `u` flag that Ajv uses
    ['^[\\w-\\.]+$'],
    ['^\\-?\\d+$'],
    ['^[a-z]\\_[0-9]$'],
  ])('drops %s with a note in the description', (pattern) => {
    expect(() => new RegExp(pattern)).not.toThrow();
    expect(() => new RegExp(pattern, 'u')).toThrow(SyntaxError);
    const out = run('input', { type: 'string', description: 'An id', pattern });
    expect(out).toStrictEqual({ type: 'string', description: `An id. Must match the pattern ${pattern}.` });
  });

  it('keeps a pattern valid under the u flag', () => {
    expect(run('input', { type: 'string', pattern: '^\\p{L}+$' })).toStrictEqual({ type: 'string', pattern: '^\\p{L}+$' });
  });

  it('notes a dropped pattern even without a description', () => {
    expect(run('input', { type: 'string', pattern: '^\\-$' })).toStrictEqual({
      type: 'string',
      description: 'Must match the pattern ^\\-$.',
    });
  });
});

describe('tool-schema: $defs', () => {
  it('a recursive schema becomes $ref: #/$defs/<component name>', () => {
    const node = treeSchema();
    const root: Schema = { type: 'object', properties: { tree: node } };
    const out = run('input', root, names({ Node: node }));
    expect(out).toStrictEqual({
      type: 'object',
      properties: { tree: { $ref: '#/$defs/Node' } },
      $defs: {
        Node: {
          type: 'object',
          properties: { value: { type: 'string' }, children: { type: 'array', items: { $ref: '#/$defs/Node' } } },
        },
      },
    });
    expect(accepts(out, { tree: { value: 'a', children: [{ value: 'b', children: [] }] } })).toBe(true);
    expect(accepts(out, { tree: { value: 'a', children: [{ value: 1 }] } })).toBe(false);
  });

  it('an unnamed recursive schema gets a generated $defs name', () => {
    const out = run('output', { type: 'object', properties: { tree: treeSchema() } });
    expect(out.properties).toStrictEqual({ tree: { $ref: '#/$defs/Schema1' } });
    expect(Object.keys(out.$defs as object)).toEqual(['Schema1']);
  });

  it('an unnamed recursive schema with a title is named after its title; a component name wins', () => {
    const titled = { ...treeSchema(), title: 'Tree Node' };
    ((titled.properties as Record<string, Schema>).children as Schema).items = titled;
    const byTitle = run('output', { type: 'object', properties: { t: titled } });
    expect(byTitle.properties).toStrictEqual({ t: { $ref: '#/$defs/Tree_Node' } });
    const byName = run('output', { type: 'object', properties: { t: titled } }, names({ Node: titled }));
    expect(byName.properties).toStrictEqual({ t: { $ref: '#/$defs/Node' } });
  });

  it('a recursive root stays inline and refers to its $def inside', () => {
    const node = treeSchema();
    const out = run('output', node, names({ Node: node }));
    expect(out.type).toBe('object');
    expect(((out.properties as Record<string, Schema>).children as Schema).items).toStrictEqual({ $ref: '#/$defs/Node' });
    expect(Object.keys(out.$defs as object)).toEqual(['Node']);
  });

  it('mutual recursion stays finite and validates at any depth', () => {
    const a: Schema = { type: 'object', properties: {} };
    const b: Schema = { type: 'object', properties: { a } };
    (a.properties as Record<string, Schema>).b = b;
    const out = run('input', { type: 'object', properties: { start: a } }, names({ A: a, B: b }));
    expect(out.properties).toStrictEqual({ start: { $ref: '#/$defs/A' } });
    expect(out.$defs).toHaveProperty('A');
    expect(accepts(out, { start: { b: { a: { b: {} } } } })).toBe(true);
    expect(accepts(out, { start: { b: { a: { b: 1 } } } })).toBe(false);
  });

  it('a named schema used twice becomes a $def; one used once is inlined', () => {
    const address: Schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
    const money: Schema = { type: 'object', properties: { amount: { type: 'number' } } };
    const order: Schema = { type: 'object', properties: { home: address, work: address, total: money } };
    const out = run('input', order, names({ Address: address, Money: money }));
    expect(out).toStrictEqual({
      type: 'object',
      properties: {
        home: { $ref: '#/$defs/Address' },
        work: { $ref: '#/$defs/Address' },
        total: { type: 'object', properties: { amount: { type: 'number' } } },
      },
      $defs: { Address: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
    });
    expect(accepts(out, { home: { city: 'Oslo' }, work: {} })).toBe(false);
  });

  it('an unnamed schema shared twice is inlined twice', () => {
    const shared: Schema = { type: 'object', properties: { x: { type: 'integer' } } };
    const out = run('input', { type: 'object', properties: { a: shared, b: shared } });
    expect(out).not.toHaveProperty('$defs');
    expect((out.properties as Record<string, Schema>).a).toStrictEqual((out.properties as Record<string, Schema>).b);
  });

  it('a named leaf schema (no subschemas) used twice is inlined', () => {
    const status: Schema = { type: 'string', enum: ['on', 'off'] };
    const out = run('input', { type: 'object', properties: { a: status, b: status } }, names({ Status: status }));
    expect(out).not.toHaveProperty('$defs');
    expect(out.properties).toStrictEqual({ a: status, b: status });
  });

  it('sanitizes component names and keeps them unique', () => {
    const x1 = treeSchema();
    const x2 = treeSchema();
    const out = run('output', { type: 'object', properties: { p: x1, q: x2 } }, names({ 'My Node': x1, 'My_Node': x2 }));
    expect(Object.keys(out.$defs as object).sort()).toEqual(['My_Node', 'My_Node2']);
  });

  it('does not mutate the model schemas', () => {
    const node = deepFreeze(treeSchema());
    expect(() => run('input', { type: 'object', properties: { n: node } }, names({ Node: node }))).not.toThrow();
    expect(() => run('output', deepFreeze(petSchema()))).not.toThrow();
  });
});

describe('appendSentence', () => {
  it.each([
    [undefined, 'New.', 'New.'],
    ['', 'New.', 'New.'],
    ['Old', 'New.', 'Old. New.'],
    ['Old.', 'New.', 'Old. New.'],
    ['Old?  ', 'New.', 'Old? New.'],
  ])('%j + %j → %j', (given, sentence, want) => {
    expect(appendSentence(given, sentence)).toBe(want);
  });
});

describe('tool-schema: formats MCP clients do not know', () => {
  it('moves an unknown format into the description (validators would warn on stderr), keeps known ones', () => {
    const out = run('input', { type: 'object', properties: { page: { type: 'string', format: 'html', description: 'A page' }, id: { type: 'string', format: 'uuid' } } });
    const props = out.properties as Record<string, Schema>;
    expect(props.page).toEqual({ type: 'string', description: 'A page. Format: html.' });
    expect(props.id).toEqual({ type: 'string', format: 'uuid' });
  });
});
