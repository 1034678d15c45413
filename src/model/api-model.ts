/**
 * The spec-free intermediate model. Everything OpenAPI-version-specific ends in load/;
 * from here on, stages see only these shapes. Schemas are JSON Schema 2020-12 object
 * graphs: shared and possibly cyclic (a recursive schema points back at itself).
 */

export type Schema = { [keyword: string]: unknown };

export type HttpMethod = 'GET' | 'PUT' | 'POST' | 'DELETE' | 'OPTIONS' | 'HEAD' | 'PATCH' | 'TRACE';

export type ParameterLocation = 'path' | 'query' | 'header' | 'cookie';

export type ParameterStyle =
  | 'simple'
  | 'label'
  | 'matrix'
  | 'form'
  | 'spaceDelimited'
  | 'pipeDelimited'
  | 'deepObject'
  | 'tabDelimited';

export interface ApiParameter {
  name: string;
  in: ParameterLocation;
  required: boolean;
  description?: string;
  deprecated?: boolean;
  schema: Schema;
  style: ParameterStyle;
  explode: boolean;
  allowReserved?: boolean;
  /** Media type of a parameter described with `content` instead of `schema`. */
  contentType?: string;
}

/** OpenAPI Encoding Object: how one field of a form or multipart body is serialized. */
export interface FieldEncoding {
  contentType?: string;
  style?: ParameterStyle;
  explode?: boolean;
  allowReserved?: boolean;
}

export interface MediaTypeContent {
  mediaType: string;
  schema?: Schema;
  encoding?: Record<string, FieldEncoding>;
}

export interface ApiRequestBody {
  required: boolean;
  description?: string;
  /** In the spec's order. */
  contents: MediaTypeContent[];
}

export interface ApiResponse {
  /** `200`, `2XX` or `default`. */
  status: string;
  description?: string;
  contents: MediaTypeContent[];
}

export interface ServerVariable {
  name: string;
  default: string;
  enum?: string[];
  description?: string;
}

/** A server from the spec: a URL template whose `{variables}` have defaults. */
export interface ApiServer {
  url: string;
  description?: string;
  variables: ServerVariable[];
}

/** How the API authenticates callers (OpenAPI Security Scheme), version-free. */
export type ApiSecurityScheme =
  | { type: 'apiKey'; in: 'header' | 'query' | 'cookie'; name: string; description?: string }
  | { type: 'http'; scheme: string; description?: string }
  | {
      type: 'oauth2';
      /** Token URL of the client-credentials flow, when the scheme has one. */
      clientCredentialsTokenUrl?: string;
      description?: string;
    }
  | { type: 'openIdConnect'; openIdConnectUrl: string; description?: string };

/** One way to satisfy an operation's security: every named scheme, with these scopes. */
export type SecurityRequirement = { scheme: string; scopes: string[] }[];

export interface ApiOperation {
  operationId?: string;
  method: HttpMethod;
  path: string;
  summary?: string;
  description?: string;
  deprecated?: boolean;
  tags: string[];
  /** Path-level and operation-level parameters merged; operation-level wins. */
  parameters: ApiParameter[];
  requestBody?: ApiRequestBody;
  responses: ApiResponse[];
  /**
   * Alternatives, any one of which authorizes the call; an empty alternative means "no credentials
   * needed". Undefined or [] means the operation is public.
   */
  security?: SecurityRequirement[];
  /** An operation- or path-level server (the first listed), overriding the API's servers. */
  server?: ApiServer;
  /** JSON pointer of the operation in the source spec, for diagnostics. */
  pointer: string;
}

export interface ApiModel {
  title: string;
  version: string;
  description?: string;
  /** Base URL: the first server with its variables' defaults; may be relative. */
  baseUrl: string;
  /** Every server the spec lists, in order. */
  servers: ApiServer[];
  /** Security schemes by name. */
  securitySchemes: Record<string, ApiSecurityScheme>;
  operations: ApiOperation[];
  /** Names of reusable schemas by identity, so recursive ones keep a readable $defs name. */
  schemaNames: Map<Schema, string>;
}
