import $RefParser, { isUnsafeUrl } from '@apidevtools/json-schema-ref-parser';
import SwaggerParser from '@apidevtools/swagger-parser';
import { McpGenError } from '../diagnostics.js';
import type { ApiModel } from '../model/api-model.js';
import { openApi3ToModel } from './openapi3.js';
import { asRecord, type Doc } from './spec-shape.js';
import { swagger2ToModel } from './swagger2.js';

export type SpecVersion = '2.0' | '3.0' | '3.1';

export interface LoadedSpec {
  /** The path or URL as the user gave it, for messages. */
  source: string;
  version: SpecVersion;
  model: ApiModel;
}

/** Reads, validates and dereferences a spec file or URL, then maps it to the intermediate model. */
export async function loadSpec(source: string): Promise<LoadedSpec> {
  let doc: Doc;
  try {
    // validate() dereferences too; circular refs stay as object cycles, handled by the tools stage.
    const resolve = { http: { safeUrlResolver: !isInternalUrl(source) } };
    doc = asRecord(await validateAndDereference(source, resolve));
    if (isUrl(source) && doc.openapi) {
      // swagger-parser rewrites relative server URLs against the spec URL but drops its port;
      // take them as written and resolve them ourselves (resolveAgainstSource).
      const raw = asRecord(await $RefParser.parse(source, { resolve }));
      doc = { ...doc, servers: raw.servers };
    }
  } catch (error) {
    throw toDiagnosticError(source, error);
  }
  const version = specVersion(doc);
  const model = version === '2.0' ? swagger2ToModel(doc) : openApi3ToModel(doc, version === '3.1' ? 'oas31' : 'oas30');
  const servers = model.servers.map((s) => ({ ...s, url: resolveAgainstSource(s.url, source) }));
  return { source, version, model: { ...model, baseUrl: resolveAgainstSource(model.baseUrl, source), servers } };
}

/**
 * $refs that point at internal hosts are blocked (a spec from the internet must not make mcp-gen
 * fetch from the user's network), unless the user named an internal spec URL themselves.
 */
function isInternalUrl(source: string): boolean {
  return isUrl(source) && isUnsafeUrl(source);
}

function isUrl(source: string): boolean {
  return /^https?:\/\//i.test(source);
}

/**
 * swagger-parser's bundled OpenAPI 3.1 schema misspells the Server Variable's `description`
 * (as `descriptions`), so a valid spec using it fails schema validation. When that is the only
 * complaint, validate again with the spec's own rules but without the faulty schema.
 */
async function validateAndDereference(source: string, resolve: object): Promise<unknown> {
  const options = { dereference: { circular: true as const }, resolve };
  try {
    return await SwaggerParser.validate(source, options);
  } catch (error) {
    const details = (error as { details?: AjvDetail[] }).details;
    if (!Array.isArray(details) || details.length === 0 || !details.every(isServerVariableDescriptionFalsePositive)) throw error;
    return SwaggerParser.validate(source, { ...options, validate: { schema: false, spec: true } });
  }
}

function isServerVariableDescriptionFalsePositive(d: AjvDetail): boolean {
  return (
    d.params?.unevaluatedProperty === 'description' &&
    /\/servers\/\d+\/variables\/[^/]+$/.test(d.instancePath ?? '')
  );
}

function specVersion(doc: Doc): SpecVersion {
  if (doc.swagger === '2.0') return '2.0';
  return String(doc.openapi).startsWith('3.1') ? '3.1' : '3.0';
}

/** A relative server URL is relative to where the spec was fetched from (OpenAPI 3, Server Object). */
function resolveAgainstSource(baseUrl: string, source: string): string {
  // A URL starting with a {variable} (`{scheme}://...`) is absolute once expanded.
  if (isUrl(baseUrl) || baseUrl.startsWith('{') || !isUrl(source)) return baseUrl;
  return new URL(baseUrl, source).href;
}

interface AjvDetail {
  instancePath?: string;
  message?: string;
  params?: Record<string, unknown>;
}

/** swagger-parser's many error shapes → one diagnostic with the JSON pointer of the first problem. */
function toDiagnosticError(source: string, error: unknown): McpGenError {
  const err = error as { message?: string; details?: AjvDetail[]; code?: string; path?: string[] };
  const details = Array.isArray(err.details) ? err.details : [];
  if (details.length > 0) {
    const lines = details.slice(0, 10).map((d) => `${d.instancePath || '/'}: ${describe(d)}`);
    return new McpGenError({
      code: 'SPEC_INVALID',
      severity: 'error',
      file: source,
      pointer: details[0]?.instancePath || '',
      message: `the spec is not a valid OpenAPI document:\n  ${lines.join('\n  ')}${details.length > 10 ? `\n  …and ${details.length - 10} more` : ''}`,
      help: 'fix the spec at the pointer shown; mcp-gen validates against the official OpenAPI schema',
    });
  }
  const message = firstLine(err.message ?? String(error)).replace(/^Error parsing \S+: /, '');
  const cannotRead = err.code === 'ERESOLVER' || /ENOENT|Error opening file|Error downloading/i.test(err.message ?? '');
  return new McpGenError({
    code: cannotRead ? 'SPEC_UNREADABLE' : 'SPEC_PARSE',
    severity: 'error',
    file: source,
    pointer: Array.isArray(err.path) ? `/${err.path.join('/')}` : undefined,
    message: cannotRead ? `cannot read the spec: ${message}` : `cannot parse the spec: ${message}`,
    help: cannotRead ? 'check the path or URL' : 'the spec must be valid YAML or JSON',
  });
}

function describe(d: AjvDetail): string {
  const extra = d.params?.additionalProperty ?? d.params?.missingProperty;
  return `${d.message ?? 'invalid'}${extra && !String(d.message).includes(String(extra)) ? ` (${String(extra)})` : ''}`;
}

function firstLine(text: string): string {
  return text.split('\n').find((l) => l.trim() !== '')?.trim() ?? text;
}
