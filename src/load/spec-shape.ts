import type { HttpMethod } from '../model/api-model.js';

/** A loosely typed JSON object from a parsed spec; shapes are checked where they are read. */
export type Doc = Record<string, unknown>;

/** Path-item keys that are operations, in the order tools are listed. */
export const HTTP_METHODS: readonly HttpMethod[] = ['GET', 'PUT', 'POST', 'DELETE', 'OPTIONS', 'HEAD', 'PATCH', 'TRACE'];

export function asRecord(value: unknown): Doc {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Doc) : {};
}

export function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

export function optionalString(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

/** RFC 6901 pointer from raw path segments. */
export function jsonPointer(segments: string[]): string {
  return segments.map((s) => `/${s.replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}
