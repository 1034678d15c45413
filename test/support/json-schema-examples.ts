/**
 * Synthesizes example values from a JSON Schema (2020-12), for corpus tests that call an arbitrary
 * tool of an arbitrary API. Honest by construction: every value it returns has been validated
 * against the schema with Ajv 2020 (the same engine and mode MCP clients use); when it cannot find
 * a valid value it says so (and why) instead of guessing.
 *
 * Order of preference for a value: `const`, `enum`, `default`, `examples`/`example`; then a value
 * built from the type and its constraints (format, bounds, lengths; a `pattern` is only satisfied
 * by trying a few plain candidate strings). Objects get their `required` properties (and, with
 * `fillOptional`, their other properties as far as they can be built); arrays get one item (or
 * `minItems`).
 */
import { createClientAjv, type Ajv2020 } from './schema-checks.js';

export type JsonSchema = { [keyword: string]: unknown };

export type Synthesized = { ok: true; value: unknown } | { ok: false; reason: string };

export interface SynthesizeOptions {
  /** Also build optional object properties (skipping the ones that cannot be built). */
  fillOptional?: boolean;
  /** Nesting limit for optional properties; required ones may go deeper, up to a hard limit. */
  optionalDepth?: number;
}

const ROOT_ID = 'urn:mcp-gen-corpus:root';
const HARD_DEPTH = 40;

/** Plain strings tried against a `pattern` (after any format-specific value). */
const PATTERN_CANDIDATES = [
  'example',
  'abc',
  'ABC',
  'a',
  'A',
  '1',
  '0',
  '123',
  'abc123',
  'ABC123',
  'a1',
  'example-1',
  'example_1',
  'v1',
  '1.0.0',
  '2024-01-02',
  '2024-01-02T03:04:05Z',
  '03:04:05',
  'user@example.com',
  'https://example.com/',
  'example.com',
  '00000000-0000-4000-8000-000000000000',
  '+15555550123',
  'ff',
  'US',
  'en',
  'en-US',
  'true',
];

const FORMAT_VALUES: Record<string, string> = {
  'date-time': '2024-01-02T03:04:05Z',
  date: '2024-01-02',
  time: '03:04:05Z',
  duration: 'P1D',
  email: 'user@example.com',
  'idn-email': 'user@example.com',
  hostname: 'example.com',
  'idn-hostname': 'example.com',
  ipv4: '192.0.2.1',
  ipv6: '2001:db8::1',
  uri: 'https://example.com/',
  url: 'https://example.com/',
  'uri-reference': 'https://example.com/',
  iri: 'https://example.com/',
  'iri-reference': 'https://example.com/',
  'uri-template': 'https://example.com/{id}',
  uuid: '00000000-0000-4000-8000-000000000000',
  'json-pointer': '/a/b',
  'relative-json-pointer': '0/a',
  regex: '^a$',
  byte: 'aGVsbG8=',
  binary: 'hello',
  password: 'example-password',
  int32: '1',
  int64: '1',
};

type Check = (value: unknown) => boolean;

export class ExampleSynthesizer {
  private readonly ajv: Ajv2020;
  private readonly checks = new Map<string, Check>();
  /** allOf/anyOf/oneOf branch pointer → the schema holding it, whose `properties` a branch's `required` may name. */
  private readonly parents = new Map<string, string>();
  private readonly root: unknown;

  constructor(
    root: JsonSchema | boolean,
    private readonly options: SynthesizeOptions = {},
  ) {
    this.ajv = createClientAjv();
    this.root = root;
    const withId = typeof root === 'object' ? { ...root, $id: ROOT_ID } : root;
    this.ajv.addSchema(withId as JsonSchema, ROOT_ID);
  }

  /** A value valid against the whole schema, or the reason there is none. */
  synthesize(): Synthesized {
    try {
      return this.at('', [], 0);
    } catch (error) {
      return {
        ok: false,
        reason: `the schema does not compile with Ajv 2020: ${(error as Error).message}`,
      };
    }
  }

  /** Validates a value against the whole schema (or a sub-schema by JSON pointer). */
  validates(value: unknown, pointer = ''): boolean {
    return this.check(pointer)(value);
  }

  /** Ajv's error text for a value against the whole schema (empty when valid). */
  errorsFor(value: unknown): string {
    const validate = this.ajv.getSchema(ROOT_ID);
    if (!validate || validate(value)) return '';
    return this.ajv.errorsText(validate.errors);
  }

  private check(pointer: string): Check {
    let check = this.checks.get(pointer);
    if (!check) {
      const validate = this.ajv.compile({ $ref: `${ROOT_ID}#${pointer}` });
      check = (value: unknown) => validate(value) === true;
      this.checks.set(pointer, check);
    }
    return check;
  }

