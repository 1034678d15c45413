import type { ArgumentBinding, JsonSchema } from '../../runtime/types.js';
import type { ApiOperation, ParameterLocation, Schema } from '../model/api-model.js';
import { preferredBodyMediaType } from './media-types.js';
import { argumentName, shortHash } from './naming.js';
import { createToolSchemaConverter } from './tool-schema.js';

export interface ToolInput {
  schema: JsonSchema;
  bindings: ArgumentBinding[];
  bodyMediaType?: string;
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
export function buildToolInput(op: ApiOperation, schemaNames: ReadonlyMap<Schema, string>): ToolInput {
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
  const content = op.requestBody ? preferredBodyMediaType(op.requestBody.contents) : undefined;
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
    });
  }

  if (op.requestBody && content && bodySchema) {
    const arg = claim('body', 'request');
    properties[arg] = withDocs(converter.convert(bodySchema), op.requestBody.description ?? 'The request body.');
    if (op.requestBody.required) required.push(arg);
    bindings.push({ arg, in: 'body' });
  }

  const defs = converter.defs();
  const schema: JsonSchema = {
    type: 'object',
    properties,
    ...(required.length > 0 ? { required } : {}),
    additionalProperties: false,
    ...(defs ? { $defs: defs } : {}),
  };
  return { schema, bindings, ...(content ? { bodyMediaType: content.mediaType } : {}) };
}

/** A parameter's own description wins over its schema's; a `$ref`-only schema keeps its siblings (2020-12). */
function withDocs(schema: Schema, description: string | undefined, deprecated?: boolean): Schema {
  return {
    ...schema,
    ...(description ? { description: description.trim() } : {}),
    ...(deprecated ? { deprecated: true } : {}),
  };
}
