import type { OutputBinding } from '../../runtime/types.js';
import type { ApiOperation, ApiResponse, Schema } from '../model/api-model.js';
import { isJsonMediaType } from './media-types.js';
import { createToolSchemaConverter } from './tool-schema.js';

/** Key under which a non-object JSON result is wrapped, since structuredContent must be an object. */
export const WRAP_KEY = 'result';

/**
 * The responses a successful call is described by: every 2xx (and `2XX`), lowest first. An
 * operation whose only response is `default` is described by that; next to explicit error codes,
 * `default` is the error catch-all and says nothing about success.
 */
export function successResponses(op: ApiOperation): ApiResponse[] {
  const success = op.responses.filter((r) => /^2(\d\d|XX)$/i.test(r.status));
  if (success.length > 0) return success.sort((a, b) => a.status.localeCompare(b.status));
  return op.responses.length === 1 && op.responses[0]?.status === 'default' ? [op.responses[0]] : [];
}

export function successResponse(op: ApiOperation): ApiResponse | undefined {
  return successResponses(op)[0];
}

/**
 * outputSchema from the success response's JSON schema. Object roots are used as they are; arrays,
 * primitives and unions are wrapped as `{ result: ... }`. No JSON schema → no outputSchema, and the
 * tool answers with text only.
 */
export function buildToolOutput(op: ApiOperation, schemaNames: ReadonlyMap<Schema, string>): OutputBinding | undefined {
  if (op.method === 'HEAD') return undefined;
  const schemas = jsonSchemasOf(successResponses(op));
  if (schemas.length === 0) return undefined;
  // Several success responses with different bodies: the result is any one of them.
  const converter = createToolSchemaConverter('output', schemaNames, schemas);
  const converted = schemas.length === 1 ? converter.convert(schemas[0] as Schema) : { anyOf: schemas.map((s) => converter.convert(s)) };
  const defs = converter.defs();
  const $defs = defs ? { $defs: defs } : {};
  if (isObjectRoot(converted, defs)) {
    return { schema: { ...converted, type: 'object', ...$defs } };
  }
  return {
    schema: { type: 'object', properties: { [WRAP_KEY]: converted }, ...$defs },
    wrapKey: WRAP_KEY,
  };
}

/** The distinct JSON body schemas of the given responses, in order. */
function jsonSchemasOf(responses: ApiResponse[]): Schema[] {
  const schemas: Schema[] = [];
  for (const response of responses) {
    for (const content of response.contents) {
      if (isJsonMediaType(content.mediaType) && content.schema && !schemas.includes(content.schema)) schemas.push(content.schema);
    }
  }
  return schemas;
}

/**
 * Whether every value the schema accepts is an object, so it can be structuredContent unwrapped:
 * `type: object`, object keywords without a type, an allOf with an object member, or a
 * oneOf/anyOf whose members all are objects. A nullable object (`type: [object, null]`) is not.
 */
export function isObjectRoot(schema: Schema, defs: Record<string, Schema> = {}): boolean {
  const ref = typeof schema.$ref === 'string' ? /^#\/\$defs\/(.+)$/.exec(schema.$ref)?.[1] : undefined;
  if (ref !== undefined) return defs[ref] !== undefined && isObjectRoot(defs[ref], {});
  if (schema.type !== undefined) return schema.type === 'object';
  const members = (key: string) => (Array.isArray(schema[key]) ? (schema[key] as Schema[]) : undefined);
  const allOf = members('allOf');
  if (allOf?.some((m) => isObjectRoot(m, defs))) return true;
  for (const key of ['oneOf', 'anyOf']) {
    const list = members(key);
    if (list && list.length > 0 && list.every((m) => isObjectRoot(m, defs))) return true;
  }
  return 'properties' in schema || 'additionalProperties' in schema || 'patternProperties' in schema;
}
