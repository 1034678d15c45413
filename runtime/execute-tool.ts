import { MissingCredentialError, TokenSource, authorize, redact, secretValues } from './auth.js';
import { ArgumentError, buildRequest, type UpstreamRequest } from './build-request.js';
import { callUpstream, combineSignals, type UpstreamResult } from './call-upstream.js';
import { Semaphore, type Release } from './concurrency.js';
import { baseUrlProblem, type RuntimeConfig } from './config.js';
import { log } from './log.js';
import { failureResult, toToolResult, type ToolResult } from './map-response.js';
import { RateLimiter, rateLimitedMessage } from './rate-limit.js';
import { DEFAULT_RETRY_POLICY, withRetries, type RetryPolicy } from './retry.js';
import { toolBaseUrl } from './servers.js';
import type { SecuritySchemeDef, ToolDefinition } from './types.js';

/** State shared by all calls of a server process: the rate limit and the cap on concurrency. */
export interface CallLimits {
  rateLimiter: RateLimiter;
  semaphore: Semaphore;
}

export function createCallLimits(config: RuntimeConfig): CallLimits {
  return {
    rateLimiter: new RateLimiter({
      perMinute: config.rateLimitPerMinute,
      burst: config.rateBurst,
    }),
    semaphore: new Semaphore(config.maxConcurrency),
  };
}

export interface CallContext {
  config: RuntimeConfig;
  /** Aborted when the client cancels the call. */
  signal?: AbortSignal;
  /** The environment server variables and API_BASE_URL are read from. */
  env?: Record<string, string | undefined>;
  /** Checks structured content against the tool's outputSchema; returns the problem, if any. */
  checkOutput?: (value: unknown) => string | undefined;
  /** The API's security schemes and the OAuth token cache, for tools that need credentials. */
  auth?: { schemes: Readonly<Record<string, SecuritySchemeDef>>; tokens: TokenSource };
  /** Rate limit and concurrency cap; without them neither applies. */
  limits?: CallLimits;
  /** Told about what a slow call is waiting for (a free slot, a retry), for progress reports. */
  onProgress?: (message: string) => void;
  /** For tests. */
  fetchImpl?: typeof fetch;
  now?: () => number;
  random?: () => number;
}

/** How a call ended, for the audit log line: the HTTP status when there was an answer. */
export type CallStatus =
  | number
  | 'network_error'
  | 'timeout'
  | 'cancelled'
  | 'rate_limited'
  | 'invalid_arguments'
  | 'config_error'
  | 'internal_error';

export interface CallAudit {
  status: CallStatus;
  /** Attempts to send the request (retries included); 0 when none was made. */
  attempts: number;
  /** Only with MCP_LOG_BODIES: the start of the request and response bodies. */
  requestBody?: string;
  responseBody?: string;
}

export interface ToolOutcome {
  result: ToolResult;
  audit: CallAudit;
}

/** How much of a body MCP_LOG_BODIES logs. */
export const MAX_LOGGED_BODY_CHARS = 2000;

/**
 * One tool call: arguments → HTTP request → upstream (rate-limited, capped in concurrency,
 * retried when safe) → MCP result, plus what the audit log records about it. Never throws.
 */
export async function executeTool(
  tool: ToolDefinition,
  args: Record<string, unknown>,
  ctx: CallContext,
): Promise<ToolOutcome> {
  const audit: CallAudit = { status: 'internal_error', attempts: 0 };
  try {
    const result = scrubSecrets(await runCall(tool, args, ctx, audit), ctx);
    return { result, audit };
  } catch (error) {
    // A bug in the runtime or the tool definition, never the model's doing: a short message for
    // the client, the details (stack included) for the operator on stderr.
    log('tool_error', { tool: tool.name, error: errorDetails(error) });
    audit.status = 'internal_error';
    return {
      result: failureResult(
        `Internal error in the tool ${tool.name}: ${safeErrorMessage(error).replace(/\.$/, '')}. This is a problem with the server, not with the arguments.`,
      ),
      audit,
    };
  }
}

