/**
 * Synthesizes one valid value for a JSON Schema (2020-12, as in a generated tool's inputSchema):
 * the arguments a careful model would send. In order of preference: `const`, `enum`, `default`,
 * `examples`, then a value built from the type and its constraints (format, bounds, multipleOf,
 * length, pattern, items, required properties...). Files (the `{ data, filename?, mimeType? }`
 * shape, recognized by `contentEncoding: base64` on `data`) get a small real PNG as base64.
 *
 * It is honest rather than clever: every optional property and parameter is filled in (more of
 * the wire format gets exercised), arrays get two items when allowed (so delimiters show), and
 * when it cannot produce a valid value (a `pattern` it cannot satisfy, `false`) it throws, naming
 * the schema path, instead of sending something invalid.
 */

export type Schema = { [keyword: string]: unknown } | boolean;
type SchemaObject = { [keyword: string]: unknown };

/** A 1x1 transparent PNG: a small, real binary payload (it is not valid UTF-8). */
export const PNG_1X1_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

export class SynthesisError extends Error {
  override name = 'SynthesisError';
}

interface Context {
  root: SchemaObject;
  /** `$ref`s currently being expanded, to keep recursive schemas finite. */
  refs: string[];
  path: string;
}

/** Arguments for a tool: a value for its inputSchema (always an object). */
export function exampleArguments(inputSchema: Schema): Record<string, unknown> {
  if (typeof inputSchema !== 'object')
    throw new SynthesisError('inputSchema must be an object schema');
  const value = exampleValue(inputSchema, inputSchema);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new SynthesisError(`inputSchema produced a non-object: ${JSON.stringify(value)}`);
  }
  return value as Record<string, unknown>;
}

/** A valid value for `schema`; `root` resolves `$ref`s (`#/$defs/...` or any local JSON pointer). */
export function exampleValue(
  schema: Schema,
  root: SchemaObject = typeof schema === 'object' ? schema : {},
): unknown {
  return synth(schema, { root, refs: [], path: '#' }, 0);
}

function synth(schema: Schema, ctx: Context, variant: number): unknown {
  if (schema === true) return variant === 0 ? 'example' : `example-${variant}`;
  if (schema === false)
    throw new SynthesisError(`${ctx.path}: the schema is false; no value is valid`);

  if (typeof schema.$ref === 'string') return synthRef(schema, ctx, variant);
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum)) {
    const values = schema.enum.filter((v) => v !== null);
    if (values.length === 0) return null;
    return values[variant % values.length];
  }
  if (schema.default !== undefined && schema.default !== null && variant === 0)
    return schema.default;
  if (Array.isArray(schema.examples)) {
    const values = schema.examples.filter((v) => v !== null && v !== undefined);
    if (values.length > 0 && variant < values.length) return values[variant];
  }
  if (Array.isArray(schema.allOf)) return synth(mergeAllOf(schema, ctx), ctx, variant);
  for (const key of ['oneOf', 'anyOf'] as const) {
    const options = schema[key];
    if (Array.isArray(options) && options.length > 0) {
      // The first option that is not just `null`, with the keywords around the oneOf/anyOf applied too.
      const index = Math.max(
        0,
        options.findIndex((o) => !isNullOnly(o, ctx)),
      );
      const { [key]: _dropped, ...rest } = schema;
      return synth(
        merge(rest, deref(options[index] as Schema, ctx)),
        { ...ctx, path: `${ctx.path}/${key}/${index}` },
        variant,
      );
    }
  }
  if (schema.not !== undefined) {
    const { not, ...rest } = schema;
    for (let v = variant; v < variant + 10; v++) {
      const candidate = synth(rest, ctx, v);
      if (!obviouslyMatches(candidate, deref(not as Schema, ctx))) return candidate;
    }
    throw new SynthesisError(`${ctx.path}: could not find a value outside \`not\``);
  }

  if (isFileSchema(schema)) {
    return {
      data: PNG_1X1_BASE64,
      filename: variant === 0 ? 'example.png' : `example-${variant}.png`,
    };
  }

  switch (typeOf(schema)) {
    case 'null':
      return null;
    case 'boolean':
      return variant % 2 === 0;
    case 'integer':
      return synthNumber(schema, variant, true);
    case 'number':
      return synthNumber(schema, variant, false);
    case 'array':
      return synthArray(schema, ctx);
    case 'object':
      return synthObject(schema, ctx);
    default:
      return synthString(schema, ctx, variant);
  }
}