  private node(pointer: string): unknown {
    let node: unknown = this.root;
    for (const raw of pointer.split('/').slice(1)) {
      const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
      if (node === null || typeof node !== 'object') return undefined;
      node = (node as Record<string, unknown>)[key];
    }
    return node;
  }

  /** `stack` holds the pointers being built, to stop at recursion; `optionalLevel` counts optional nesting. */
  private at(pointer: string, stack: string[], optionalLevel: number): Synthesized {
    const node = this.node(pointer);
    if (node === undefined) return fail(`nothing at #${pointer}`);
    if (node === false) return fail(`#${pointer} is the false schema`);
    if (
      node === true ||
      (typeof node === 'object' && node !== null && Object.keys(node).length === 0)
    ) {
      return { ok: true, value: 'example' };
    }
    if (typeof node !== 'object' || node === null) return fail(`#${pointer} is not a schema`);
    if (stack.includes(pointer) || stack.length > HARD_DEPTH)
      return fail(`#${pointer} is recursive`);
    const schema = node as JsonSchema;
    const inner = [...stack, pointer];
    const check = this.check(pointer);

    // 1. Values the spec gives.
    for (const candidate of givenValues(schema))
      if (check(candidate)) return { ok: true, value: candidate };

    // 2. Parts every value must combine: $ref and allOf.
    const parts: unknown[] = [];
    if (typeof schema.$ref === 'string') {
      if (!schema.$ref.startsWith('#')) return fail(`#${pointer}: non-local $ref ${schema.$ref}`);
      const target = this.at(refPointer(schema.$ref), inner, optionalLevel);
      if (!target.ok) return target;
      parts.push(target.value);
    }
    if (Array.isArray(schema.allOf)) {
      for (let i = 0; i < schema.allOf.length; i++) {
        this.parents.set(`${pointer}/allOf/${i}`, pointer);
        const part = this.at(`${pointer}/allOf/${i}`, inner, optionalLevel);
        if (!part.ok) return part;
        parts.push(part.value);
      }
    }

    // 3. Alternatives: anyOf / oneOf branches.
    const alternatives: unknown[][] = [];
    for (const keyword of ['oneOf', 'anyOf'] as const) {
      const branches = schema[keyword];
      if (!Array.isArray(branches)) continue;
      const values: unknown[] = [];
      for (let i = 0; i < branches.length; i++) {
        this.parents.set(`${pointer}/${keyword}/${i}`, pointer);
        const branch = this.at(`${pointer}/${keyword}/${i}`, inner, optionalLevel);
        if (branch.ok) values.push(branch.value);
      }
      if (values.length === 0) return fail(`#${pointer}: no ${keyword} branch can be built`);
      alternatives.push(values);
    }

    // 4. The schema's own keywords (type and constraints).
    const bases = this.ownValues(schema, pointer, inner, optionalLevel);
    const reasons: string[] = [];
    for (const base of bases.values) {
      for (const choice of combinations(alternatives)) {
        const value = [base, ...parts, ...choice].reduce(merge, undefined);
        if (value !== undefined && check(value)) return { ok: true, value };
      }
    }
    if (bases.reason) reasons.push(bases.reason);
    return fail(
      `#${pointer}: no valid value found${reasons.length ? ` (${reasons.join('; ')})` : ''}`,
    );
  }

  /** Candidate values from `type` and its constraints; `undefined` when the schema has no own type. */
  private ownValues(
    schema: JsonSchema,
    pointer: string,
    stack: string[],
    optionalLevel: number,
  ): { values: unknown[]; reason?: string } {
    const types = typesOf(schema);
    if (types.length === 0) return { values: [undefined] };
    const values: unknown[] = [];
    const reasons: string[] = [];
    for (const type of types) {
      const built = this.byType(type, schema, pointer, stack, optionalLevel);
      if (built.ok) values.push(built.value);
      else reasons.push(built.reason);
    }
    return reasons.length ? { values, reason: reasons.join('; ') } : { values };
  }

  private byType(
    type: string,
    schema: JsonSchema,
    pointer: string,
    stack: string[],
    optionalLevel: number,
  ): Synthesized {
    switch (type) {
      case 'null':
        return { ok: true, value: null };
      case 'boolean':
        return { ok: true, value: true };
      case 'integer':
      case 'number':
        return numberFor(schema, type === 'integer');
      case 'string':
        return this.stringFor(schema, pointer);
      case 'array':
        return this.arrayFor(schema, pointer, stack, optionalLevel);
      case 'object':
        return this.objectFor(schema, pointer, stack, optionalLevel);
      default:
        return fail(`#${pointer}: unknown type ${type}`);
    }
  }

