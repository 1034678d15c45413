import type { Schema } from '../model/api-model.js';
import { defName } from './naming.js';

/**
 * How a schema is used. `input` schemas validate what a model sends, so every constraint is kept
 * and readOnly properties are left out. `output` schemas describe what the upstream returns; they
 * keep the shape (types, properties, items) but drop keywords that only constrain values
 * (required, enum, pattern, bounds, format) because real APIs drift from their specs, and a
 * client would reject a whole result over one missing field. writeOnly properties are left out.
 */
export type SchemaUse = 'input' | 'output';

const SUBSCHEMA = ['additionalProperties', 'items', 'not', 'if', 'then', 'else', 'contains', 'propertyNames', 'unevaluatedProperties', 'unevaluatedItems'];
const SUBSCHEMA_LIST = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const SUBSCHEMA_MAP = ['properties', 'patternProperties', 'dependentSchemas'];
const ANNOTATIONS = ['title', 'description', 'default', 'deprecated', 'readOnly', 'writeOnly', 'examples', 'contentEncoding', 'contentMediaType'];
const ASSERTIONS = ['type', 'const'];
/** Kept in input schemas only. */
const CONSTRAINTS = [
  'enum', 'multipleOf', 'maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum', 'maxLength', 'minLength',
  'pattern', 'maxItems', 'minItems', 'uniqueItems', 'maxContains', 'minContains', 'maxProperties', 'minProperties',
  'required', 'dependentRequired', 'format',
];

/**
 * Applicators that only constrain values (`not`, `if`/`then`/`else`): dropped from output schemas,
 * where, with enums and bounds gone, they would reject valid data (a `not: {enum: [...]}` becomes
 * `not: {}`, which rejects everything).
 */
const OUTPUT_DROPPED_APPLICATORS = ['not', 'if', 'then', 'else'];

/**
 * Output schemas describe shape only. `oneOf` becomes `anyOf`: with enums gone, the branches of a
 * discriminated union (Cat, Dog) look alike and "exactly one" would fail for every valid value.
 */
function relaxOutput(out: Schema): void {
  if (out.additionalProperties === false) delete out.additionalProperties;
  if (out.unevaluatedProperties === false) delete out.unevaluatedProperties;
  if (Array.isArray(out.oneOf)) {
    const branches = out.oneOf;
    delete out.oneOf;
    if (Array.isArray(out.anyOf)) out.allOf = [...((out.allOf as Schema[]) ?? []), { anyOf: branches }];
    else out.anyOf = branches;
  }
}

/** The formats MCP clients' validators know (Ajv with ajv-formats): others are kept as a note. */
const KNOWN_FORMATS = new Set([
  'date', 'time', 'date-time', 'iso-time', 'iso-date-time', 'duration', 'uri', 'uri-reference',
  'uri-template', 'url', 'email', 'hostname', 'ipv4', 'ipv6', 'regex', 'uuid', 'json-pointer',
  'json-pointer-uri-fragment', 'relative-json-pointer', 'byte', 'int32', 'int64', 'float', 'double',
  'password', 'binary',
]);

export interface ToolSchemaConverter {
  /** A finite JSON Schema 2020-12 for one of the roots; recursive parts become `$ref: #/$defs/...`. */
  convert(schema: Schema): Schema;
  /** The `$defs` collected so far; place them at the root of the tool's schema. */
  defs(): Record<string, Schema> | undefined;
}

/**
 * One converter per tool schema: it owns that schema's `$defs`. `roots` are all the schemas the
 * tool will convert (every parameter and the body), scanned together up front so a schema shared
 * by two of them is placed in `$defs` once rather than inlined in one and referenced in the other.
 */