function synthRef(schema: SchemaObject, ctx: Context, variant: number): unknown {
  const ref = schema.$ref as string;
  const target = resolvePointer(ctx.root, ref, ctx.path);
  const { $ref: _ref, ...siblings } = schema;
  // Each $ref may be expanded twice along one path; deeper than that, a recursive schema only
  // gets its required properties (see synthObject), which ends the recursion.
  const depth = ctx.refs.filter((r) => r === ref).length;
  const inner: Context = { ...ctx, refs: [...ctx.refs, ref], path: ref };
  if (depth >= 3)
    throw new SynthesisError(`${ctx.path}: ${ref} recurses through required properties`);
  return synth(Object.keys(siblings).length > 0 ? merge(siblings, target) : target, inner, variant);
}

function deref(schema: Schema, ctx: Context): Schema {
  if (typeof schema === 'object' && typeof schema.$ref === 'string') {
    const { $ref, ...siblings } = schema;
    return merge(siblings, resolvePointer(ctx.root, $ref, ctx.path));
  }
  return schema;
}

function resolvePointer(root: SchemaObject, ref: string, at: string): Schema {
  if (!ref.startsWith('#'))
    throw new SynthesisError(`${at}: only local $refs are supported, got ${ref}`);
  let node: unknown = root;
  for (const raw of ref.slice(1).split('/').slice(1)) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    node = (node as Record<string, unknown> | undefined)?.[key];
  }
  if (node === undefined || (typeof node !== 'object' && typeof node !== 'boolean')) {
    throw new SynthesisError(`${at}: $ref ${ref} does not resolve`);
  }
  return node as Schema;
}

function isNullOnly(schema: unknown, ctx: Context): boolean {
  const s = deref(schema as Schema, ctx);
  return (
    typeof s === 'object' &&
    (s.type === 'null' || (Array.isArray(s.enum) && s.enum.every((v) => v === null)))
  );
}

/** The schema's type: the first non-null one of a type array, else inferred from its keywords. */
function typeOf(schema: SchemaObject): string {
  const type = schema.type;
  if (typeof type === 'string') return type;
  if (Array.isArray(type)) {
    const real = type.find((t) => t !== 'null');
    return typeof real === 'string' ? real : 'null';
  }
  if (
    'properties' in schema ||
    'additionalProperties' in schema ||
    'patternProperties' in schema ||
    'required' in schema
  )
    return 'object';
  if ('items' in schema || 'prefixItems' in schema) return 'array';
  if (
    'minimum' in schema ||
    'maximum' in schema ||
    'exclusiveMinimum' in schema ||
    'multipleOf' in schema
  )
    return 'number';
  return 'string';
}

/** The tool-input file shape (runtime FileArgument). */
function isFileSchema(schema: SchemaObject): boolean {
  const data = (schema.properties as Record<string, SchemaObject> | undefined)?.data;
  return (
    typeOf(schema) === 'object' && typeof data === 'object' && data.contentEncoding === 'base64'
  );
}

function synthNumber(schema: SchemaObject, variant: number, integer: boolean): number {
  const num = (k: string) => (typeof schema[k] === 'number' ? (schema[k] as number) : undefined);
  const step = integer ? 1 : 0.5;
  let lo = num('minimum');
  const exMin = num('exclusiveMinimum');
  if (exMin !== undefined)
    lo = Math.max(lo ?? -Infinity, integer ? Math.floor(exMin) + 1 : exMin + step);
  let hi = num('maximum');
  const exMax = num('exclusiveMaximum');
  if (exMax !== undefined)
    hi = Math.min(hi ?? Infinity, integer ? Math.ceil(exMax) - 1 : exMax - step);
  let value = lo ?? (hi !== undefined ? Math.min(1, hi) : 1);
  value += variant * (integer ? 1 : step);
  const multipleOf = num('multipleOf');
  if (multipleOf !== undefined && multipleOf > 0)
    value = Math.ceil(value / multipleOf) * multipleOf;
  if (hi !== undefined && value > hi) {
    value = hi;
    if (multipleOf !== undefined && multipleOf > 0)
      value = Math.floor(hi / multipleOf) * multipleOf;
  }
  return integer ? Math.round(value) : value;
}