async function runCall(
  tool: ToolDefinition,
  args: Record<string, unknown>,
  ctx: CallContext,
  audit: CallAudit,
): Promise<ToolResult> {
  const { config } = ctx;
  const now = ctx.now ?? Date.now;
  const deadline = now() + config.timeoutMs;

  const baseUrl = toolBaseUrl(tool, config.baseUrl, ctx.env ?? {});
  const problem = baseUrlProblem(baseUrl);
  if (problem) {
    audit.status = 'config_error';
    return failureResult(`Cannot call ${tool.name}: ${problem}.`);
  }
  let request: UpstreamRequest;
  try {
    request = buildRequest(tool.http, args, baseUrl);
  } catch (error) {
    if (error instanceof ArgumentError) {
      audit.status = 'invalid_arguments';
      return failureResult(`Invalid arguments for ${tool.name}: ${error.message}`);
    }
    log('tool_error', { tool: tool.name, error: errorDetails(error) });
    audit.status = 'internal_error';
    return failureResult(
      `Cannot build the request for ${tool.name}: ${safeErrorMessage(error).replace(/\.$/, '')}. This is a problem with the server, not with the arguments.`,
    );
  }
  if (config.logBodies) audit.requestBody = describeRequestBody(request.body);

  // Arguments are checked first: a call the API would never see does not use up the budget.
  const rate = ctx.limits?.rateLimiter.take();
  if (rate && !rate.ok) {
    audit.status = 'rate_limited';
    return failureResult(rateLimitedMessage(rate.retryAfterMs, config.rateLimitPerMinute));
  }

  const call = combineSignals(Math.max(1, deadline - now()), ctx.signal);
  try {
    if (ctx.auth) {
      const { schemes, tokens } = ctx.auth;
      request = await authorize(
        request,
        tool.http.security,
        schemes,
        ctx.env ?? {},
        tokens,
        call.signal,
      );
    }
  } catch (error) {
    call.dispose();
    if (!(error instanceof MissingCredentialError)) throw error;
    audit.status = 'config_error';
    return failureResult(`Cannot call ${tool.name}: ${error.message}`);
  }
  let sent = 0;
  let outcome: UpstreamResult;
  try {
    const policy: RetryPolicy = {
      ...DEFAULT_RETRY_POLICY,
      maxRetries: config.maxRetries,
      maxTotalWaitMs: config.retryMaxWaitMs,
    };
    ({ outcome } = await withRetries(
      async () => {
        const slot = await acquireSlot(ctx, call.signal);
        if (!slot) return { ok: false, kind: 'aborted', message: 'no upstream slot' };
        const release = slot.release;
        if (slot.queued && deadline - now() < MIN_QUEUED_ATTEMPT_MS) {
          // The slot came too late: a request now could only time out.
          release();
          return { ok: false, kind: 'timeout', message: 'no time left' };
        }
        try {
          sent++;
          return await callUpstream(request, {
            timeoutMs: Math.max(1, deadline - now()),
            signal: call.signal,
            maxResponseBytes: config.maxResponseBytes,
            ...(ctx.fetchImpl ? { fetchImpl: ctx.fetchImpl } : {}),
          });
        } finally {
          release();
        }
      },
      {
        method: tool.http.method,
        policy,
        deadline,
        signal: call.signal,
        now,
        ...(ctx.random ? { random: ctx.random } : {}),
        onRetry: (event) => {
          log('upstream_retry', {
            tool: tool.name,
            attempt: event.attempt,
            reason: event.reason,
            delayMs: event.delayMs,
          });
          const what =
            event.reason === 'connection refused'
              ? 'the upstream refused the connection'
              : `${event.reason} from the upstream`;
          ctx.onProgress?.(
            `${what}; retrying in ${formatDelay(event.delayMs)} (attempt ${event.attempt} of ${event.maxAttempts})`,
          );
        },
      },
    ));
  } finally {
    call.dispose();
  }
  audit.attempts = sent;

  if (ctx.signal?.aborted) {
    audit.status = 'cancelled';
    return failureResult('The call was cancelled by the client.');
  }
  if (call.timedOut() || (!outcome.ok && outcome.kind === 'timeout')) {
    audit.status = 'timeout';
    const where =
      sent === 0
        ? ` while waiting for a free upstream slot (MCP_MAX_CONCURRENCY=${config.maxConcurrency})`
        : sent > 1
          ? ` (${sent} attempts)`
          : '';
    return failureResult(
      `Upstream request timed out after ${config.timeoutMs} ms${where}. The API may or may not have processed the request.`,
    );
  }
  if (!outcome.ok) {
    audit.status = outcome.kind === 'aborted' ? 'cancelled' : 'network_error';
    return failureResult(outcome.message + attemptsNote(sent));
  }
  audit.status = outcome.status;
  // A rejected OAuth token may have been revoked early: fetch a fresh one next time (it stays
  // known to the redaction of this result).
  if (outcome.status === 401) ctx.auth?.tokens.invalidate();
  if (config.logBodies) audit.responseBody = describeResponseBody(outcome);
  const result = toToolResult(tool, outcome, ctx.checkOutput);
  if (result.isError && sent > 1)
    result.content.push({ type: 'text', text: attemptsNote(sent).trim() });
  return result;
}

