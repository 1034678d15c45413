/**
 * Maps an upstream HTTP response onto an MCP tool result.
 *
 * Two constraints shape every rule here:
 * - A tool that declares an outputSchema must return structuredContent on success; clients
 *   reject a non-error result without it. So whenever a 2xx response cannot become valid
 *   structured content, the result is `isError: true` and its text says plainly that the HTTP
 *   request itself succeeded (so the model does not blindly retry a non-idempotent call).
 * - Everything returned is read by an LLM: JSON text is compact (pretty-printing costs roughly
 *   a third more tokens and adds nothing for a model), error bodies are cut short, and ASCII
 *   control characters are removed.
 */
import type { ToolDefinition } from './types.js';
import type { UpstreamResult } from './call-upstream.js';

export type ToolContent =
  | { type: 'text'; text: string }
  | { type: 'image'; data: string; mimeType: string }
  | { type: 'audio'; data: string; mimeType: string }
  | { type: 'resource'; resource: { uri: string; mimeType?: string; blob: string } };

export type ToolResult = {
  content: ToolContent[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
};

export type UpstreamSuccess = Extract<UpstreamResult, { ok: true }>;

/** Validates structuredContent against the tool's output schema; returns an error or undefined. */
export type OutputCheck = (value: unknown) => string | undefined;

/** How much of an error response body is shown. */
export const MAX_ERROR_BODY_CHARS = 2000;

/** Key used to wrap non-object JSON when the definition gives no wrapKey. */
const DEFAULT_WRAP_KEY = 'result';

/** Removes ASCII control characters except newline and tab (also drops CR, so CRLF -> LF). */
export function stripControlChars(text: string): string {
  return text.replace(/[\u0000-\u0008\u000B-\u001F\u007F]/g, '');
}

/** Result for failures that produced no HTTP response (ArgumentError, timeout, network...). */
export function failureResult(message: string): ToolResult {
  return { content: [{ type: 'text', text: stripControlChars(message) }], isError: true };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function essenceOf(contentType: string): string {
  return (contentType.split(';')[0] ?? '').trim().toLowerCase();
}

function isJsonType(essence: string): boolean {
  return essence === 'application/json' || essence.endsWith('+json');
}

/** Textual types beyond text/*: decoded and returned as text rather than as a binary blob. */
function isTextType(essence: string): boolean {
  return (
    essence.startsWith('text/') ||
    essence.endsWith('+xml') ||
    essence.endsWith('+yaml') ||
    [
      'application/xml',
      'application/javascript',
      'application/ecmascript',
      'application/x-www-form-urlencoded',
      'application/yaml',
      'application/x-yaml',
      'application/graphql',
      'application/sql',
      'application/csv',
    ].includes(essence)
  );
}

function decode(body: Uint8Array, contentType: string): string {
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(contentType)?.[1];
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body); // unknown charset label
  }
}

/** Strict UTF-8 decoding, used to sniff bodies that come without a Content-Type. */
function decodeUtf8Strict(body: Uint8Array): string | undefined {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(body);
  } catch {
    return undefined;
  }
}

function base64(body: Uint8Array): string {
  return Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('base64');
}

function statusLine(res: UpstreamSuccess): string {
  const fallback: Record<number, string> = { 204: 'No Content', 205: 'Reset Content' };
  const text = res.statusText || fallback[res.status] || '';
  return `HTTP ${res.status}${text ? ` ${text}` : ''}`;
}

function truncationNote(res: UpstreamSuccess): string {
  return res.truncated ? `\n(response truncated at ${res.body.byteLength} bytes)` : '';
}

function text(value: string): ToolContent {
  return { type: 'text', text: value };
}