const FORMATS: Record<string, string> = {
  date: '2024-05-17',
  'date-time': '2024-05-17T10:30:00Z',
  time: '10:30:00Z',
  duration: 'P3D',
  email: 'ada@example.com',
  'idn-email': 'ada@example.com',
  uuid: '3f2a9c1e-7b4d-4e8a-9c2f-1a2b3c4d5e6f',
  uri: 'https://example.com/things/1',
  url: 'https://example.com/things/1',
  'uri-reference': '/things/1',
  iri: 'https://example.com/things/1',
  hostname: 'example.com',
  ipv4: '192.0.2.1',
  ipv6: '2001:db8::1',
  byte: 'aGVsbG8=',
  binary: PNG_1X1_BASE64,
  password: 'correct-horse',
  int32: '1',
  int64: '1',
};

function synthString(schema: SchemaObject, ctx: Context, variant: number): string {
  let value: string;
  const formatted = typeof schema.format === 'string' ? FORMATS[schema.format] : undefined;
  if (schema.contentEncoding === 'base64') value = PNG_1X1_BASE64;
  else if (formatted !== undefined) value = formatted;
  else value = variant === 0 ? 'example' : `example${variant}`;
  const min = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const max = typeof schema.maxLength === 'number' ? schema.maxLength : Infinity;
  if ([...value].length < min) value = value + 'x'.repeat(min - [...value].length);
  if ([...value].length > max) value = [...value].slice(0, max).join('');
  if (typeof schema.pattern === 'string') {
    const pattern = new RegExp(schema.pattern, 'u');
    if (!pattern.test(value)) {
      const candidates = [
        'example',
        'EXAMPLE',
        'Example1',
        '12345',
        'abc-123',
        'a',
        'A',
        '1',
        'x_1',
        '/example',
        'ab12cd',
      ];
      const found = [...candidates, stringForPattern(schema.pattern)].find(
        (c): c is string =>
          c !== undefined && pattern.test(c) && c.length >= min && c.length <= max,
      );
      if (found === undefined) {
        throw new SynthesisError(
          `${ctx.path}: cannot synthesize a string matching /${schema.pattern}/; give the schema an example`,
        );
      }
      value = found;
    }
  }
  return value;
}

function synthArray(schema: SchemaObject, ctx: Context): unknown[] {
  const min = typeof schema.minItems === 'number' ? schema.minItems : 0;
  const max = typeof schema.maxItems === 'number' ? schema.maxItems : Infinity;
  const prefix = Array.isArray(schema.prefixItems) ? (schema.prefixItems as Schema[]) : [];
  const count = Math.max(min, Math.min(2, max), prefix.length);
  const items = (schema.items ?? true) as Schema;
  const out: unknown[] = [];
  const seen = new Set<string>();
  for (let v = 0; out.length < count && v < count + 20; v++) {
    const index = out.length;
    const itemSchema = index < prefix.length ? prefix[index]! : items;
    const item = synth(itemSchema, { ...ctx, path: `${ctx.path}/items` }, v);
    const key = JSON.stringify(item);
    if (schema.uniqueItems === true && seen.has(key)) continue;
    // Without uniqueItems, still prefer distinct items (they show delimiters better), unless impossible.
    if (seen.has(key) && v < count + 5) continue;
    seen.add(key);
    out.push(item);
  }
  if (out.length < min)
    throw new SynthesisError(`${ctx.path}: could not make ${min} distinct items`);
  return out;
}