/** An API that echoes a credential back (in an error, say) must not hand it to the model. */
function scrubSecrets(result: ToolResult, ctx: CallContext): ToolResult {
  if (!ctx.auth) return result;
  const secrets = [
    ...secretValues(ctx.auth.schemes, ctx.env ?? {}),
    ...ctx.auth.tokens.fetchedTokens(),
  ];
  if (secrets.length === 0) return result;
  result.content = result.content.map((block) =>
    block.type === 'text' ? { ...block, text: redact(block.text, secrets) } : block,
  );
  if (result.structuredContent) {
    result.structuredContent = redactDeep(result.structuredContent, secrets) as Record<
      string,
      unknown
    >;
  }
  return result;
}

function redactDeep(value: unknown, secrets: readonly string[]): unknown {
  if (typeof value === 'string') return redact(value, secrets);
  if (Array.isArray(value)) return value.map((v) => redactDeep(v, secrets));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactDeep(v, secrets)]));
  }
  return value;
}

function attemptsNote(attempts: number): string {
  return attempts > 1 ? ` (tried ${attempts} times; retries are exhausted)` : '';
}

function formatDelay(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 100) / 10} s`;
}

/** A request is not started after queueing for a slot unless it has at least this long left. */
const MIN_QUEUED_ATTEMPT_MS = 50;

/**
 * A concurrency slot, telling the progress reporter when the call has to queue for one; undefined
 * when `signal` aborted first.
 */
async function acquireSlot(
  ctx: CallContext,
  signal: AbortSignal,
): Promise<{ release: Release; queued: boolean } | undefined> {
  const semaphore = ctx.limits?.semaphore;
  if (!semaphore) return { release: () => {}, queued: false };
  const now = semaphore.tryAcquire();
  if (now) return { release: now, queued: false };
  ctx.onProgress?.(
    `waiting for a free upstream slot (${semaphore.inFlight} requests in flight, MCP_MAX_CONCURRENCY=${semaphore.max})`,
  );
  const release = await semaphore.acquire(signal);
  return release ? { release, queued: true } : undefined;
}

// ---------------------------------------------------------------------------------------------
// error text that is safe to show a client

/** Folders of this server that must not appear in a result. */
function serverFolders(): string[] {
  const folders = new Set<string>();
  try {
    folders.add(process.cwd());
  } catch {
    // the working folder may be gone
  }
  try {
    const here = new URL('.', import.meta.url);
    if (here.protocol === 'file:')
      folders.add(decodeURIComponent(here.pathname).replace(/\/$/, ''));
  } catch {
    // not a file URL
  }
  if (process.env.HOME) folders.add(process.env.HOME);
  return [...folders].filter((f) => f.length > 1).sort((a, b) => b.length - a.length);
}

/**
 * The first line of an error's message with file paths and URLs of this server removed, cut to a
 * readable length: no stack trace, no file layout, whatever threw.
 */
export function safeErrorMessage(error: unknown): string {
  const raw =
    error instanceof Error ? error.message : typeof error === 'string' ? error : 'unknown error';
  let text = (raw.split('\n')[0] ?? '').trim();
  text = text.replace(/\bfile:\/\/\S+/gi, '<file>');
  for (const folder of serverFolders()) text = text.split(folder).join('<server>');
  text = text
    // Any remaining absolute path to a file (POSIX or Windows) that looks like code or data.
    .replace(/(?:[A-Za-z]:\\|\/)(?:[^\s'"`()<>:]+[\\/])+[^\s'"`()<>:]*/g, '<path>')
    .replace(/<server>[^\s'"`()]*/g, '<path>');
  if (text.length > 300) text = `${text.slice(0, 300)}…`;
  return text || 'unknown error';
}

function errorDetails(error: unknown): Record<string, unknown> {
  if (error instanceof Error) return { message: error.message, stack: error.stack };
  return { message: String(error) };
}

// ---------------------------------------------------------------------------------------------
// MCP_LOG_BODIES

function clip(text: string): string {
  return text.length > MAX_LOGGED_BODY_CHARS
    ? `${text.slice(0, MAX_LOGGED_BODY_CHARS)}… (${text.length - MAX_LOGGED_BODY_CHARS} more characters)`
    : text;
}

function describeRequestBody(body: UpstreamRequest['body']): string | undefined {
  if (body === undefined) return undefined;
  if (typeof body === 'string') return clip(body);
  if (body instanceof Uint8Array) return `<${body.byteLength} bytes>`;
  return '<multipart form>';
}

function describeResponseBody(res: Extract<UpstreamResult, { ok: true }>): string | undefined {
  if (res.body.byteLength === 0) return undefined;
  const essence = (res.contentType.split(';')[0] ?? '').trim().toLowerCase();
  const textual =
    essence === '' ||
    essence.startsWith('text/') ||
    essence.endsWith('json') ||
    essence.endsWith('xml') ||
    essence.endsWith('yaml') ||
    essence === 'application/x-www-form-urlencoded';
  if (!textual) return `<${res.body.byteLength} bytes of ${essence}>`;
  return clip(new TextDecoder().decode(res.body));
}
