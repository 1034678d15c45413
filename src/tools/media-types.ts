import type { BodyEncoding } from '../../runtime/types.js';
import type { Schema } from '../model/api-model.js';

/** Media type rules shared by request-body choice and response mapping. */

export function isJsonMediaType(mediaType: string): boolean {
  const base = mediaType.split(';')[0]?.trim().toLowerCase() ?? '';
  return base === 'application/json' || base.endsWith('+json') || base === '*/*';
}

/** Request body preference: JSON first, then forms, then text, then whatever the spec lists first. */
const BODY_PREFERENCE: ((m: string) => boolean)[] = [
  (m) => m === 'application/json',
  (m) => isJsonMediaType(m) && m !== '*/*',
  (m) => m === 'application/x-www-form-urlencoded',
  (m) => m === 'multipart/form-data',
  (m) => m.startsWith('text/'),
];

/**
 * The body media type a tool sends when an operation accepts several. `preferred` (from the CLI)
 * comes first, then JSON, forms, text, then the spec's first.
 */
export function preferredBodyMediaType<T extends { mediaType: string }>(
  contents: readonly T[],
  preferred: readonly string[] = [],
): T | undefined {
  const rules = [...preferred.map((p) => (m: string) => m === p.toLowerCase()), ...BODY_PREFERENCE];
  for (const matches of rules) {
    const found = contents.find((c) => matches(c.mediaType.toLowerCase()));
    if (found) return found;
  }
  return contents[0];
}

function essence(mediaType: string): string {
  return mediaType.split(';')[0]?.trim().toLowerCase() ?? '';
}

/** Textual types that are not JSON: sent as the string the model gives. */
function isTextMediaType(mediaType: string): boolean {
  const base = essence(mediaType);
  return base.startsWith('text/') || base.endsWith('+xml') || base === 'application/xml' || base === 'application/javascript';
}

/**
 * How a request body is encoded on the wire. JSON, forms and text by media type; any other type
 * (application/octet-stream, image/png, application/pdf, ...) is raw bytes unless its schema says
 * it is a non-binary string.
 */
export function bodyEncodingFor(mediaType: string, schema: Schema | undefined): BodyEncoding {
  const base = essence(mediaType);
  if (base === 'application/x-www-form-urlencoded') return 'form';
  if (base.startsWith('multipart/')) return 'multipart';
  if (isJsonMediaType(base)) return 'json';
  if (isTextMediaType(base)) return 'text';
  const stringSchema = schema?.type === 'string' && schema.format !== 'binary' && schema.contentMediaType === undefined;
  return stringSchema ? 'text' : 'binary';
}