/** Plain-data check used when no validator is given: an empty object satisfies the schema only if nothing is required. */
function emptyObjectAllowed(
  tool: ToolDefinition,
  checkOutput: OutputCheck | undefined,
): string | undefined {
  if (checkOutput) return checkOutput({});
  const required = tool.output?.schema['required'];
  return Array.isArray(required) && required.length > 0
    ? `required properties ${required.map((r) => JSON.stringify(r)).join(', ')} are missing`
    : undefined;
}

function errorResult(tool: ToolDefinition, res: UpstreamSuccess): ToolResult {
  const lines = [`${statusLine(res)} from ${tool.http.method} ${tool.http.path}`];
  if (res.status >= 300 && res.status < 400) {
    lines.push(
      '(redirect not followed: it leads to another origin, or there were too many redirects)',
    );
  }
  const retryAfter = res.headers.get('retry-after');
  if (retryAfter) lines.push(`Retry-After: ${retryAfter}`);

  if (res.body.byteLength > 0) {
    const essence = essenceOf(res.contentType);
    const textual = essence === '' || isJsonType(essence) || isTextType(essence);
    const raw = textual
      ? essence === ''
        ? decodeUtf8Strict(res.body)
        : decode(res.body, res.contentType)
      : undefined;
    if (raw === undefined) {
      lines.push(`(${res.body.byteLength} bytes of ${essence || 'binary data'})`);
    } else {
      let bodyText = raw.trim();
      if (!res.truncated) {
        try {
          bodyText = JSON.stringify(JSON.parse(bodyText)); // compact JSON error bodies
        } catch {
          // not JSON: keep the text
        }
      }
      bodyText = stripControlChars(bodyText);
      if (bodyText.length > MAX_ERROR_BODY_CHARS) {
        bodyText = `${bodyText.slice(0, MAX_ERROR_BODY_CHARS)}… (${bodyText.length - MAX_ERROR_BODY_CHARS} more characters)`;
      }
      if (bodyText) lines.push(bodyText);
    }
  }
  return { content: [text(lines.join('\n') + truncationNote(res))], isError: true };
}

/** 2xx JSON that parsed: structuredContent when the tool declares output. */
function jsonResult(
  tool: ToolDefinition,
  value: unknown,
  checkOutput: OutputCheck | undefined,
): ToolResult {
  if (!tool.output) return { content: [text(JSON.stringify(value))] };
  const wrapKey = tool.output.wrapKey;
  const structured: Record<string, unknown> =
    wrapKey !== undefined
      ? { [wrapKey]: value }
      : isPlainObject(value)
        ? value
        : { [DEFAULT_WRAP_KEY]: value };
  const problem = checkOutput?.(structured);
  if (problem !== undefined) {
    return {
      content: [
        text(
          `The upstream response did not match the documented output schema: ${problem}\n` +
            `The request succeeded; the raw response was:\n${JSON.stringify(value)}`,
        ),
      ],
      isError: true,
    };
  }
  // Per MCP, structured results also carry their serialization as text for older clients.
  return { content: [text(JSON.stringify(structured))], structuredContent: structured };
}

