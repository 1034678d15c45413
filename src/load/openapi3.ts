import type {
  ApiModel,
  ApiOperation,
  ApiParameter,
  ApiRequestBody,
  ApiResponse,
  ApiServer,
  FieldEncoding,
  HttpMethod,
  MediaTypeContent,
  ParameterLocation,
  ParameterStyle,
  Schema,
  ServerVariable,
} from '../model/api-model.js';
import { createDialectConverter, isDraft4, type SchemaDialect } from './schema-dialect.js';
import { toSecurity, toSecuritySchemes } from './security.js';
import { HTTP_METHODS, jsonPointer, type Doc, asRecord, asArray, optionalString } from './spec-shape.js';

/** Default serialization style per location (OpenAPI 3, "style" defaults). */
const DEFAULT_STYLE: Record<ParameterLocation, ParameterStyle> = {
  path: 'simple',
  query: 'form',
  header: 'simple',
  cookie: 'form',
};

/** OpenAPI 3: header parameters with these names "SHALL be ignored" (they are set by the runtime). */
const IGNORED_HEADERS = new Set(['accept', 'content-type', 'authorization']);

/** OpenAPI 3.0 / 3.1 (dereferenced) → the intermediate model. */
export function openApi3ToModel(doc: Doc, dialect: Extract<SchemaDialect, 'oas30' | 'oas31'>): ApiModel {
  // A 3.1 document may declare draft-04 as its schemas' dialect; then they follow draft-04 rules.
  const toSchema = createDialectConverter(dialect === 'oas31' && isDraft4(doc.jsonSchemaDialect) ? 'oas30' : dialect);
  const info = asRecord(doc.info);
  const schemaNames = new Map<Schema, string>();
  for (const [name, schema] of Object.entries(asRecord(asRecord(doc.components).schemas))) {
    schemaNames.set(toSchema(schema), name);
  }

  const servers = asArray(doc.servers).map(toServer);
  const securitySchemes = toSecuritySchemes(asRecord(asRecord(doc.components).securitySchemes), false);
  const globalSecurity = toSecurity(doc.security);
  const operations: ApiOperation[] = [];
  for (const [path, pathItemValue] of Object.entries(asRecord(doc.paths))) {
    const pathItem = asRecord(pathItemValue);
    for (const method of HTTP_METHODS) {
      const op = pathItem[method.toLowerCase()];
      if (!op || typeof op !== 'object') continue;
      const operation = toOperation(path, method, pathItem, asRecord(op), toSchema);
      const security = toSecurity(asRecord(op).security) ?? globalSecurity;
      operations.push(security ? { ...operation, security } : operation);
    }
  }

  return {
    title: optionalString(info.title) ?? 'API',
    version: optionalString(info.version) ?? '0.0.0',
    description: optionalString(info.description) ?? optionalString(info.summary),
    baseUrl: servers[0] ? defaultServerUrl(servers[0]) : '/',
    servers,
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
): ApiOperation {
  return {
    operationId: optionalString(op.operationId),
    method,
    path,
    summary: optionalString(op.summary) ?? optionalString(pathItem.summary),
    description: optionalString(op.description) ?? optionalString(pathItem.description),
    deprecated: op.deprecated === true || undefined,
    tags: asArray(op.tags).filter((t): t is string => typeof t === 'string'),
    parameters: mergeParameters(asArray(pathItem.parameters), asArray(op.parameters))
      .filter((p) => !(p.in === 'header' && IGNORED_HEADERS.has(String(p.name).toLowerCase())))
      .map((p) => toParameter(p, toSchema)),
    requestBody: op.requestBody ? toRequestBody(asRecord(op.requestBody), toSchema) : undefined,
    responses: Object.entries(asRecord(op.responses)).map(([status, r]) => toResponse(status, asRecord(r), toSchema)),
    ...serverOf(op, pathItem),
    pointer: jsonPointer(['paths', path, method.toLowerCase()]),
  };
}

/** Operation-level servers win over path-level ones; only the first of a list is used. */
function serverOf(op: Doc, pathItem: Doc): { server?: ApiServer } {
  const first = asArray(op.servers)[0] ?? asArray(pathItem.servers)[0];
  return first ? { server: toServer(first) } : {};
}

/** Operation-level parameters override path-level ones with the same name and location. */
export function mergeParameters(pathLevel: unknown[], operationLevel: unknown[]): Doc[] {
  const byKey = new Map<string, Doc>();
  for (const p of [...pathLevel, ...operationLevel]) {
    const param = asRecord(p);
    byKey.set(`${String(param.in)}:${String(param.name)}`, param);
  }
  return [...byKey.values()];
}

function toParameter(p: Doc, toSchema: (s: unknown) => Schema): ApiParameter {
  const location = p.in as ParameterLocation;
  const style = (optionalString(p.style) as ParameterStyle | undefined) ?? DEFAULT_STYLE[location];
  // A parameter may carry its schema inside `content` instead of `schema` (one media type).
  const [contentType, media] = Object.entries(asRecord(p.content))[0] ?? [];
  const converted = toSchema(p.schema ?? asRecord(media).schema ?? {});
  // A parameter's own example(s) help a model as much as its schema's: carry them over.
  const examples = parameterExamples(p);
  const schema = examples && converted.examples === undefined ? { ...converted, examples } : converted;
  return {
    name: String(p.name),
    in: location,
    required: location === 'path' ? true : p.required === true,
    description: optionalString(p.description),
    deprecated: p.deprecated === true || undefined,
    schema,
    style,
    explode: typeof p.explode === 'boolean' ? p.explode : style === 'form',
    allowReserved: p.allowReserved === true || undefined,
    ...(p.schema === undefined && contentType ? { contentType } : {}),
  };
}

function parameterExamples(p: Doc): unknown[] | undefined {
  if (p.example !== undefined) return [p.example];
  const values = Object.values(asRecord(p.examples))
    .map((e) => asRecord(e).value)
    .filter((v) => v !== undefined);
  return values.length > 0 ? values : undefined;
}

function toContents(content: unknown, toSchema: (s: unknown) => Schema): MediaTypeContent[] {
  return Object.entries(asRecord(content)).map(([mediaType, mediaValue]) => {
    const media = asRecord(mediaValue);
    const encoding = toEncoding(media.encoding);
    return {
      mediaType,
      ...(media.schema === undefined ? {} : { schema: toSchema(media.schema) }),
      ...(encoding ? { encoding } : {}),
    };
  });
}

function toEncoding(value: unknown): Record<string, FieldEncoding> | undefined {
  const entries = Object.entries(asRecord(value)).map(([field, e]): [string, FieldEncoding] => {
    const enc = asRecord(e);
    return [
      field,
      {
        ...(optionalString(enc.contentType) ? { contentType: String(enc.contentType) } : {}),
        ...(optionalString(enc.style) ? { style: enc.style as ParameterStyle } : {}),
        ...(typeof enc.explode === 'boolean' ? { explode: enc.explode } : {}),
        ...(enc.allowReserved === true ? { allowReserved: true } : {}),
      },
    ];
  });
  return entries.length > 0 ? Object.fromEntries(entries) : undefined;
}

function toRequestBody(body: Doc, toSchema: (s: unknown) => Schema): ApiRequestBody {
  return {
    required: body.required === true,
    description: optionalString(body.description),
    contents: toContents(body.content, toSchema),
  };
}

function toResponse(status: string, response: Doc, toSchema: (s: unknown) => Schema): ApiResponse {
  return {
    status,
    description: optionalString(response.description),
    contents: toContents(response.content, toSchema),
  };
}

export function toServer(value: unknown): ApiServer {
  const server = asRecord(value);
  const variables: ServerVariable[] = Object.entries(asRecord(server.variables)).map(([name, v]) => {
    const variable = asRecord(v);
    const values = asArray(variable.enum).map(String);
    return {
      name,
      default: variable.default === undefined ? (values[0] ?? '') : String(variable.default),
      ...(values.length > 0 ? { enum: values } : {}),
      ...(optionalString(variable.description) ? { description: String(variable.description) } : {}),
    };
  });
  return {
    url: optionalString(server.url) ?? '/',
    ...(optionalString(server.description) ? { description: String(server.description) } : {}),
    variables,
  };
}

/** A server URL with each `{variable}` replaced by its default. */
export function defaultServerUrl(server: ApiServer): string {
  return server.url.replace(/\{([^}]+)\}/g, (whole, name: string) => server.variables.find((v) => v.name === name)?.default ?? whole);
}
