import type {
  ApiModel,
  ApiOperation,
  ApiParameter,
  ApiRequestBody,
  ApiResponse,
  HttpMethod,
  ParameterLocation,
  ParameterStyle,
  Schema,
} from '../model/api-model.js';
import { mergeParameters } from './openapi3.js';
import { createDialectConverter } from './schema-dialect.js';
import { toSecurity, toSecuritySchemes } from './security.js';
import { HTTP_METHODS, asArray, asRecord, jsonPointer, optionalString, type Doc } from './spec-shape.js';

/** Swagger 2.0 parameter fields that are JSON Schema keywords (the rest describe the parameter). */
const SCHEMA_FIELDS = [
  'type', 'format', 'items', 'default', 'maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum',
  'maxLength', 'minLength', 'pattern', 'maxItems', 'minItems', 'uniqueItems', 'enum', 'multipleOf',
  'x-nullable', 'example',
];

const FORM_MEDIA_TYPES = ['multipart/form-data', 'application/x-www-form-urlencoded'];

/** Swagger 2.0 (dereferenced) → the intermediate model. */
export function swagger2ToModel(doc: Doc): ApiModel {
  const toSchema = createDialectConverter('swagger2');
  const info = asRecord(doc.info);
  const schemaNames = new Map<Schema, string>();
  for (const [name, schema] of Object.entries(asRecord(doc.definitions))) schemaNames.set(toSchema(schema), name);

  const base = baseUrl(doc);
  const securitySchemes = toSecuritySchemes(asRecord(doc.securityDefinitions), true);
  const globalSecurity = toSecurity(doc.security);
  const consumes = stringList(doc.consumes);
  const produces = stringList(doc.produces);
  const operations: ApiOperation[] = [];
  for (const [path, pathItemValue] of Object.entries(asRecord(doc.paths))) {
    const pathItem = asRecord(pathItemValue);
    for (const method of HTTP_METHODS) {
      const op = asRecord(pathItem[method.toLowerCase()]);
      if (Object.keys(op).length === 0) continue;
      const operation = toOperation(path, method, pathItem, op, toSchema, stringList(op.consumes) ?? consumes, stringList(op.produces) ?? produces);
      const security = toSecurity(op.security) ?? globalSecurity;
      operations.push(security ? { ...operation, security } : operation);
    }
  }

  return {
    title: optionalString(info.title) ?? 'API',
    version: optionalString(info.version) ?? '0.0.0',
    description: optionalString(info.description),
    baseUrl: base,
    servers: [{ url: base, variables: [] }],
    securitySchemes,
    operations,
    schemaNames,
  };
}

function toOperation(
  path: string,
  method: HttpMethod,
  pathItem: Doc,
  op: Doc,
  toSchema: (s: unknown) => Schema,
  consumes: string[] | undefined,
  produces: string[] | undefined,
): ApiOperation {
  const all = mergeParameters(asArray(pathItem.parameters), asArray(op.parameters));
  const bodyParam = all.find((p) => p.in === 'body');
  const formParams = all.filter((p) => p.in === 'formData');
  const parameters = all
    .filter((p) => p.in === 'path' || p.in === 'query' || p.in === 'header')
    .map((p) => toParameter(p, toSchema));

  let requestBody: ApiRequestBody | undefined;
  if (bodyParam) {
    const schema = toSchema(bodyParam.schema ?? {});
    requestBody = {
      required: bodyParam.required === true,
      description: optionalString(bodyParam.description),
      contents: (consumes ?? ['application/json']).map((mediaType) => ({ mediaType, schema })),
    };
  } else if (formParams.length > 0) {
    requestBody = formBody(formParams, toSchema, consumes);
  }

  const responses: ApiResponse[] = Object.entries(asRecord(op.responses)).map(([status, r]) => {
    const response = asRecord(r);
    const schema = response.schema === undefined ? undefined : toSchema(response.schema);
    return {
      status,
      description: optionalString(response.description),
      contents: schema ? (produces ?? ['application/json']).map((mediaType) => ({ mediaType, schema })) : [],
    };
  });

  return {
    operationId: optionalString(op.operationId),
    method,
    path,
    summary: optionalString(op.summary),
    description: optionalString(op.description),
    deprecated: op.deprecated === true || undefined,
    tags: asArray(op.tags).filter((t): t is string => typeof t === 'string'),
    parameters,
    requestBody,
    responses,
    pointer: jsonPointer(['paths', path, method.toLowerCase()]),
  };
}