function synthObject(schema: SchemaObject, ctx: Context): Record<string, unknown> {
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  // Past the second expansion of a recursive $ref, only required properties (ends recursion).
  const deep =
    ctx.refs.length > 0 && ctx.refs.filter((r) => r === ctx.refs[ctx.refs.length - 1]).length >= 2;
  const out: Record<string, unknown> = {};
  for (const [name, propertySchema] of Object.entries(properties)) {
    if (deep && !required.has(name)) continue;
    if (
      typeof propertySchema === 'object' &&
      (propertySchema.readOnly === true || propertySchema.deprecated === true) &&
      !required.has(name)
    )
      continue;
    out[name] = synth(propertySchema, { ...ctx, path: `${ctx.path}/properties/${name}` }, 0);
  }
  for (const name of required) {
    if (!(name in out))
      out[name] = synth(
        extraSchema(schema, name),
        { ...ctx, path: `${ctx.path}/required/${name}` },
        0,
      );
  }
  if (!deep && schema.patternProperties && typeof schema.patternProperties === 'object') {
    for (const [pattern, valueSchema] of Object.entries(
      schema.patternProperties as Record<string, Schema>,
    )) {
      const key = keyMatching(pattern);
      if (key !== undefined && !(key in out))
        out[key] = synth(valueSchema, { ...ctx, path: `${ctx.path}/patternProperties` }, 0);
    }
  }
  const additional = schema.additionalProperties;
  if (
    !deep &&
    typeof additional === 'object' &&
    additional !== null &&
    Object.keys(additional).length > 0 &&
    !('extra' in properties)
  ) {
    if (keyMatchesAnyPattern(schema, 'extra') === false)
      out.extra = synth(
        additional as Schema,
        { ...ctx, path: `${ctx.path}/additionalProperties` },
        0,
      );
  }
  const minProperties = typeof schema.minProperties === 'number' ? schema.minProperties : 0;
  for (let i = 1; Object.keys(out).length < minProperties; i++) {
    if (additional === false) throw new SynthesisError(`${ctx.path}: minProperties cannot be met`);
    out[`extra${i}`] = synth(extraSchema(schema, `extra${i}`), ctx, i);
  }
  return out;
}

/** The schema of a property that is not under `properties`. */
function extraSchema(schema: SchemaObject, name: string): Schema {
  for (const [pattern, valueSchema] of Object.entries(
    (schema.patternProperties ?? {}) as Record<string, Schema>,
  )) {
    if (new RegExp(pattern, 'u').test(name)) return valueSchema;
  }
  const additional = schema.additionalProperties;
  return typeof additional === 'object' && additional !== null ? (additional as Schema) : true;
}

function keyMatchesAnyPattern(schema: SchemaObject, key: string): boolean {
  return Object.keys((schema.patternProperties ?? {}) as object).some((p) =>
    new RegExp(p, 'u').test(key),
  );
}

function keyMatching(pattern: string): string | undefined {
  const re = new RegExp(pattern, 'u');
  const literal = /^\^([A-Za-z0-9_-]+)/.exec(pattern)?.[1];
  const candidates = [
    literal ? `${literal}example` : undefined,
    literal,
    'x-example',
    'example',
    'a1',
    'A',
    '1',
    'key_1',
  ];
  return candidates.find((c): c is string => c !== undefined && re.test(c));
}

/** `allOf` members merged into one schema (properties and required joined). */
function mergeAllOf(schema: SchemaObject, ctx: Context): SchemaObject {
  const { allOf, ...rest } = schema;
  let merged: SchemaObject = rest;
  for (const member of allOf as Schema[]) {
    const resolved = deref(member, ctx);
    if (resolved === false) throw new SynthesisError(`${ctx.path}: allOf contains false`);
    if (resolved === true) continue;
    const flat = Array.isArray(resolved.allOf) ? mergeAllOf(resolved, ctx) : resolved;
    merged = merge(merged, flat);
  }
  return merged;
}

function merge(a: Schema, b: Schema): SchemaObject {
  if (a === false || b === false) return { not: {} };
  const x = a === true ? {} : a;
  const y = b === true ? {} : b;
  const out: SchemaObject = { ...y, ...x };
  if (x.properties || y.properties) {
    // allOf is an intersection: a property described on both sides must satisfy both.
    const px = (x.properties ?? {}) as Record<string, Schema>;
    const py = (y.properties ?? {}) as Record<string, Schema>;
    const names = [...new Set([...Object.keys(py), ...Object.keys(px)])];
    out.properties = Object.fromEntries(
      names.map((n) => [
        n,
        px[n] !== undefined && py[n] !== undefined ? merge(px[n]!, py[n]!) : (px[n] ?? py[n])!,
      ]),
    );
  }
  if (x.required || y.required)
    out.required = [
      ...new Set([...((y.required as string[]) ?? []), ...((x.required as string[]) ?? [])]),
    ];
  if (x.type !== undefined && y.type !== undefined) out.type = intersectTypes(x.type, y.type);
  return out;
}

