/**
 * Turns a tool call's arguments into the upstream HTTP request, using the operation's
 * ArgumentBindings. Every value an LLM supplies is treated as untrusted: it is encoded so it
 * cannot change the URL's structure, and the final URL is checked to still point below the
 * configured base URL on the same origin.
 */
import type { ArgumentBinding, HttpBinding, HttpMethod, ParameterStyle } from './types.js';
import { encodeBody } from './request-body.js';
import {
  ArgumentError,
  serializeCookieParameter,
  serializeHeaderParameter,
  serializePathParameter,
  serializeQueryParameter,
  toPrimitiveString,
} from './serialize-parameters.js';

export { ArgumentError };

export interface UpstreamRequest {
  method: HttpMethod;
  url: string;
  headers: Record<string, string>;
  body?: string | Uint8Array<ArrayBuffer> | FormData;
}

/** Prefer JSON (what the runtime maps best) but accept anything rather than get a 406. */
export const DEFAULT_ACCEPT = 'application/json, */*;q=0.5';

type ParamBinding = Extract<ArgumentBinding, { style: ParameterStyle }>;
type BodyBinding = Extract<ArgumentBinding, { in: 'body' }>;

/**
 * Header parameters that are never sent: Accept and Content-Type are ignored per OpenAPI
 * ("SHALL be ignored"), the rest would let a value reframe or reroute the request. The Cookie
 * header is built from cookie parameters only.
 */
const IGNORED_HEADER_PARAMS = new Set([
  'accept',
  'content-type',
  'cookie',
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'expect',
  'proxy-authorization',
  'proxy-connection',
]);

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `.` and `..` segments (also as %2e) are removed by URL normalization, i.e. path traversal. */
function isDotSegment(segment: string): boolean {
  const s = segment.replace(/%2e/gi, '.');
  return s === '.' || s === '..';
}

function substitutePath(
  template: string,
  bindings: ParamBinding[],
  args: Record<string, unknown>,
): string {
  const used: string[] = [];
  const path = template.replace(/\{([^{}]+)\}/g, (_match, variable: string) => {
    const binding = bindings.find((b) => b.name === variable);
    if (!binding) {
      // A generator bug, not something the model can fix.
      throw new Error(
        `Tool definition error: path variable {${variable}} has no argument binding.`,
      );
    }
    const value = args[binding.arg];
    if (value === undefined || value === null) {
      throw new ArgumentError(
        binding.arg,
        `Missing required argument "${binding.arg}" (path parameter ${variable}).`,
      );
    }
    const text = typeof value === 'object' ? undefined : toPrimitiveString(value);
    if (text !== undefined && isDotSegment(text)) {
      throw new ArgumentError(
        binding.arg,
        `Argument "${binding.arg}" must not be "." or ".." (path parameter ${variable}).`,
      );
    }
    const serialized = serializePathParameter(variable, value, binding.style, binding.explode);
    if (serialized === '') {
      // An empty segment would address a different resource (e.g. /users//orders).
      throw new ArgumentError(
        binding.arg,
        `Argument "${binding.arg}" must not be empty (path parameter ${variable}).`,
      );
    }
    if (isDotSegment(serialized)) {
      throw new ArgumentError(
        binding.arg,
        `Argument "${binding.arg}" must not produce a "." or ".." path segment (path parameter ${variable}).`,
      );
    }
    used.push(binding.arg);
    return serialized;
  });
  // Adjacent variables in one segment (e.g. `{a}{b}`) could still combine into a dot segment.
  if (path.split('/').some(isDotSegment)) {
    throw new ArgumentError(
      used[0],
      `Arguments ${used.map((a) => `"${a}"`).join(', ')} must not produce a "." or ".." path segment.`,
    );
  }
  return path;
}

