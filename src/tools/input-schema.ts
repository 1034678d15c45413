import type { ArgumentBinding, BodyEncoding, FieldEncoding, JsonSchema } from '../../runtime/types.js';
import type { ApiOperation, ParameterLocation, Schema } from '../model/api-model.js';
import { bodyEncodingFor, preferredBodyMediaType } from './media-types.js';
import { argumentName, shortHash } from './naming.js';
import { createToolSchemaConverter, fileSchema, isBinarySchema } from './tool-schema.js';

export interface ToolInput {
  schema: JsonSchema;
  bindings: ArgumentBinding[];
  body?: {
    mediaType: string;
    encoding: BodyEncoding;
    fileFields?: string[];
    fieldEncodings?: Record<string, FieldEncoding>;
  };
}

export interface InputOptions {
  /** Request body media types to prefer when an operation accepts several (`--prefer-media-type`). */
  preferMediaTypes?: readonly string[];
}

/** Order in which locations claim argument names: a path parameter keeps its plain name first. */
const CLAIM_ORDER: ParameterLocation[] = ['path', 'query', 'header', 'cookie'];

/**
 * The tool's input schema: one property per parameter plus `body` for the request body.
 *
 * Name clashes are settled in one fixed order: path, query, header, cookie, body. The first keeps
 * the plain name; a later one is prefixed with its location (`header_id`). Request-body fields sit
 * under `body`, so an `id` in the path and an `id` in the body never clash.
 */
export function buildToolInput(
  op: ApiOperation,
  schemaNames: ReadonlyMap<Schema, string>,
  options: InputOptions = {},
): ToolInput {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  const bindings: ArgumentBinding[] = [];
  const taken = new Set<string>();
  const claim = (raw: string, location: string): string => {
    let name = argumentName(raw);
    if (taken.has(name)) name = argumentName(`${location}_${raw}`);
    if (taken.has(name)) name = argumentName(`${location}_${raw}_${shortHash(raw)}`);
    taken.add(name);
    return name;
  };

  const params = [...op.parameters].sort((a, b) => CLAIM_ORDER.indexOf(a.in) - CLAIM_ORDER.indexOf(b.in));
  const content = op.requestBody ? preferredBodyMediaType(op.requestBody.contents, options.preferMediaTypes) : undefined;
  const bodySchema = content ? (content.schema ?? {}) : undefined;
  const converter = createToolSchemaConverter('input', schemaNames, [
    ...params.map((p) => p.schema),
    ...(bodySchema ? [bodySchema] : []),
  ]);
  for (const param of params) {
    const arg = claim(param.name, param.in);
    properties[arg] = withDocs(converter.convert(param.schema), param.description, param.deprecated);
    if (param.required) required.push(arg);
    bindings.push({
      arg,
      in: param.in,
      name: param.name,
      style: param.style,
      explode: param.explode,
      ...(param.allowReserved ? { allowReserved: true } : {}),
      ...(param.contentType ? { contentType: param.contentType } : {}),
    });
  }

  let body: ToolInput['body'];
  if (op.requestBody && content && bodySchema) {
    const arg = claim('body', 'request');
    const encoding = bodyEncodingFor(content.mediaType, content.schema);
    const description = op.requestBody.description ?? 'The request body.';
    // A raw-bytes body is always a file argument, whatever (little) its schema says.
    properties[arg] =
      encoding === 'binary' ? fileSchema(description) : withDocs(converter.convert(bodySchema), description);
    if (op.requestBody.required) required.push(arg);
    bindings.push({ arg, in: 'body' });
    const fileFields = encoding === 'multipart' ? binaryFields(bodySchema) : [];
    body = {
      mediaType: content.mediaType,
      encoding,
      ...(fileFields.length > 0 ? { fileFields } : {}),
      ...(content.encoding && (encoding === 'form' || encoding === 'multipart') ? { fieldEncodings: content.encoding } : {}),
    };
  }

  const defs = converter.defs();
  const schema: JsonSchema = {
    type: 'object',
    properties,
    ...(required.length > 0 ? { required } : {}),
    additionalProperties: false,
    ...(defs ? { $defs: defs } : {}),
  };
  return { schema, bindings, ...(body ? { body } : {}) };
}

/** Top-level fields of a multipart body that carry files (or arrays of files). */
function binaryFields(schema: Schema): string[] {
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  return Object.entries(properties)
    .filter(([, p]) => isBinarySchema(p) || (p.type === 'array' && isBinarySchema((p.items ?? {}) as Schema)))
    .map(([name]) => name);
}

/** A parameter's own description wins over its schema's; a `$ref`-only schema keeps its siblings (2020-12). */
function withDocs(schema: Schema, description: string | undefined, deprecated?: boolean): Schema {
  return {
    ...schema,
    ...(description ? { description: description.trim() } : {}),
    ...(deprecated ? { deprecated: true } : {}),
  };
}
