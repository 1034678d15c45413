/**
 * The data a generated server is made of: one ToolDefinition per API operation.
 * The generator emits these as plain JSON-like literals; the runtime interprets them.
 */

/** A JSON Schema (2020-12) object, kept as plain data. */
export type JsonSchema = { [keyword: string]: unknown };

export type HttpMethod = 'GET' | 'PUT' | 'POST' | 'DELETE' | 'OPTIONS' | 'HEAD' | 'PATCH' | 'TRACE';

export type ParameterLocation = 'path' | 'query' | 'header' | 'cookie';

/** OpenAPI 3 serialization styles (Swagger 2.0 collectionFormats are mapped onto these). */
export type ParameterStyle =
  | 'simple'
  | 'label'
  | 'matrix'
  | 'form'
  | 'spaceDelimited'
  | 'pipeDelimited'
  | 'deepObject'
  | 'tabDelimited';

/** Where one tool argument goes in the HTTP request. */
export type ArgumentBinding =
  | {
      /** Property name in the tool's input schema. */
      arg: string;
      in: ParameterLocation;
      /** Name on the wire (path template variable, query key, header or cookie name). */
      name: string;
      style: ParameterStyle;
      explode: boolean;
      allowReserved?: boolean;
      /** Set for a parameter described with `content` (e.g. application/json): its value is sent serialized as JSON. */
      contentType?: string;
    }
  | {
      arg: string;
      in: 'body';
      /** Property of the JSON body object; absent when the argument is the whole body. */
      name?: string;
    };

export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/**
 * How the request body is put on the wire. Decided by the generator from the media type and the
 * schema, so the runtime never guesses.
 */
export type BodyEncoding = 'json' | 'form' | 'multipart' | 'text' | 'binary';

/** OpenAPI Encoding Object for one field of a form or multipart body. */
export interface FieldEncoding {
  contentType?: string;
  style?: ParameterStyle;
  explode?: boolean;
  allowReserved?: boolean;
}

/**
 * How a model passes a file (a binary body, or a binary field of a multipart body): base64 data
 * with an optional file name and media type, the shape MCP uses for image and audio content.
 */
export interface FileArgument {
  data: string;
  filename?: string;
  mimeType?: string;
}

/**
 * A security scheme as the runtime applies it, with the environment variables its credentials come
 * from (named after the scheme: `ShopKey` → `SHOP_KEY`, `SHOP_KEY_CLIENT_ID`, ...).
 */
export type SecuritySchemeDef =
  | { type: 'apiKey'; in: 'header' | 'query' | 'cookie'; name: string; env: string }
  | { type: 'bearer'; env: string }
  | { type: 'basic'; usernameEnv: string; passwordEnv: string }
  | {
      /** OAuth 2 client credentials, directly (tokenUrl) or found by OpenID Connect discovery. */
      type: 'clientCredentials';
      tokenUrl?: string;
      discoveryUrl?: string;
      /** A ready access token, used instead of fetching one when set. */
      env: string;
      clientIdEnv: string;
      clientSecretEnv: string;
      scopesEnv: string;
    };

/** One way to authorize a call: every scheme listed, with the scopes it needs. Empty: no credentials. */
export type SecurityAlternative = { scheme: string; scopes: string[] }[];

export interface HttpBinding {
  method: HttpMethod;
  /** Path template relative to the base URL, e.g. `/pets/{petId}`. */
  path: string;
  arguments: ArgumentBinding[];
  /** Media type of the request body, when the operation has one. */
  bodyMediaType?: string;
  /** How the body is encoded; absent means JSON. */
  bodyEncoding?: BodyEncoding;
  /** Top-level body fields that hold files (or arrays of files), for multipart bodies. */
  fileFields?: string[];
  /** Per-field encoding of form and multipart bodies, from the spec's Encoding Objects. */
  fieldEncodings?: Record<string, FieldEncoding>;
  /** Media types the operation says it may answer with, sent as `Accept`. */
  accept?: string[];
  /** An operation- or path-level server that replaces the API's own for this tool. */
  server?: ServerTemplate;
  /** Ways to authorize the call, any one of which will do; absent or [] means public. */
  security?: SecurityAlternative[];
}

export interface OutputBinding {
  /** JSON Schema of structuredContent; always `type: object` at the root. */
  schema: JsonSchema;
  /** Set when the upstream JSON is not an object and is wrapped as `{ [wrapKey]: value }`. */
  wrapKey?: string;
}

export interface ToolDefinition {
  name: string;
  title?: string;
  description: string;
  annotations: ToolAnnotations;
  inputSchema: JsonSchema;
  output?: OutputBinding;
  http: HttpBinding;
}

/** A server URL from the spec, `{variables}` and all. */
export interface ServerTemplate {
  url: string;
  description?: string;
  variables?: {
    name: string;
    env: string;
    default: string;
    enum?: string[];
    description?: string;
  }[];
}

export interface ServerInfo {
  name: string;
  version: string;
  /** Base URL from the spec with default variables; `API_BASE_URL` overrides it at run time. */
  defaultBaseUrl: string;
  /** The spec's servers; `API_SERVER` picks one by index. */
  servers?: ServerTemplate[];
  /** Security schemes by name, as the runtime applies them. */
  securitySchemes?: Record<string, SecuritySchemeDef>;
}