/** The 2xx result before the outputSchema constraint is applied. */
function successResult(
  tool: ToolDefinition,
  res: UpstreamSuccess,
  checkOutput: OutputCheck | undefined,
): ToolResult {
  if (res.status === 204 || res.status === 205 || res.body.byteLength === 0) {
    const message =
      res.status === 204 || res.status === 205
        ? `Request succeeded (${statusLine(res)}).`
        : `Request succeeded (${statusLine(res)}) with an empty response body.`;
    if (!tool.output) return { content: [text(message)] };
    // Empty body + declared output: return {} only if the schema accepts it; otherwise an
    // error result (see the module comment) that still states the request succeeded.
    const problem = emptyObjectAllowed(tool, checkOutput);
    if (problem === undefined) return { content: [text(message)], structuredContent: {} };
    return {
      content: [
        text(
          `${message} The response has no body, so the documented structured output cannot be returned (${problem}). ` +
            'Do not retry because of this: the operation itself succeeded.',
        ),
      ],
      isError: true,
    };
  }

  const essence = essenceOf(res.contentType);
  const note = truncationNote(res);

  if (essence === '') {
    // No Content-Type: JSON if it parses, text if it is UTF-8, otherwise binary.
    const sniffed = decodeUtf8Strict(res.body);
    if (sniffed === undefined) return binaryResult(tool, res, 'application/octet-stream');
    if (!res.truncated) {
      try {
        return jsonResult(tool, JSON.parse(sniffed), checkOutput);
      } catch {
        // plain text
      }
    }
    return { content: [text(sniffed + note)] };
  }

  if (isJsonType(essence)) {
    const raw = decode(res.body, res.contentType);
    // A truncated JSON body is never parsed: it would be invalid, or worse, valid but incomplete.
    if (res.truncated) return { content: [text(raw + note)] };
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      return { content: [text(`${raw}\n(upstream declared JSON but the body is not valid JSON)`)] };
    }
    return jsonResult(tool, value, checkOutput);
  }

  if (isTextType(essence)) return { content: [text(decode(res.body, res.contentType) + note)] };
  return binaryResult(tool, res, essence);
}

function binaryResult(tool: ToolDefinition, res: UpstreamSuccess, mimeType: string): ToolResult {
  // A cut-off image or file is corrupt and useless to the client; describe it instead.
  if (res.truncated) {
    return {
      content: [
        text(
          `The upstream returned ${mimeType} content larger than ${res.body.byteLength} bytes; it was truncated and is not included.`,
        ),
      ],
    };
  }
  const data = base64(res.body);
  if (mimeType.startsWith('image/')) return { content: [{ type: 'image', data, mimeType }] };
  if (mimeType.startsWith('audio/')) return { content: [{ type: 'audio', data, mimeType }] };
  return {
    content: [
      {
        type: 'resource',
        resource: {
          uri: `upstream://${encodeURIComponent(tool.name)}/response`,
          mimeType,
          blob: data,
        },
      },
    ],
  };
}

/**
 * Response headers a model can act on: where a created resource lives, the next page, how much
 * rate limit is left. Cookies and anything else stay out (they may carry secrets).
 */
const USEFUL_HEADER =
  /^(location|content-location|link|retry-after|x-total-count|x-total|x-next-page|x-next-cursor|x-page|x-per-page|x-(rate-?limit|ratelimit)-[a-z-]+|rate-?limit(-[a-z-]+)?)$/i;

function usefulHeaders(headers: Headers, isError: boolean): string | undefined {
  const lines: string[] = [];
  headers.forEach((value, name) => {
    // An error result already states its Retry-After.
    if (USEFUL_HEADER.test(name) && !(isError && name === 'retry-after'))
      lines.push(`${name}: ${value.slice(0, 500)}`);
  });
  return lines.length > 0 ? `Response headers:\n${lines.sort().join('\n')}` : undefined;
}

export function toToolResult(
  tool: ToolDefinition,
  res: UpstreamSuccess,
  checkOutput?: OutputCheck,
): ToolResult {
  let result =
    res.status >= 200 && res.status < 300
      ? successResult(tool, res, checkOutput)
      : errorResult(tool, res);

  if (tool.output && !result.isError && result.structuredContent === undefined) {
    const what = res.contentType ? essenceOf(res.contentType) : 'an unknown content type';
    result = {
      content: [
        text(
          `The request succeeded (${statusLine(res)}), but the upstream response (${what}) could not be turned into ` +
            'the structured output this tool documents, so it is returned as is:',
        ),
        ...result.content,
      ],
      isError: true,
    };
  }

  const headers = usefulHeaders(res.headers, result.isError === true);
  if (headers) result.content.push(text(headers));

  result.content = result.content.map((block) =>
    block.type === 'text' ? { type: 'text', text: stripControlChars(block.text) } : block,
  );
  return result;
}
