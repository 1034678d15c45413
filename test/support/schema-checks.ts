/**
 * Checks on the JSON Schemas a generated server lists, the way MCP clients consume them:
 * - they compile with Ajv 2020 configured exactly like the MCP SDK's default validator
 *   (`strict: false, validateFormats: true, validateSchema: false, allErrors: true` + ajv-formats;
 *   `unicodeRegExp` left at its default, so every `pattern` is compiled with the `u` flag);
 * - they are valid against the 2020-12 meta-schema;
 * - no OpenAPI / draft-04 leftovers (`nullable`, `x-nullable`, boolean exclusiveMinimum/Maximum,
 *   `$ref`s to `#/definitions/` or `#/components/`) and no duplicate enum values.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsPlugin from 'ajv-formats';

export type { Ajv2020 };

type JsonObject = { [key: string]: unknown };

// ajv-formats is CommonJS; depending on the loader its default import is the plugin or the module.
const addFormats = ((addFormatsPlugin as unknown as { default?: unknown }).default ??
  addFormatsPlugin) as unknown as (ajv: Ajv2020) => Ajv2020;

/**
 * Ajv 2020 in the MCP SDK's client/server default configuration. The only difference: Ajv's
 * warnings (`unknown format "x" ignored`) are dropped instead of printed, to keep test output
 * readable; they do not affect compilation or validation.
 */
export function createClientAjv(): Ajv2020 {
  const logger = {
    log: () => undefined,
    warn: () => undefined,
    error: (...args: unknown[]) => console.error(...args),
  };
  const ajv = new Ajv2020({
    strict: false,
    validateFormats: true,
    validateSchema: false,
    allErrors: true,
    logger,
  });
  if (ajv.opts.unicodeRegExp !== true)
    throw new Error('expected Ajv to compile patterns with the u flag');
  addFormats(ajv);
  return ajv;
}

export interface SchemaProblem {
  tool: string;
  /** `inputSchema` or `outputSchema`, then the JSON pointer inside it. */
  where: string;
  problem: string;
}

export interface ListedSchemas {
  name: string;
  inputSchema: unknown;
  outputSchema?: unknown;
}

/**
 * Every problem in the tools' schemas. One Ajv instance for all tools, as a client session has
 * (a collision between tools, e.g. two schemas with the same `$id`, is a real problem too).
 */
export function schemaProblems(tools: readonly ListedSchemas[]): SchemaProblem[] {
  const ajv = createClientAjv();
  const meta = new Ajv2020({
    strict: false,
    allErrors: true,
    validateFormats: false,
    logger: false,
  });
  const problems: SchemaProblem[] = [];
  for (const tool of tools) {
    const schemas: Array<[string, unknown]> = [['inputSchema', tool.inputSchema]];
    if (tool.outputSchema !== undefined) schemas.push(['outputSchema', tool.outputSchema]);
    for (const [kind, schema] of schemas) {
      const add = (where: string, problem: string) =>
        problems.push({ tool: tool.name, where: `${kind}${where}`, problem });
      if (
        typeof schema !== 'object' ||
        schema === null ||
        (schema as JsonObject).type !== 'object'
      ) {
        add(
          '',
          `the root must be an object schema with type "object", got ${JSON.stringify(schema)?.slice(0, 200)}`,
        );
        continue;
      }
      try {
        ajv.compile(schema as JsonObject);
      } catch (error) {
        add('', `Ajv 2020 (client mode) cannot compile it: ${(error as Error).message}`);
      }
      if (!meta.validateSchema(schema as JsonObject)) {
        add('', `not a valid JSON Schema 2020-12: ${meta.errorsText(meta.errors)}`);
      }
      for (const lint of lintSchema(schema)) add(lint.where, lint.problem);
    }
  }
  return problems;
}

/** Keywords whose value is a schema, a list of schemas, or a map of schemas (2020-12 and older). */
const SCHEMA_KEYWORDS = new Set([
  'additionalProperties',
  'unevaluatedProperties',
  'unevaluatedItems',
  'items',
  'additionalItems',
  'contains',
  'not',
  'if',
  'then',
  'else',
  'propertyNames',
  'contentSchema',
]);
const SCHEMA_LIST_KEYWORDS = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);
const SCHEMA_MAP_KEYWORDS = new Set([
  'properties',
  'patternProperties',
  '$defs',
  'definitions',
  'dependentSchemas',
]);

/** Walks schema positions only (a property *named* `nullable` is fine; the keyword is not). */
export function lintSchema(schema: unknown): Array<{ where: string; problem: string }> {
  const found: Array<{ where: string; problem: string }> = [];
  const visit = (node: unknown, where: string): void => {
    if (typeof node !== 'object' || node === null || Array.isArray(node)) return;
    const s = node as JsonObject;
    if ('nullable' in s)
      found.push({
        where,
        problem: `OpenAPI "nullable": ${JSON.stringify(s.nullable)} left in the schema`,
      });
    if ('x-nullable' in s)
      found.push({ where, problem: `Swagger "x-nullable" left in the schema` });
    for (const keyword of ['exclusiveMinimum', 'exclusiveMaximum']) {
      if (typeof s[keyword] === 'boolean')
        found.push({ where, problem: `draft-04 boolean ${keyword}: ${String(s[keyword])}` });
    }
    if (typeof s.$ref === 'string' && /^#\/(definitions|components)\//.test(s.$ref)) {
      found.push({ where, problem: `$ref to ${s.$ref} (outside the schema's own $defs)` });
    }
    if (Array.isArray(s.enum)) {
      const seen = new Set<string>();
      for (const value of s.enum) {
        const key = JSON.stringify(value);
        if (seen.has(key)) found.push({ where, problem: `duplicate enum value ${key}` });
        seen.add(key);
      }
    }
    for (const [keyword, value] of Object.entries(s)) {
      const at = `${where}/${escape(keyword)}`;
      if (SCHEMA_KEYWORDS.has(keyword)) {
        if (Array.isArray(value))
          value.forEach((v, i) => visit(v, `${at}/${i}`)); // draft-04 tuple items
        else visit(value, at);
      } else if (SCHEMA_LIST_KEYWORDS.has(keyword) && Array.isArray(value)) {
        value.forEach((v, i) => visit(v, `${at}/${i}`));
      } else if (SCHEMA_MAP_KEYWORDS.has(keyword) && typeof value === 'object' && value !== null) {
        for (const [name, sub] of Object.entries(value)) visit(sub, `${at}/${escape(name)}`);
      }
    }
  };
  visit(schema, '');
  return found;
}

function escape(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}
