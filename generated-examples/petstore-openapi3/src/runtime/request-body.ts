/**
 * Encodes a tool call's body argument for the wire: JSON, URL-encoded form, multipart (with files),
 * text or raw bytes. Files arrive as base64 (FileArgument) because that is what an MCP client can
 * send in JSON arguments.
 */
import {
  ArgumentError,
  isUndefinedValue,
  serializeQueryParameter,
  toPrimitiveString,
} from './serialize-parameters.js';
import type { BodyEncoding, FieldEncoding, FileArgument, HttpBinding } from './types.js';

export type EncodedBody = {
  body: string | Uint8Array<ArrayBuffer> | FormData;
  contentType?: string;
};

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const BASE64URL = /^[A-Za-z0-9_-]*={0,2}$/;

/** Encodes `value` as the operation's body; `arg` names the argument in error messages. */
export function encodeBody(http: HttpBinding, value: unknown, arg: string): EncodedBody {
  const encoding: BodyEncoding = http.bodyEncoding ?? 'json';
  const mediaType = http.bodyMediaType ?? 'application/json';
  switch (encoding) {
    case 'json':
      return {
        body: JSON.stringify(value) ?? 'null',
        contentType: concrete(mediaType, 'application/json'),
      };
    case 'form':
      return {
        body: encodeForm(
          fieldsOf(value, arg, 'application/x-www-form-urlencoded'),
          http.fieldEncodings ?? {},
        ),
        contentType: mediaType,
      };
    case 'multipart':
      // fetch sets Content-Type with the boundary itself.
      return { body: encodeMultipart(fieldsOf(value, arg, 'multipart/form-data'), http, arg) };
    case 'text':
      return { body: toPrimitiveString(value), contentType: concrete(mediaType, 'text/plain') };
    case 'binary': {
      // The operation's declared type wins; the file's own type only fills in a wildcard (image/*).
      const file = decodeFile(value, arg);
      const contentType = mediaType.includes('*')
        ? (file.mimeType ?? concrete(mediaType, 'application/octet-stream'))
        : mediaType;
      return { body: file.bytes, contentType };
    }
  }
}

/** A wildcard media type (`image/*`, `*\/*`) cannot be sent as Content-Type. */
function concrete(mediaType: string, fallback: string): string {
  return mediaType.includes('*') ? fallback : mediaType;
}

function fieldsOf(value: unknown, arg: string, kind: string): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new ArgumentError(arg, `Argument "${arg}" must be an object of fields (${kind}).`);
  }
  return value as Record<string, unknown>;
}

/**
 * URL-encoded forms (OpenAPI 3.1.2 §4.8.15.2): a field with style, explode or allowReserved in its
 * Encoding Object is serialized like a query parameter (form, explode by default); otherwise an
 * object field takes its default content type, JSON, and other fields the form defaults.
 */
function encodeForm(
  fields: Record<string, unknown>,
  encodings: Record<string, FieldEncoding>,
): string {
  const pairs: string[] = [];
  for (const [name, value] of Object.entries(fields)) {
    const e = encodings[name] ?? {};
    const styled =
      e.style !== undefined || e.explode !== undefined || e.allowReserved !== undefined;
    const isObject = value !== null && typeof value === 'object' && !Array.isArray(value);
    const fieldValue =
      !styled && isObject && !isUndefinedValue(value) ? JSON.stringify(value) : value;
    pairs.push(
      ...serializeQueryParameter(
        name,
        fieldValue,
        e.style ?? 'form',
        e.explode ?? true,
        e.allowReserved ?? false,
      ),
    );
  }
  return pairs.join('&');
}

/** Swagger 2.0 collection formats on a form field: the array is one delimited value, not several parts. */
const JOINERS: Record<string, string> = {
  form: ',',
  spaceDelimited: ' ',
  pipeDelimited: '|',
  tabDelimited: '\t',
};

/** One concrete media type from an Encoding Object's contentType, which may list several or use wildcards. */
function concretePartType(contentType: string | undefined): string | undefined {
  const first = contentType?.split(',')[0]?.trim();
  return first && !first.includes('*') ? first : undefined;
}

function encodeMultipart(
  fields: Record<string, unknown>,
  http: HttpBinding,
  arg: string,
): FormData {
  const files = new Set(http.fileFields ?? []);
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) {
    if (value === undefined || value === null) continue;
    const encoding = http.fieldEncodings?.[name];
    const contentType = concretePartType(encoding?.contentType);
    if (files.has(name)) {
      for (const item of Array.isArray(value) ? value : [value]) {
        const file = decodeFile(item, `${arg}.${name}`);
        const type = file.mimeType ?? contentType ?? 'application/octet-stream';
        form.append(name, new Blob([file.bytes], { type }), file.filename ?? name);
      }
      continue;
    }
    // An array is one part per item (OpenAPI 3.1.2 §4.8.15.3), unless a collection format joins it.
    const joiner =
      Array.isArray(value) && encoding?.explode === false
        ? JOINERS[encoding.style ?? 'form']
        : undefined;
    const parts: unknown[] =
      joiner !== undefined
        ? [(value as unknown[]).map(toPrimitiveString).join(joiner)]
        : Array.isArray(value)
          ? value
          : [value];
    for (const part of parts) {
      if (part === null || part === undefined) continue;
      if (typeof part === 'object') {
        // Objects default to application/json parts.
        form.append(
          name,
          new Blob([JSON.stringify(part)], { type: contentType ?? 'application/json' }),
          '',
        );
      } else if (contentType) {
        form.append(name, new Blob([String(part)], { type: contentType }), '');
      } else {
        form.append(name, String(part));
      }
    }
  }
  return form;
}

/** A FileArgument (or a bare base64 string / data: URL) → bytes. */
export function decodeFile(
  value: unknown,
  arg: string,
): { bytes: Uint8Array<ArrayBuffer>; filename?: string; mimeType?: string } {
  let file: FileArgument;
  if (typeof value === 'string') file = { data: value };
  else if (
    value !== null &&
    typeof value === 'object' &&
    typeof (value as FileArgument).data === 'string'
  )
    file = value as FileArgument;
  else
    throw new ArgumentError(
      arg,
      `Argument "${arg}" must be a file: { "data": "<base64>", "filename"?: "...", "mimeType"?: "..." }.`,
    );

  let data = file.data.replace(/\s+/g, '');
  let mimeType = file.mimeType;
  const dataUrl = /^data:([^;,]*)(;[^,]*)?;base64,/i.exec(data);
  if (dataUrl) {
    mimeType ??= dataUrl[1] || undefined;
    data = data.slice(dataUrl[0].length);
  }
  const padded = data.length % 4 === 0 ? data : data + '='.repeat(4 - (data.length % 4));
  if (!BASE64.test(padded) && !BASE64URL.test(padded)) {
    throw new ArgumentError(
      arg,
      `Argument "${arg}" must carry base64 data; the value given is not base64.`,
    );
  }
  const bytes = new Uint8Array(Buffer.from(padded, BASE64.test(padded) ? 'base64' : 'base64url'));
  return {
    bytes,
    ...(file.filename ? { filename: file.filename } : {}),
    ...(mimeType ? { mimeType } : {}),
  };
}