function buildBody(
  bindings: BodyBinding[],
  args: Record<string, unknown>,
): { value: unknown } | undefined {
  let whole: { value: unknown } | undefined;
  const fields: Record<string, unknown> = {};
  let hasFields = false;
  for (const b of bindings) {
    const value = args[b.arg];
    if (value === undefined) continue; // only arguments the model actually gave
    if (b.name === undefined) {
      whole = { value };
    } else {
      fields[b.name] = value;
      hasFields = true;
    }
  }
  if (!hasFields) return whole;
  if (whole === undefined) return { value: fields };
  if (!isPlainObject(whole.value)) {
    const arg = bindings.find((b) => b.name === undefined)?.arg;
    throw new ArgumentError(
      arg,
      `Argument "${arg}" must be an object, because other arguments are added to the request body as fields.`,
    );
  }
  return { value: { ...whole.value, ...fields } };
}

/** Parameters described with `content` carry their value as one JSON string, whatever its style. */
function withContentEncodedParams(
  params: ParamBinding[],
  args: Record<string, unknown>,
): Record<string, unknown> {
  const encoded = params.filter((b) => b.contentType !== undefined && args[b.arg] !== undefined);
  if (encoded.length === 0) return args;
  const out = { ...args };
  for (const b of encoded) out[b.arg] = JSON.stringify(args[b.arg]);
  return out;
}

export function buildRequest(
  http: HttpBinding,
  args: Record<string, unknown>,
  baseUrl: string,
): UpstreamRequest {
  let base: URL;
  try {
    base = new URL(baseUrl);
  } catch {
    throw new Error(`Invalid base URL: ${JSON.stringify(baseUrl)}`);
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:') {
    throw new Error(`Base URL must use http or https, got ${base.protocol}`);
  }

  const params = http.arguments.filter((b): b is ParamBinding => b.in !== 'body');
  args = withContentEncodedParams(params, args);
  const bodyBindings = http.arguments.filter((b): b is BodyBinding => b.in === 'body');

  const path = substitutePath(
    http.path,
    params.filter((b) => b.in === 'path'),
    args,
  );
  const basePath = base.pathname.replace(/\/+$/, '');
  const pathname = `${basePath}/${path.replace(/^\/+/, '')}`;

  const query: string[] = base.search.length > 1 ? [base.search.slice(1)] : [];
  const cookies: string[] = [];
  const headers: Record<string, string> = {
    Accept: http.accept && http.accept.length > 0 ? http.accept.join(', ') : DEFAULT_ACCEPT,
  };

  for (const b of params) {
    const value = args[b.arg];
    if (b.in === 'query') {
      query.push(
        ...serializeQueryParameter(b.name, value, b.style, b.explode, b.allowReserved ?? false),
      );
    } else if (b.in === 'header') {
      if (IGNORED_HEADER_PARAMS.has(b.name.toLowerCase())) continue;
      const text = serializeHeaderParameter(b.name, value, b.explode, b.arg, b.style);
      if (text !== undefined) headers[b.name] = text;
    } else if (b.in === 'cookie') {
      cookies.push(...serializeCookieParameter(b.name, value, b.explode));
    }
  }
  if (cookies.length > 0) headers['Cookie'] = cookies.join('; ');

  let body: UpstreamRequest['body'];
  // fetch refuses a body on GET/HEAD; a spec that declares one there is ignored on this point.
  if (http.method !== 'GET' && http.method !== 'HEAD') {
    const built = buildBody(bodyBindings, args);
    if (built !== undefined) {
      const encoded = encodeBody(http, built.value, bodyBindings[0]?.arg ?? 'body');
      body = encoded.body;
      if (encoded.contentType) headers['Content-Type'] = encoded.contentType;
    }
  }

  const url = `${base.origin}${pathname}${query.length > 0 ? `?${query.join('&')}` : ''}`;

  // Last line of defence: whatever the arguments were, the request must stay on the configured
  // origin and below the base path (after the URL parser's own normalization).
  let final: URL;
  try {
    final = new URL(url);
  } catch {
    throw new ArgumentError(undefined, 'The arguments do not form a valid URL.');
  }
  const prefix = `${basePath}/`;
  if (
    final.origin !== base.origin ||
    !(final.pathname === basePath || final.pathname.startsWith(prefix))
  ) {
    throw new ArgumentError(
      undefined,
      'The arguments would make the request leave the API base URL; path arguments must not contain path segments such as "..".',
    );
  }

  const request: UpstreamRequest = { method: http.method, url: final.href, headers };
  if (body !== undefined) request.body = body;
  return request;
}