function intersectTypes(a: unknown, b: unknown): unknown {
  const list = (t: unknown) => (Array.isArray(t) ? t : [t]);
  const common = list(a).filter(
    (t) => list(b).includes(t) || (t === 'integer' && list(b).includes('number')),
  );
  return common.length === 1 ? common[0] : common.length > 0 ? common : a;
}

/** Conservative check used for `not`: only const, enum and type are considered. */
function obviouslyMatches(value: unknown, schema: Schema): boolean {
  if (schema === true) return true;
  if (schema === false) return false;
  if ('const' in schema && JSON.stringify(schema.const) === JSON.stringify(value)) return true;
  if (
    Array.isArray(schema.enum) &&
    schema.enum.some((v) => JSON.stringify(v) === JSON.stringify(value))
  )
    return true;
  if (typeof schema.type === 'string' && Object.keys(schema).length === 1) {
    const t = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
    return schema.type === t || (schema.type === 'integer' && Number.isInteger(value));
  }
  return false;
}

/**
 * The shortest obvious string for a simple regular expression: literals, escapes (\d \w \s and
 * escaped characters), character classes (their first member), `.`, groups (their first
 * alternative) and quantifiers (their minimum, at least once for `+`). Anything fancier gives
 * undefined, and the caller reports that the schema needs an example.
 */
export function stringForPattern(pattern: string): string | undefined {
  let i = 0;
  const atom = (): string | undefined => {
    const c = pattern[i];
    if (c === undefined) return undefined;
    if (c === '\\') {
      const e = pattern[i + 1];
      i += 2;
      if (e === undefined) return undefined;
      return ({ d: '1', w: 'a', s: ' ', D: 'a', W: '-', S: 'a' } as Record<string, string>)[e] ?? e;
    }
    if (c === '[') {
      let j = i + 1;
      const negated = pattern[j] === '^';
      if (negated) j++;
      let first: string | undefined = pattern[j] === '\\' ? pattern[j + 1] : pattern[j];
      if (pattern[j] === '\\')
        first = ({ d: '1', w: 'a', s: ' ' } as Record<string, string>)[first ?? ''] ?? first;
      while (j < pattern.length && !(pattern[j] === ']' && j > i + 1))
        j += pattern[j] === '\\' ? 2 : 1;
      i = j + 1;
      return negated ? undefined : first;
    }
    if (c === '(') {
      let depth = 0;
      let j = i;
      for (; j < pattern.length; j++) {
        if (pattern[j] === '\\') j++;
        else if (pattern[j] === '(') depth++;
        else if (pattern[j] === ')' && --depth === 0) break;
      }
      const inner = pattern.slice(pattern.startsWith('(?:', i) ? i + 3 : i + 1, j);
      i = j + 1;
      return stringForPattern(splitAlternatives(inner)[0] ?? '');
    }
    if (c === '.') {
      i++;
      return 'a';
    }
    if ('^$'.includes(c)) {
      i++;
      return '';
    }
    if ('|)*+?{'.includes(c)) return undefined;
    i++;
    return c;
  };
  const alternatives = splitAlternatives(pattern);
  if (alternatives.length > 1) return stringForPattern(alternatives[0] ?? '');
  let out = '';
  while (i < pattern.length) {
    const piece = atom();
    if (piece === undefined) return undefined;
    const q = /^(\{(\d+)(,(\d*))?\}|[*+?])\??/.exec(pattern.slice(i));
    let times = 1;
    if (q) {
      i += q[0].length;
      if (q[1] === '*' || q[1] === '?') times = 0;
      else if (q[1] === '+') times = 1;
      else times = Number(q[2]);
    }
    out += piece.repeat(times);
  }
  return out;
}

function splitAlternatives(pattern: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let j = 0; j < pattern.length; j++) {
    const c = pattern[j];
    if (c === '\\') j++;
    else if (c === '(' || c === '[') depth++;
    else if (c === ')' || c === ']') depth--;
    else if (c === '|' && depth === 0) {
      parts.push(pattern.slice(start, j));
      start = j + 1;
    }
  }
  parts.push(pattern.slice(start));
  return parts;
}
