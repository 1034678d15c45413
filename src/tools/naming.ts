import { createHash } from 'node:crypto';

/**
 * Every name mcp-gen derives lives here: tool names, argument names, $defs names, environment
 * variables and package names. Each is deterministic: the same input always gives the same name.
 */

/** What MCP clients accept for a tool name (stricter than the spec's 128, as common clients require). */
export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;
const TOOL_NAME_MAX = 64;
/** What model providers accept for a property name in a tool's input schema. */
const ARGUMENT_NAME_MAX = 64;

/** A short, stable hash that disambiguates names. */
export function shortHash(text: string, length = 6): string {
  return createHash('sha256').update(text).digest('hex').slice(0, length);
}

/** Replaces every character outside [A-Za-z0-9_-] and squeezes the result. */
function sanitize(raw: string, allowed: RegExp): string {
  return raw
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(allowed, '_')
    .replace(/_+/g, '_')
    .replace(/^_+|_+$/g, '');
}

/** The name a tool would like: its operationId, else `method_path`. */
export function preferredToolName(operationId: string | undefined, method: string, path: string): string {
  const raw = operationId ?? `${method.toLowerCase()}_${path.replace(/[{}]/g, '')}`;
  return sanitize(raw, /[^a-zA-Z0-9_-]+/g) || method.toLowerCase();
}

/**
 * Final tool names for a list of operations, in order. A name that had to be truncated, or that
 * collides with another, gets `_` + a hash of its method and path, so each keeps its name no matter
 * which other operations exist.
 */
export function assignToolNames(ops: readonly { operationId?: string; method: string; path: string }[]): string[] {
  const wanted = ops.map((op) => preferredToolName(op.operationId, op.method, op.path));
  const counts = new Map<string, number>();
  for (const name of wanted) counts.set(name.toLowerCase(), (counts.get(name.toLowerCase()) ?? 0) + 1);
  const taken = new Set<string>();
  return ops.map((op, i) => {
    const name = wanted[i] ?? '';
    const clash = (counts.get(name.toLowerCase()) ?? 0) > 1;
    let final = !clash && name.length <= TOOL_NAME_MAX ? name : withHash(name, `${op.method} ${op.path}`, TOOL_NAME_MAX);
    // Hash suffixes of distinct method+path pairs are distinct in practice; make it certain.
    for (let n = 2; taken.has(final.toLowerCase()); n++) final = withHash(name, `${op.method} ${op.path} ${n}`, TOOL_NAME_MAX);
    taken.add(final.toLowerCase());
    return final;
  });
}

function withHash(name: string, seed: string, max: number): string {
  const suffix = `_${shortHash(seed)}`;
  return `${name.slice(0, max - suffix.length).replace(/_+$/, '')}${suffix}`;
}

/** A property name every model provider accepts (`^[a-zA-Z0-9_.-]{1,64}$`). */
export function argumentName(raw: string): string {
  const clean = sanitize(raw, /[^a-zA-Z0-9_.-]+/g) || 'arg';
  return clean.length <= ARGUMENT_NAME_MAX ? clean : withHash(clean, raw, ARGUMENT_NAME_MAX);
}

/** A `$defs` key: readable, unique within one schema. */
export function defName(raw: string, used: Set<string>): string {
  const base = sanitize(raw, /[^a-zA-Z0-9_.-]+/g) || 'Schema';
  let name = base;
  for (let n = 2; used.has(name); n++) name = `${base}${n}`;
  used.add(name);
  return name;
}

/** `ShopKey` → `SHOP_KEY`, `api-key` → `API_KEY`. */
export function screamingSnake(raw: string): string {
  return sanitize(
    raw.replace(/([a-z0-9])([A-Z])/g, '$1_$2').replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2'),
    /[^a-zA-Z0-9]+/g,
  ).toUpperCase();
}

/** An npm package name from an API title: `Swagger Petstore` → `swagger-petstore-mcp`. */
export function packageName(title: string): string {
  const base = title
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^a-z0-9]+/g, '-')
    .slice(0, 200)
    .replace(/^-+|-+$/g, '');
  return base.endsWith('mcp') ? base : `${base || 'api'}-mcp`;
}

/** The environment variable that sets a server variable: `basePath` → `API_SERVER_BASE_PATH`. */
export function serverVariableEnv(variable: string): string {
  return `API_SERVER_${screamingSnake(variable) || 'VAR'}`;
}

/** The environment variable holding a security scheme's credential: `ShopKey` → `SHOP_KEY`. */
export function credentialEnv(scheme: string): string {
  return screamingSnake(scheme) || 'API_CREDENTIAL';
}
