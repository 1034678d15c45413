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
import { readConfig, type RuntimeConfig } from './config.js';
import {
  createCallLimits,
  executeTool,
  safeErrorMessage,
  type CallAudit,
  type CallLimits,
} from './execute-tool.js';
import { log } from './log.js';
import { NO_PROGRESS, startProgress } from './progress.js';
import { serverVariableProblems } from './servers.js';
import { TokenSource } from './auth.js';
import type { JsonSchema, ServerInfo, ToolDefinition } from './types.js';

/** OAuth tokens, cached for the whole process (the HTTP transport builds a server per request). */
const TOKENS = new TokenSource();

export function createServer(
  info: ServerInfo,
  tools: readonly ToolDefinition[],
  env = process.env,
): McpServer {
  const config = readConfig(env, info);
  const limits = sharedLimits(config);
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
        // Arguments the schema rejects never reach the handler; the audit line is written here.
        inputSchema: lazyJsonSchema(tool.inputSchema, (status) =>
          log('tool_call', { tool: tool.name, status, isError: true, ms: 0, attempts: 0 }),
        ),
        ...(outputSchema ? { outputSchema } : {}),
        annotations: tool.annotations,
      },
      async (args, ctx) => {
        const started = Date.now();
        const progressToken = ctx.mcpReq._meta?.progressToken;
        const progress =
          progressToken === undefined
            ? NO_PROGRESS
            : startProgress(
                ({ progress, message }) =>
                  ctx.mcpReq.signal.aborted
                    ? undefined
                    : ctx.mcpReq.notify({
                        method: 'notifications/progress',
                        params: { progressToken, progress, message },
                      }),
                config.progressIntervalMs,
              );
        let result: CallToolResult;
        let audit: CallAudit;
        try {
          const outcome = await executeTool(tool, args ?? {}, {
            config,
            env,
            signal: ctx.mcpReq.signal,
            checkOutput,
            limits,
            // Always on: an operation naming a scheme the spec never declares must not go out as public.
            auth: { schemes: info.securitySchemes ?? {}, tokens: TOKENS },
            onProgress: (message) => progress.note(message),
          });
          result = outcome.result as CallToolResult;
          audit = outcome.audit;
        } catch (error) {
          // executeTool does not throw; should it ever, the client still gets a clean result.
          log('tool_error', { tool: tool.name, message: (error as Error)?.message });
          result = {
            content: [
              {
                type: 'text',
                text: `Internal error in the tool ${tool.name}: ${safeErrorMessage(error)}`,
              },
            ],
            isError: true,
          };
          audit = { status: 'internal_error', attempts: 0 };
        } finally {
          progress.stop();
        }
        log('tool_call', {
          tool: tool.name,
          status: audit.status,
          isError: result.isError === true,
          ms: Date.now() - started,
          attempts: audit.attempts,
          ...(config.logBodies
            ? { requestBody: audit.requestBody, responseBody: audit.responseBody }
            : {}),
        });
        return result;
      },
    );
  }
  return server;
}

/**
 * The rate limit and the concurrency cap hold for the whole process: the HTTP transport makes a
 * server per request, and every one of them must draw on the same budget.
 */
const limitsBySettings = new Map<string, CallLimits>();

function sharedLimits(config: RuntimeConfig): CallLimits {
  const key = [config.rateLimitPerMinute, config.rateBurst, config.maxConcurrency].join('/');
  let limits = limitsBySettings.get(key);
  if (!limits) {
    limits = createCallLimits(config);
    limitsBySettings.set(key, limits);
  }
  return limits;
}

type Args = Record<string, unknown>;

/**
 * `fromJsonSchema`, compiled on first use. The SDK compiles its Ajv validator when the schema is
 * wrapped; for a 1,000-tool API doing that for every tool at start-up costs seconds, and one schema
 * Ajv cannot compile would stop the whole server instead of failing only calls to that tool.
 */
function lazyJsonSchema(
  schema: JsonSchema,
  onRejected?: (status: 'invalid_arguments' | 'internal_error') => void,
): StandardSchemaWithJSON<Args, Args> {
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
          onRejected?.('internal_error');
          return {
            issues: [
              { message: `this tool's schema cannot be compiled: ${(error as Error).message}` },
            ],
          };
        }
        const result = compiled['~standard'].validate(value);
        if (onRejected && !(result instanceof Promise) && (result.issues?.length ?? 0) > 0)
          onRejected('invalid_arguments');
        return result;
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