  private stringFor(schema: JsonSchema, pointer: string): Synthesized {
    const format = typeof schema.format === 'string' ? FORMAT_VALUES[schema.format] : undefined;
    const base = schema.contentEncoding === 'base64' ? 'aGVsbG8=' : (format ?? 'example');
    const minLength = typeof schema.minLength === 'number' ? schema.minLength : 0;
    const maxLength = typeof schema.maxLength === 'number' ? schema.maxLength : Infinity;
    const fit = (s: string) => {
      let out = s;
      if (out.length < minLength) out = out + 'x'.repeat(minLength - out.length);
      if (out.length > maxLength) out = out.slice(0, maxLength);
      return out;
    };
    if (typeof schema.pattern !== 'string') return { ok: true, value: fit(base) };
    let regex: RegExp;
    try {
      regex = new RegExp(schema.pattern, 'u');
    } catch (error) {
      return fail(`#${pointer}: pattern does not compile: ${(error as Error).message}`);
    }
    for (const candidate of [base, ...PATTERN_CANDIDATES]) {
      for (const s of [candidate, fit(candidate)]) {
        if (s.length >= minLength && s.length <= maxLength && regex.test(s))
          return { ok: true, value: s };
      }
    }
    return fail(`#${pointer}: no plain string matches pattern ${schema.pattern}`);
  }

  private arrayFor(
    schema: JsonSchema,
    pointer: string,
    stack: string[],
    optionalLevel: number,
  ): Synthesized {
    const minItems = typeof schema.minItems === 'number' ? schema.minItems : 0;
    const maxItems = typeof schema.maxItems === 'number' ? schema.maxItems : Infinity;
    const items: unknown[] = [];
    const prefix = Array.isArray(schema.prefixItems) ? schema.prefixItems : [];
    const want = Math.min(Math.max(minItems, 1), maxItems);
    for (let i = 0; i < want; i++) {
      const itemPointer =
        i < prefix.length
          ? `${pointer}/prefixItems/${i}`
          : schema.items !== undefined && schema.items !== false
            ? `${pointer}/items`
            : undefined;
      if (itemPointer === undefined) {
        if (i < minItems)
          return fail(`#${pointer}: needs ${minItems} items but has no item schema`);
        break;
      }
      const item = this.at(itemPointer, stack, optionalLevel);
      if (!item.ok) {
        if (i < minItems) return item;
        break;
      }
      items.push(
        schema.uniqueItems === true && typeof item.value === 'number' ? item.value + i : item.value,
      );
    }
    return { ok: true, value: items };
  }

  /** A branch like `anyOf: [{ required: ['id'] }]` names a property its parent schema defines. */
  private inheritedProperty(pointer: string, name: string): string | undefined {
    for (
      let parent = this.parents.get(pointer);
      parent !== undefined;
      parent = this.parents.get(parent)
    ) {
      const node = this.node(parent) as JsonSchema | undefined;
      if (isObject(node?.properties) && name in node.properties) {
        return `${parent}/properties/${escapePointer(name)}`;
      }
    }
    return undefined;
  }

  private objectFor(
    schema: JsonSchema,
    pointer: string,
    stack: string[],
    optionalLevel: number,
  ): Synthesized {
    const properties = isObject(schema.properties) ? schema.properties : {};
    const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
    const value: Record<string, unknown> = {};
    for (const name of required) {
      const propertyPointer = `${pointer}/properties/${escapePointer(name)}`;
      const inherited = this.inheritedProperty(pointer, name);
      const built =
        name in properties
          ? this.at(propertyPointer, stack, optionalLevel)
          : inherited !== undefined
            ? this.at(inherited, stack, optionalLevel)
            : isObject(schema.additionalProperties) || schema.additionalProperties === true
              ? this.at(`${pointer}/additionalProperties`, stack, optionalLevel)
              : ({ ok: true, value: 'example' } as Synthesized);
      if (!built.ok) return built;
      value[name] = built.value;
    }
    const optionalDepth = this.options.optionalDepth ?? 6;
    const minProperties = typeof schema.minProperties === 'number' ? schema.minProperties : 0;
    const wantOptional = this.options.fillOptional === true && optionalLevel < optionalDepth;
    for (const name of Object.keys(properties)) {
      if (name in value) continue;
      if (!wantOptional && Object.keys(value).length >= minProperties) break;
      const built = this.at(
        `${pointer}/properties/${escapePointer(name)}`,
        stack,
        optionalLevel + 1,
      );
      if (built.ok) value[name] = built.value;
    }
    if (Object.keys(value).length < minProperties && isObject(schema.additionalProperties)) {
      const extra = this.at(`${pointer}/additionalProperties`, stack, optionalLevel + 1);
      if (extra.ok) {
        for (let i = 0; Object.keys(value).length < minProperties; i++)
          value[`key${i}`] = extra.value;
      }
    }
    return { ok: true, value };
  }
}

