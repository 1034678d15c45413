/**
 * Compiles schemas the way MCP clients do (Ajv, JSON Schema 2020-12, patterns with the `u` flag),
 * to prove that what the tools stage produces is a valid schema and to check what it accepts.
 */
import ajv2020 from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv';

// A CommonJS module: under NodeNext the class is its `default` export (also set at run time).
const Ajv2020 = ajv2020.default;
const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true, logger: false });

/** Throws when the schema does not compile; returns the validator otherwise. */
export function compile(schema: object): ValidateFunction {
  return ajv.compile(structuredClone(schema));
}

export function accepts(schema: object, data: unknown): boolean {
  return compile(schema)(data) === true;
}

/** True when the object graph has no cycle (a tool schema must serialize as plain JSON). */
export function isFinite(value: unknown, stack = new Set<unknown>()): boolean {
  if (value === null || typeof value !== 'object') return true;
  if (stack.has(value)) return false;
  stack.add(value);
  const ok = Object.values(value).every((v) => isFinite(v, stack));
  stack.delete(value);
  return ok;
}
