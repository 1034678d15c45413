/**
 * OpenAPI 3 parameter serialization (style / explode), following the "Style Examples" table of
 * OpenAPI 3.1.2, which corrected the 3.0/3.1.0 table to match RFC 6570 (e.g. non-exploded `label`
 * separates with commas, and `|`, `[`, `]` are percent-encoded).
 *
 * Values are percent-encoded per RFC 6570 simple expansion: everything outside RFC 3986's
 * unreserved set is encoded (encodeURIComponent, plus `!'()*`), so `/`, `?`, `#` and delimiters
 * inside values can never change the structure of the URL.
 */
import type { ParameterStyle } from './types.js';

/**
 * A tool argument the model can correct itself. Lives here, in the lowest runtime layer that
 * needs it, to avoid an import cycle; build-request.ts re-exports it.
 */
export class ArgumentError extends Error {
  override name = 'ArgumentError';
  constructor(
    /** The tool argument at fault (input-schema property name). */
    readonly argument: string | undefined,
    message: string,
  ) {
    super(message);
  }
}

type Entry = [key: string, value: unknown];

/** Lone surrogates make encodeURIComponent throw; replace them with U+FFFD instead. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

function wellFormed(s: string): string {
  return s.replace(LONE_SURROGATE, '\uFFFD');
}

/** RFC 3986 strict: only unreserved characters stay literal. */
export function encodeStrict(s: string): string {
  return encodeURIComponent(wellFormed(s)).replace(
    /[!'()*]/g,
    (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase(),
  );
}

/**
 * `allowReserved: true` (RFC 6570 reserved expansion): RFC 3986 reserved characters and existing
 * %XX triples pass through. `#[]` are still encoded (not allowed in a query) and so are `&=+`
 * (form-urlencoded delimiters), as OpenAPI 3.1.2 requires of applications.
 */
export function encodeReserved(s: string): string {
  return wellFormed(s).replace(/%[0-9A-Fa-f]{2}|[^A-Za-z0-9\-._~:/?@!$'()*,;]/gu, (m) =>
    m.length === 3 && m[0] === '%' ? m : encodeStrict(m),
  );
}

/** Stringify a value in a position where only a primitive makes sense. */
export function toPrimitiveString(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') {
    return String(value);
  }
  return JSON.stringify(value) ?? '';
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** RFC 6570 treats null/undefined items and pairs as undefined: they are left out. */
function items(value: unknown[]): unknown[] {
  return value.filter((v) => v !== undefined && v !== null);
}

function entries(value: Record<string, unknown>): Entry[] {
  return Object.entries(value).filter(([, v]) => v !== undefined && v !== null);
}

/** RFC 6570 "undefined": null, undefined, an empty list or an empty map. */
export function isUndefinedValue(value: unknown): boolean {
  if (value === undefined || value === null) return true;
  if (Array.isArray(value)) return items(value).length === 0;
  if (isPlainObject(value)) return entries(value).length === 0;
  return false;
}

// ---------------------------------------------------------------------------------------------
// path

/** Array delimiters of the delimited styles, percent-encoded for URLs. */
const DELIMITERS: Partial<Record<ParameterStyle, string>> = {
  spaceDelimited: '%20',
  pipeDelimited: '%7C',
  tabDelimited: '%09', // Swagger 2.0 collectionFormat: tsv
};

/** The same delimiters as they appear in a header, which is not percent-encoded. */
const RAW_DELIMITERS: Partial<Record<ParameterStyle, string>> = {
  spaceDelimited: ' ',
  pipeDelimited: '|',
  tabDelimited: '\t',
};

/**
 * Serialize a path parameter (styles simple, label, matrix; anything else falls back to simple).
 * The result is fully percent-encoded and safe to splice into the path template. An empty list
 * or map gives the table's "undefined" column (`;color`, `.`, empty).
 */
export function serializePathParameter(
  name: string,
  value: unknown,
  style: ParameterStyle,
  explode: boolean,
): string {
  const enc = (v: unknown): string => encodeStrict(toPrimitiveString(v));
  const n = encodeStrict(name);

  if (style === 'matrix') {
    // `;name` alone (no `=`) for an empty value, as RFC 6570 does for the `;` operator.
    // `k` and `s` are already encoded.
    const pair = (k: string, s: string): string => (s === '' ? `;${k}` : `;${k}=${s}`);
    if (Array.isArray(value)) {
      const list = items(value);
      if (list.length === 0) return `;${n}`;
      return explode ? list.map((v) => pair(n, enc(v))).join('') : pair(n, list.map(enc).join(','));
    }
    if (isPlainObject(value)) {
      const map = entries(value);
      if (map.length === 0) return `;${n}`;
      return explode
        ? map.map(([k, v]) => pair(encodeStrict(k), enc(v))).join('')
        : pair(n, map.flatMap(([k, v]) => [encodeStrict(k), enc(v)]).join(','));
    }
    return pair(n, enc(value));
  }

  if (style === 'label') {
    if (Array.isArray(value))
      return (
        '.' +
        items(value)
          .map(enc)
          .join(explode ? '.' : ',')
      );
    if (isPlainObject(value)) {
      const map = entries(value);
      return explode
        ? '.' + map.map(([k, v]) => `${encodeStrict(k)}=${enc(v)}`).join('.')
        : '.' + map.flatMap(([k, v]) => [encodeStrict(k), enc(v)]).join(',');
    }
    return '.' + enc(value);
  }

  // simple (and Swagger 2.0's ssv/tsv/pipes collection formats, which join with their delimiter)
  if (Array.isArray(value))
    return items(value)
      .map(enc)
      .join(DELIMITERS[style] ?? ',');
  if (isPlainObject(value)) {
    const map = entries(value);
    return explode
      ? map.map(([k, v]) => `${encodeStrict(k)}=${enc(v)}`).join(',')
      : map.flatMap(([k, v]) => [encodeStrict(k), enc(v)]).join(',');
  }
  return enc(value);
}

// ---------------------------------------------------------------------------------------------
// query

/**
 * Serialize a query parameter into already-encoded `key=value` strings, to be joined with `&`.
 * Undefined values (null, undefined, [], {}) produce nothing, so optional parameters the model
 * left out do not appear. Combinations the spec leaves undefined fall back to `form` with the
 * given explode (e.g. spaceDelimited + explode:true repeats the key, like Swagger's `multi`);
 * deepObject ignores explode, and its nested values are JSON.
 */
export function serializeQueryParameter(
  name: string,
  value: unknown,
  style: ParameterStyle,
  explode: boolean,
  allowReserved = false,
): string[] {
  if (isUndefinedValue(value)) return [];
  const enc = (v: unknown): string =>
    (allowReserved ? encodeReserved : encodeStrict)(toPrimitiveString(v));
  const n = encodeStrict(name);

  if (style === 'deepObject' && isPlainObject(value)) {
    return entries(value).map(([k, v]) => `${n}%5B${encodeStrict(k)}%5D=${enc(v)}`);
  }

  const delimiter = DELIMITERS[style];
  if (delimiter !== undefined && !explode) {
    if (Array.isArray(value)) return [`${n}=${items(value).map(enc).join(delimiter)}`];
    if (isPlainObject(value)) {
      return [
        `${n}=${entries(value)
          .flatMap(([k, v]) => [encodeStrict(k), enc(v)])
          .join(delimiter)}`,
      ];
    }
  }

  // form
  if (Array.isArray(value)) {
    const list = items(value);
    return explode ? list.map((v) => `${n}=${enc(v)}`) : [`${n}=${list.map(enc).join(',')}`];
  }
  if (isPlainObject(value)) {
    const map = entries(value);
    return explode
      ? map.map(([k, v]) => `${encodeStrict(k)}=${enc(v)}`)
      : [`${n}=${map.flatMap(([k, v]) => [encodeStrict(k), enc(v)]).join(',')}`];
  }
  return [`${n}=${enc(value)}`];
}

// ---------------------------------------------------------------------------------------------
// header

/**
 * Serialize a header parameter (style simple). Per OpenAPI 3.1.2, headers are NOT
 * percent-encoded; instead values that could split or smuggle headers (CR, LF, NUL) or that
 * fetch cannot send (characters above U+00FF) are rejected. Returns undefined when the value is
 * undefined and the header should be left out.
 */
export function serializeHeaderParameter(
  name: string,
  value: unknown,
  explode: boolean,
  argument: string = name,
  style: ParameterStyle = 'simple',
): string | undefined {
  if (isUndefinedValue(value)) return undefined;
  let text: string;
  if (Array.isArray(value)) {
    text = items(value)
      .map(toPrimitiveString)
      .join(RAW_DELIMITERS[style] ?? ',');
  } else if (isPlainObject(value)) {
    const map = entries(value);
    text = explode
      ? map.map(([k, v]) => `${k}=${toPrimitiveString(v)}`).join(',')
      : map.flatMap(([k, v]) => [k, toPrimitiveString(v)]).join(',');
  } else {
    text = toPrimitiveString(value);
  }
  if (/[\r\n\0]/.test(text)) {
    throw new ArgumentError(
      argument,
      `Argument "${argument}" (HTTP header ${name}) must not contain line breaks or NUL characters.`,
    );
  }
  if (/[^\u0000-\u00FF]/.test(text)) {
    throw new ArgumentError(
      argument,
      `Argument "${argument}" (HTTP header ${name}) contains characters that cannot be sent in an HTTP header; use only ASCII/Latin-1 characters.`,
    );
  }
  return text;
}

// ---------------------------------------------------------------------------------------------
// cookie

/**
 * Serialize a cookie parameter (style form) into `name=value` pairs, joined by the caller with
 * `; `. Values are percent-encoded (as RFC 6570 form expansion does), which also keeps `;`, `,`,
 * spaces and quotes out of the Cookie header.
 */
export function serializeCookieParameter(name: string, value: unknown, explode: boolean): string[] {
  // Exactly the query string's form style, without allowReserved.
  return serializeQueryParameter(name, value, 'form', explode);
}
