/**
 * The MCP server: tools registered with their JSON Schemas. The SDK is used only here and in the
 * transport-*.ts files, so an SDK upgrade touches those alone.
 */
import {
  McpServer,
  fromJsonSchema,
  type CallToolResult,
  type StandardSchemaWithJSON,
} from '@modelcontextprotocol/server';
import { readConfig } from './config.js';
import { executeTool } from './execute-tool.js';
import { log } from './log.js';
import { serverVariableProblems } from './servers.js';
import type { JsonSchema, ServerInfo, ToolDefinition } from './types.js';

export function createServer(
  info: ServerInfo,
  tools: readonly ToolDefinition[],
  env = process.env,
): McpServer {
  const config = readConfig(env, info);
  for (const problem of (info.servers ?? []).flatMap((s) => serverVariableProblems(s, env)))
    log('config_warning', { problem });
  const server = new McpServer(
    { name: info.name, version: info.version },
    { capabilities: { tools: { listChanged: true } } },
  );
  for (const tool of tools) {
    const outputSchema = tool.output ? lazyJsonSchema(tool.output.schema) : undefined;
    const checkOutput = outputSchema
      ? (value: unknown) => firstIssues(outputSchema['~standard'].validate(value))
      : undefined;
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: lazyJsonSchema(tool.inputSchema),
        ...(outputSchema ? { outputSchema } : {}),
        annotations: tool.annotations,
      },
      async (args, ctx) => {
        const started = Date.now();
        const result = await executeTool(tool, args ?? {}, {
          config,
          env,
          signal: ctx.mcpReq.signal,
          checkOutput,
        });
        log('tool_call', {
          tool: tool.name,
          isError: result.isError === true,
          ms: Date.now() - started,
        });
        return result as CallToolResult;
      },
    );
  }
  return server;
}

type Args = Record<string, unknown>;

/**
 * `fromJsonSchema`, compiled on first use. The SDK compiles its Ajv validator when the schema is
 * wrapped; for a 1,000-tool API doing that for every tool at start-up costs seconds, and one schema
 * Ajv cannot compile would stop the whole server instead of failing only calls to that tool.
 */
function lazyJsonSchema(schema: JsonSchema): StandardSchemaWithJSON<Args, Args> {
  let compiled: StandardSchemaWithJSON<Args, Args> | undefined;
  return {
    '~standard': {
      version: 1,
      vendor: 'mcp',
      jsonSchema: { input: () => schema, output: () => schema },
      validate: (value) => {
        try {
          compiled ??= fromJsonSchema<Args>(schema);
        } catch (error) {
          return {
            issues: [
              { message: `this tool's schema cannot be compiled: ${(error as Error).message}` },
            ],
          };
        }
        return compiled['~standard'].validate(value);
      },
    },
  };
}

type ValidationResult = { issues?: ReadonlyArray<{ message: string }> };

/** Ajv's messages already name the failing location (`data/name must be string`). */
function firstIssues(result: ValidationResult | Promise<ValidationResult>): string | undefined {
  if (result instanceof Promise) return undefined; // the JSON Schema validator is synchronous
  if (!result.issues || result.issues.length === 0) return undefined;
  return result.issues
    .slice(0, 5)
    .map((i) => i.message)
    .join('; ');
}
