import { ArgumentError, buildRequest } from './build-request.js';
import { callUpstream } from './call-upstream.js';
import { baseUrlProblem, type RuntimeConfig } from './config.js';
import { failureResult, toToolResult, type ToolResult } from './map-response.js';
import { toolBaseUrl } from './servers.js';
import type { ToolDefinition } from './types.js';

export interface CallContext {
  config: RuntimeConfig;
  /** Aborted when the client cancels the call. */
  signal?: AbortSignal;
  /** The environment server variables and API_BASE_URL are read from. */
  env?: Record<string, string | undefined>;
  /** Checks structured content against the tool's outputSchema; returns the problem, if any. */
  checkOutput?: (value: unknown) => string | undefined;
}

/** One tool call: arguments → HTTP request → upstream → MCP result. Never throws. */
export async function executeTool(
  tool: ToolDefinition,
  args: Record<string, unknown>,
  ctx: CallContext,
): Promise<ToolResult> {
  const baseUrl = toolBaseUrl(tool, ctx.config.baseUrl, ctx.env ?? {});
  const problem = baseUrlProblem(baseUrl);
  if (problem) return failureResult(`Cannot call ${tool.name}: ${problem}.`);
  let request;
  try {
    request = buildRequest(tool.http, args, baseUrl);
  } catch (error) {
    if (error instanceof ArgumentError)
      return failureResult(`Invalid arguments for ${tool.name}: ${error.message}`);
    return failureResult(`Cannot build the request for ${tool.name}: ${(error as Error).message}`);
  }
  const response = await callUpstream(request, {
    timeoutMs: ctx.config.timeoutMs,
    signal: ctx.signal,
    maxResponseBytes: ctx.config.maxResponseBytes,
  });
  if (!response.ok) return failureResult(response.message);
  return toToolResult(tool, response, ctx.checkOutput);
}
