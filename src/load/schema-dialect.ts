import type { Schema } from '../model/api-model.js';

/** Which schema dialect a spec writes: OAS 3.0 and Swagger 2.0 extend draft-04; OAS 3.1 is 2020-12. */
export type SchemaDialect = 'swagger2' | 'oas30' | 'oas31';

/** Keywords holding one subschema. */
const SCHEMA_KEYWORDS = [
  'additionalProperties',
  'items',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'propertyNames',
  'unevaluatedProperties',
  'unevaluatedItems',
  'additionalItems',
] as const;
/** Keywords holding an array of subschemas. */
const SCHEMA_ARRAY_KEYWORDS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'] as const;
/** Keywords holding a map of name → subschema. */
const SCHEMA_MAP_KEYWORDS = ['properties', 'patternProperties', 'dependentSchemas', '$defs', 'definitions'] as const;

/** OpenAPI additions that are not JSON Schema; dropped so strict validators accept the result. */
const OPENAPI_ONLY = new Set(['nullable', 'x-nullable', 'discriminator', 'xml', 'externalDocs', 'example']);

/**
 * Converts a dereferenced OpenAPI schema graph to JSON Schema 2020-12. The input graph may be
 * shared and cyclic; the output keeps the same sharing and cycles (memoized by identity) and
 * never mutates the input.
 */
export function createDialectConverter(dialect: SchemaDialect): (schema: unknown) => Schema {
  const converted = new Map<object, Schema>();

  const convert = (input: unknown): Schema => {
    if (typeof input === 'boolean') return input ? {} : { not: {} };
    if (input === null || typeof input !== 'object' || Array.isArray(input)) return {};
    const done = converted.get(input);
    if (done) return done;
    const source = input as Record<string, unknown>;
    const out: Schema = {};
    converted.set(input, out); // before recursing, so cycles resolve to this same object

    for (const [key, value] of Object.entries(source)) {
      if (OPENAPI_ONLY.has(key) || key.startsWith('x-')) continue;
      if (key === 'items' && Array.isArray(value)) {
        out.prefixItems = value.map(convert); // draft-04 tuple form
      } else if ((SCHEMA_KEYWORDS as readonly string[]).includes(key)) {
        out[key] = typeof value === 'boolean' ? value : convert(value);
      } else if ((SCHEMA_ARRAY_KEYWORDS as readonly string[]).includes(key) && Array.isArray(value)) {
        out[key] = value.map(convert);
      } else if ((SCHEMA_MAP_KEYWORDS as readonly string[]).includes(key) && isRecord(value)) {
        out[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, convert(v)]));
      } else {
        out[key] = value;
      }
    }
    if ('example' in source && !('examples' in source)) out.examples = [source.example];
    if (dialect === 'oas31' && Array.isArray(source.examples)) out.examples = source.examples;
    // OAS 3.1 lets a schema (or the whole document) declare draft-04; its rules apply there too,
    // and to a boolean exclusiveMinimum/Maximum, which only draft-04 can mean, whatever is declared.
    const booleanBounds = typeof source.exclusiveMinimum === 'boolean' || typeof source.exclusiveMaximum === 'boolean';
    if (dialect !== 'oas31' || isDraft4(source.$schema) || booleanBounds) applyDraft4Rules(source, out, dialect);
    // A discriminator tells the branches apart by a property's value, not by their shapes: for
    // JSON Schema alone they may all match, so "exactly one" (oneOf) becomes "any" (anyOf).
    if (source.discriminator !== undefined && Array.isArray(out.oneOf) && out.anyOf === undefined) {
      out.anyOf = out.oneOf;
      delete out.oneOf;
    }
    return out;
  };
  return convert;
}

/** The draft-04-isms of OAS 3.0 / Swagger 2.0 rewritten as 2020-12. */
function applyDraft4Rules(source: Record<string, unknown>, out: Schema, dialect: SchemaDialect): void {
  for (const [flag, bound] of [
    ['exclusiveMinimum', 'minimum'],
    ['exclusiveMaximum', 'maximum'],
  ] as const) {
    if (typeof source[flag] !== 'boolean') continue;
    delete out[flag];
    if (source[flag] === true && typeof source[bound] === 'number') {
      out[flag] = source[bound];
      delete out[bound];
    }
  }
  if (dialect === 'swagger2' && source.type === 'file') {
    out.type = 'string';
    out.format = 'binary'; // the OAS 3.0 spelling of a file, so one rule maps both
  }
  const nullable = source.nullable === true || (dialect === 'swagger2' && source['x-nullable'] === true);
  if (nullable) makeNullable(out);
}

function makeNullable(out: Schema): void {
  if (typeof out.type === 'string') out.type = [out.type, 'null'];
  else if (Array.isArray(out.type) && !out.type.includes('null')) out.type = [...out.type, 'null'];
  if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
  if (out.type === undefined && out.enum === undefined) {
    const inner: Schema = { ...out };
    for (const key of Object.keys(out)) delete out[key];
    out.anyOf = [inner, { type: 'null' }];
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

export function isDraft4(schemaUri: unknown): boolean {
  return typeof schemaUri === 'string' && /json-schema\.org\/draft-04\/schema/.test(schemaUri);
}
