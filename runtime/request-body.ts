/**
 * Encodes a tool call's body argument for the wire: JSON, URL-encoded form, multipart (with files),
 * text or raw bytes. Files arrive as base64 (FileArgument) because that is what an MCP client can
 * send in JSON arguments.
 */
import {
  ArgumentError,
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
      const file = decodeFile(value, arg);
      return {
        body: file.bytes,
        contentType: file.mimeType ?? concrete(mediaType, 'application/octet-stream'),
      };
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

/** URL-encoded forms serialize each field like a query parameter (OpenAPI: form, explode by default). */
function encodeForm(
  fields: Record<string, unknown>,
  encodings: Record<string, FieldEncoding>,
): string {
  const pairs: string[] = [];
  for (const [name, value] of Object.entries(fields)) {
    const e = encodings[name] ?? {};
    pairs.push(
      ...serializeQueryParameter(
        name,
        value,
        e.style ?? 'form',
        e.explode ?? true,
        e.allowReserved ?? false,
      ),
    );
  }
  return pairs.join('&');
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
    const contentType = http.fieldEncodings?.[name]?.contentType;
    if (files.has(name)) {
      for (const item of Array.isArray(value) ? value : [value]) {
        const file = decodeFile(item, `${arg}.${name}`);
        const type = file.mimeType ?? contentType ?? 'application/octet-stream';
        form.append(name, new Blob([file.bytes], { type }), file.filename ?? name);
      }
    } else if (Array.isArray(value) && value.every((v) => v === null || typeof v !== 'object')) {
      for (const item of value) if (item !== null) form.append(name, String(item)); // one part per item
    } else if (typeof value === 'object') {
      // Objects default to application/json parts (OpenAPI Encoding Object).
      form.append(
        name,
        new Blob([JSON.stringify(value)], { type: contentType ?? 'application/json' }),
        '',
      );
    } else {
      form.append(name, String(value));
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