function parameterSchema(p: Doc): Doc {
  const schema: Doc = {};
  for (const field of SCHEMA_FIELDS) if (p[field] !== undefined) schema[field] = p[field];
  if (p.description !== undefined) schema.description = p.description;
  return schema;
}

function toParameter(p: Doc, toSchema: (s: unknown) => Schema): ApiParameter {
  const location = p.in as ParameterLocation;
  return {
    name: String(p.name),
    in: location,
    required: location === 'path' ? true : p.required === true,
    description: optionalString(p.description),
    schema: toSchema(parameterSchema(p)),
    ...collectionStyle(location, p.type === 'array' ? optionalString(p.collectionFormat) ?? 'csv' : undefined),
  };
}

/** Swagger 2.0 collectionFormat as an OpenAPI 3 style + explode pair. */
export function collectionStyle(
  location: ParameterLocation,
  collectionFormat: string | undefined,
): { style: ParameterStyle; explode: boolean } {
  const simple = location === 'path' || location === 'header';
  switch (collectionFormat) {
    case 'multi':
      return { style: 'form', explode: true };
    case 'ssv':
      return { style: 'spaceDelimited', explode: false };
    case 'tsv':
      return { style: 'tabDelimited', explode: false };
    case 'pipes':
      return { style: 'pipeDelimited', explode: false };
    case 'csv':
      return { style: simple ? 'simple' : 'form', explode: false };
    default:
      return { style: simple ? 'simple' : 'form', explode: !simple };
  }
}

/** formData parameters become one object-shaped form body. */
function formBody(params: Doc[], toSchema: (s: unknown) => Schema, consumes: string[] | undefined): ApiRequestBody {
  const properties: Record<string, Doc> = {};
  const required: string[] = [];
  for (const p of params) {
    properties[String(p.name)] = parameterSchema(p);
    if (p.required === true) required.push(String(p.name));
  }
  const hasFile = params.some((p) => p.type === 'file');
  const declared = (consumes ?? []).filter((m) => FORM_MEDIA_TYPES.includes(m));
  const mediaTypes = declared.length > 0 ? declared : [hasFile ? 'multipart/form-data' : 'application/x-www-form-urlencoded'];
  const schema = toSchema({ type: 'object', properties, ...(required.length ? { required } : {}) });
  // Array fields keep their collectionFormat (csv by default) as an Encoding Object.
  const encoding = Object.fromEntries(
    params
      .filter((p) => p.type === 'array')
      .map((p) => [String(p.name), collectionStyle('query', optionalString(p.collectionFormat) ?? 'csv')]),
  );
  const withEncoding = Object.keys(encoding).length > 0 ? { encoding } : {};
  return {
    required: required.length > 0,
    contents: mediaTypes.map((mediaType) => ({ mediaType, schema, ...withEncoding })),
  };
}

function stringList(value: unknown): string[] | undefined {
  const list = asArray(value).filter((v): v is string => typeof v === 'string');
  return list.length > 0 ? list : undefined;
}

/** scheme://host/basePath; https preferred when the spec allows it. */
function baseUrl(doc: Doc): string {
  const basePath = optionalString(doc.basePath) ?? '';
  const host = optionalString(doc.host);
  if (!host) return basePath || '/';
  const schemes = stringList(doc.schemes) ?? ['https'];
  const scheme = schemes.includes('https') ? 'https' : schemes[0];
  return `${scheme}://${host}${basePath}`;
}