/** Convenience: one synthesized value for a schema. */
export function synthesize(schema: JsonSchema, options: SynthesizeOptions = {}): Synthesized {
  return new ExampleSynthesizer(schema, options).synthesize();
}

function fail(reason: string): Synthesized {
  return { ok: false, reason };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function givenValues(schema: JsonSchema): unknown[] {
  const values: unknown[] = [];
  if ('const' in schema) values.push(schema.const);
  if (Array.isArray(schema.enum)) values.push(...schema.enum);
  if ('default' in schema) values.push(schema.default);
  if (Array.isArray(schema.examples)) values.push(...schema.examples);
  if ('example' in schema) values.push(schema.example);
  return values;
}

function typesOf(schema: JsonSchema): string[] {
  const declared = Array.isArray(schema.type)
    ? (schema.type as string[])
    : typeof schema.type === 'string'
      ? [schema.type]
      : [];
  if (declared.length > 0) {
    // Prefer a real value over null: null is tried last.
    return [...declared.filter((t) => t !== 'null'), ...declared.filter((t) => t === 'null')];
  }
  if ('properties' in schema || 'required' in schema || 'additionalProperties' in schema)
    return ['object'];
  if ('items' in schema || 'prefixItems' in schema) return ['array'];
  if ('minLength' in schema || 'maxLength' in schema || 'pattern' in schema || 'format' in schema)
    return ['string'];
  if (
    'minimum' in schema ||
    'maximum' in schema ||
    'exclusiveMinimum' in schema ||
    'exclusiveMaximum' in schema
  )
    return ['number'];
  // Typeless, without combinators or $ref: anything goes.
  if (!('$ref' in schema) && !('allOf' in schema) && !('anyOf' in schema) && !('oneOf' in schema))
    return ['string'];
  return [];
}

function numberFor(schema: JsonSchema, integer: boolean): Synthesized {
  const num = (v: unknown) => (typeof v === 'number' ? v : undefined);
  const step = integer ? 1 : 0.5;
  let low = num(schema.minimum);
  const exclusiveLow = num(schema.exclusiveMinimum);
  if (exclusiveLow !== undefined) low = Math.max(low ?? -Infinity, exclusiveLow + step);
  let high = num(schema.maximum);
  const exclusiveHigh = num(schema.exclusiveMaximum);
  if (exclusiveHigh !== undefined) high = Math.min(high ?? Infinity, exclusiveHigh - step);
  let value = low ?? (high !== undefined ? Math.min(1, high) : 1);
  if (integer) value = Math.ceil(value);
  const multipleOf = num(schema.multipleOf);
  if (multipleOf !== undefined && multipleOf > 0)
    value = Math.ceil(value / multipleOf) * multipleOf;
  if (high !== undefined && value > high)
    return fail(`no ${integer ? 'integer' : 'number'} in [${low}, ${high}]`);
  return { ok: true, value };
}

function* combinations(lists: unknown[][]): Generator<unknown[]> {
  if (lists.length === 0) {
    yield [];
    return;
  }
  const [first, ...rest] = lists as [unknown[], ...unknown[][]];
  let count = 0;
  for (const head of first) {
    for (const tail of combinations(rest)) {
      yield [head, ...tail];
      if (++count > 50) return;
    }
  }
}

/** Deep merge of plain objects; for anything else the later value wins (undefined never wins). */
function merge(a: unknown, b: unknown): unknown {
  if (b === undefined) return a;
  if (a === undefined) return b;
  if (isObject(a) && isObject(b)) {
    const out: Record<string, unknown> = { ...a };
    for (const [key, value] of Object.entries(b))
      out[key] = key in out ? merge(out[key], value) : value;
    return out;
  }
  return b;
}

function escapePointer(segment: string): string {
  return encodeURIComponent(segment.replace(/~/g, '~0').replace(/\//g, '~1'));
}

/** `#/$defs/a%20b` → the same pointer, each segment encoded the way `escapePointer` does it. */
function refPointer(ref: string): string {
  if (ref === '#') return '';
  return ref
    .slice(1)
    .split('/')
    .slice(1)
    .map((raw) => escapePointer(decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~')))
    .map((segment) => `/${segment}`)
    .join('');
}