export function createToolSchemaConverter(
  use: SchemaUse,
  names: ReadonlyMap<Schema, string>,
  roots: readonly Schema[],
): ToolSchemaConverter {
  const defs = new Map<Schema, { name: string; schema?: Schema }>();
  const usedNames = new Set<string>();
  const referenced = new Set<Schema>();
  const scanned = new Set<Schema>();

  /**
   * Marks the schemas that become `$defs`: every schema reachable from itself (inlining it would
   * never end), and named component schemas used more than once in this tool (inlining them again
   * only makes tools/list bigger). Everything else is inlined, which models read best.
   */
  const findCycles = (schema: Schema, stack: Set<Schema>): void => {
    if (stack.has(schema)) {
      referenced.add(schema);
      return;
    }
    if (scanned.has(schema)) {
      if (names.has(schema) && children(schema).length > 0) referenced.add(schema);
      return;
    }
    scanned.add(schema);
    stack.add(schema);
    for (const child of children(schema)) findCycles(child, stack);
    stack.delete(schema);
  };

  const refTo = (schema: Schema): Schema => {
    let def = defs.get(schema);
    if (!def) {
      const title = typeof schema.title === 'string' ? schema.title : undefined;
      const name = defName(names.get(schema) ?? title ?? `Schema${defs.size + 1}`, usedNames);
      def = { name };
      defs.set(schema, def); // registered before converting so self-references find it
      def.schema = convertBody(schema);
    }
    return { $ref: `#/$defs/${def.name}` };
  };

  const convertNode = (schema: Schema): Schema => (referenced.has(schema) ? refTo(schema) : convertBody(schema));

  const convertBody = (schema: Schema): Schema => {
    if (use === 'input' && isBinarySchema(schema)) return fileSchema(schema.description);
    const out: Schema = {};
    for (const [key, value] of Object.entries(schema)) {
      if (use === 'output' && OUTPUT_DROPPED_APPLICATORS.includes(key)) continue;
      if (SUBSCHEMA.includes(key)) {
        out[key] = typeof value === 'boolean' ? value : convertNode(value as Schema);
      } else if (SUBSCHEMA_LIST.includes(key) && Array.isArray(value)) {
        out[key] = value.map((v: Schema) => convertNode(v));
      } else if (SUBSCHEMA_MAP.includes(key)) {
        out[key] = convertMap(key, value as Record<string, Schema>);
      } else if (ANNOTATIONS.includes(key) || ASSERTIONS.includes(key) || (use === 'input' && CONSTRAINTS.includes(key))) {
        out[key] = value;
      }
    }
    if (use === 'output') relaxOutput(out);
    return finishNode(out, schema);
  };

  /** properties without the ones this use must not see (readOnly in input, writeOnly in output). */
  const convertMap = (key: string, map: Record<string, Schema>): Record<string, Schema> => {
    const hidden = use === 'input' ? 'readOnly' : 'writeOnly';
    const out: Record<string, Schema> = {};
    for (const [name, value] of Object.entries(map)) {
      if (key === 'properties' && value[hidden] === true) continue;
      out[name] = typeof value === 'boolean' ? value : convertNode(value);
    }
    return out;
  };

  const finishNode = (out: Schema, source: Schema): Schema => {
    if (Array.isArray(out.required) && isRecord(source.properties)) {
      const kept = out.required.filter((r) => typeof r !== 'string' || !isHidden(source.properties as Record<string, Schema>, r));
      if (kept.length > 0) out.required = [...new Set(kept)];
      else delete out.required;
    }
    if (Array.isArray(out.enum)) out.enum = uniqueValues(out.enum);
    if (typeof out.format === 'string' && !KNOWN_FORMATS.has(out.format)) {
      // Validators warn about formats they do not know (on the server's stderr); a note says as much.
      out.description = appendSentence(out.description, `Format: ${out.format}.`);
      delete out.format;
    }
    if (typeof out.pattern === 'string' && !isUnicodeRegex(out.pattern)) {
      out.description = appendSentence(out.description, `Must match the pattern ${out.pattern}.`);
      delete out.pattern;
    }
    if (use === 'output' && Array.isArray(source.enum) && source.enum.length > 0 && out.const === undefined) {
      out.description = appendSentence(out.description, `Documented values: ${uniqueValues(source.enum).map((v) => JSON.stringify(v)).join(', ')}.`);
    }
    return out;
  };

  const isHidden = (props: Record<string, Schema>, name: string): boolean =>
    props[name]?.[use === 'input' ? 'readOnly' : 'writeOnly'] === true;

  for (const root of roots) findCycles(root, new Set());

  return {
    convert(schema) {
      return convertBody(schema); // the top level is always inlined; only inner repeats use $ref
    },
    defs() {
      if (defs.size === 0) return undefined;
      const entries = [...defs.values()].map((d) => [d.name, d.schema ?? {}] as const);
      return Object.fromEntries(entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    },
  };
}

/**
 * A schema for raw bytes: OAS 3.0 `format: binary` (and Swagger `type: file`, loaded as such), or a
 * 3.1 `contentMediaType` without a `contentEncoding`.
 */
export function isBinarySchema(schema: Schema): boolean {
  if (schema.type !== undefined && schema.type !== 'string') return false;
  return schema.format === 'binary' || (typeof schema.contentMediaType === 'string' && schema.contentEncoding === undefined);
}

/** How a model passes a file in JSON arguments (runtime FileArgument): base64 data, name, media type. */
export function fileSchema(description?: unknown): Schema {
  return {
    type: 'object',
    description: appendSentence(description, 'A file: its content base64-encoded in `data`, with an optional file name and media type.'),
    properties: {
      data: { type: 'string', contentEncoding: 'base64', description: 'The file content, base64-encoded.' },
      filename: { type: 'string', description: 'The file name to send.' },
      mimeType: { type: 'string', description: 'The media type of the file, e.g. image/png.' },
    },
    required: ['data'],
    additionalProperties: false,
  };
}

function children(schema: Schema): Schema[] {
  const out: Schema[] = [];
  for (const [key, value] of Object.entries(schema)) {
    if (SUBSCHEMA.includes(key) && isRecord(value)) out.push(value);
    else if (SUBSCHEMA_LIST.includes(key) && Array.isArray(value)) out.push(...value.filter(isRecord));
    else if (SUBSCHEMA_MAP.includes(key) && isRecord(value)) out.push(...Object.values(value).filter(isRecord));
  }
  return out;
}

function isRecord(value: unknown): value is Schema {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function uniqueValues(values: unknown[]): unknown[] {
  const seen = new Set<string>();
  return values.filter((v) => {
    const key = JSON.stringify(v);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** MCP clients compile patterns with the `u` flag (Ajv); some OpenAPI patterns are not valid there. */
function isUnicodeRegex(pattern: string): boolean {
  try {
    new RegExp(pattern, 'u');
    return true;
  } catch {
    return false;
  }
}

export function appendSentence(text: unknown, sentence: string): string {
  const base = typeof text === 'string' ? text.trim() : '';
  if (!base) return sentence;
  return /[.!?]$/.test(base) ? `${base} ${sentence}` : `${base}. ${sentence}`;
}
