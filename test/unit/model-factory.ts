/**
 * Hand-built intermediate models for the tools and emit stages: no spec parsing involved.
 * Every builder takes the few fields a test cares about and fills the rest with neutral values.
 */
import type {
  ApiModel,
  ApiOperation,
  ApiParameter,
  ApiRequestBody,
  ApiResponse,
  HttpMethod,
  MediaTypeContent,
  ParameterLocation,
  Schema,
} from '../../src/model/api-model.js';

const DEFAULT_STYLE: Record<ParameterLocation, { style: ApiParameter['style']; explode: boolean }> = {
  path: { style: 'simple', explode: false },
  query: { style: 'form', explode: true },
  header: { style: 'simple', explode: false },
  cookie: { style: 'form', explode: true },
};

export function operation(method: HttpMethod, path: string, extra: Partial<ApiOperation> = {}): ApiOperation {
  return {
    method,
    path,
    tags: [],
    parameters: [],
    responses: [],
    pointer: `/paths/${path.replace(/~/g, '~0').replace(/\//g, '~1')}/${method.toLowerCase()}`,
    ...extra,
  };
}

export function parameter(
  name: string,
  location: ParameterLocation,
  schema: Schema = { type: 'string' },
  extra: Partial<ApiParameter> = {},
): ApiParameter {
  return {
    name,
    in: location,
    required: location === 'path',
    schema,
    ...DEFAULT_STYLE[location],
    ...extra,
  };
}

export function body(contents: MediaTypeContent[] | Schema, extra: Partial<ApiRequestBody> = {}): ApiRequestBody {
  const list = Array.isArray(contents) ? contents : [{ mediaType: 'application/json', schema: contents }];
  return { required: false, contents: list, ...extra };
}

export function response(status: string, schema?: Schema, extra: Partial<ApiResponse> = {}): ApiResponse {
  return {
    status,
    description: extra.description,
    contents: schema === undefined ? [] : [{ mediaType: 'application/json', schema }],
    ...extra,
  };
}

export function model(operations: ApiOperation[], extra: Partial<ApiModel> = {}): ApiModel {
  return {
    title: 'Test API',
    version: '1.0.0',
    baseUrl: 'https://api.example.test/v1',
    servers: [{ url: 'https://api.example.test/v1', variables: [] }],
    securitySchemes: {},
    operations,
    schemaNames: new Map(),
    ...extra,
  };
}

/** `new Map([[schema, name], ...])` from `{ name: schema }`, the way load/ records component names. */
export function names(byName: Record<string, Schema>): Map<Schema, string> {
  return new Map(Object.entries(byName).map(([name, schema]) => [schema, name]));
}

/** A `Pet`-style component: a named object schema with a readOnly id and a writeOnly secret. */
export function petSchema(): Schema {
  return {
    type: 'object',
    properties: {
      id: { type: 'integer', readOnly: true },
      name: { type: 'string', minLength: 1 },
      secret: { type: 'string', writeOnly: true },
    },
    required: ['id', 'name'],
  };
}

/** `Node = { value: string, children: Node[] }`: a cyclic graph, as dereferencing a recursive $ref gives. */
export function treeSchema(): Schema {
  const node: Schema = { type: 'object', properties: {} };
  (node.properties as Record<string, Schema>).value = { type: 'string' };
  (node.properties as Record<string, Schema>).children = { type: 'array', items: node };
  return node;
}

export function deepFreeze<T>(value: T, seen = new Set<unknown>()): T {
  if (value === null || typeof value !== 'object' || seen.has(value)) return value;
  seen.add(value);
  for (const child of Object.values(value as object)) deepFreeze(child, seen);
  return Object.freeze(value);
}
