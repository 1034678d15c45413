import type { OutputBinding } from '../../runtime/types.js';
import type { ApiOperation, ApiResponse, Schema } from '../model/api-model.js';
import { isJsonMediaType } from './media-types.js';
import { createToolSchemaConverter } from './tool-schema.js';

/** Key under which a non-object JSON result is wrapped, since structuredContent must be an object. */
export const WRAP_KEY = 'result';

/** The response a successful call is described by: the lowest 2xx code, then `2XX`. */
export function successResponse(op: ApiOperation): ApiResponse | undefined {
  const success = op.responses.filter((r) => /^2(\d\d|XX)$/i.test(r.status));
  return success.sort((a, b) => a.status.localeCompare(b.status))[0];
}

/**
 * outputSchema from the success response's JSON schema. Object roots are used as they are; arrays,
 * primitives and unions are wrapped as `{ result: ... }`. No JSON schema → no outputSchema, and the
 * tool answers with text only.
 */
export function buildToolOutput(op: ApiOperation, schemaNames: ReadonlyMap<Schema, string>): OutputBinding | undefined {
  if (op.method === 'HEAD') return undefined;
  const json = successResponse(op)?.contents.find((c) => isJsonMediaType(c.mediaType) && c.schema);
  if (!json?.schema) return undefined;
  const converter = createToolSchemaConverter('output', schemaNames, [json.schema]);
  const converted = converter.convert(json.schema);
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
