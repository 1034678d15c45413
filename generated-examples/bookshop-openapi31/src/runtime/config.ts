import { chooseBaseUrl } from './servers.js';
import type { ServerInfo } from './types.js';

/** Settings a generated server reads from its environment, with the defaults documented in its README. */
export interface RuntimeConfig {
  baseUrl: string;
  /** Time limit for one tool call: waiting for a slot, every attempt and the waits between them. */
  timeoutMs: number;
  maxResponseBytes: number;
  /** Tool calls allowed per minute (token bucket refill); 0: no limit. */
  rateLimitPerMinute: number;
  /** Tool calls allowed in a burst (token bucket size). */
  rateBurst: number;
  /** Upstream requests in flight at once; more wait for a free slot. 0: no cap. */
  maxConcurrency: number;
  /** Retries of idempotent requests on 429/502/503/504 or a refused connection; 0: none. */
  maxRetries: number;
  /** The most time one call spends waiting between retries, Retry-After included. */
  retryMaxWaitMs: number;
  /** How often progress is reported to clients that asked for it; 0: never. */
  progressIntervalMs: number;
  /** Adds truncated request and response bodies to the tool_call log line (they may hold secrets). */
  logBodies: boolean;
}

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_RESPONSE_BYTES = 10 * 1024 * 1024;
const DEFAULT_RATE_LIMIT = 120;
const DEFAULT_MAX_CONCURRENCY = 8;
const DEFAULT_MAX_RETRIES = 2;
const DEFAULT_RETRY_MAX_WAIT_MS = 10_000;
const DEFAULT_PROGRESS_INTERVAL_MS = 1_000;

export function readConfig(env: NodeJS.ProcessEnv, info: ServerInfo): RuntimeConfig {
  const rateLimitPerMinute = nonNegativeInt(env.MCP_RATE_LIMIT, DEFAULT_RATE_LIMIT);
  return {
    baseUrl: chooseBaseUrl(info, env),
    timeoutMs: positiveInt(env.API_TIMEOUT_MS, DEFAULT_TIMEOUT_MS),
    maxResponseBytes: positiveInt(env.MCP_MAX_RESPONSE_BYTES, DEFAULT_MAX_RESPONSE_BYTES),
    rateLimitPerMinute,
    rateBurst: positiveInt(env.MCP_RATE_BURST, Math.max(1, rateLimitPerMinute)),
    maxConcurrency: nonNegativeInt(env.MCP_MAX_CONCURRENCY, DEFAULT_MAX_CONCURRENCY),
    maxRetries: nonNegativeInt(env.API_MAX_RETRIES, DEFAULT_MAX_RETRIES),
    retryMaxWaitMs: nonNegativeInt(env.API_RETRY_MAX_WAIT_MS, DEFAULT_RETRY_MAX_WAIT_MS),
    progressIntervalMs: nonNegativeInt(env.MCP_PROGRESS_INTERVAL_MS, DEFAULT_PROGRESS_INTERVAL_MS),
    logBodies: /^(1|true|yes|on)$/i.test(env.MCP_LOG_BODIES?.trim() ?? ''),
  };
}

/** The base URL must be absolute: a relative one (from a spec without a host) needs API_BASE_URL. */
export function baseUrlProblem(baseUrl: string): string | undefined {
  try {
    const url = new URL(baseUrl);
    return url.protocol === 'http:' || url.protocol === 'https:'
      ? undefined
      : `unsupported protocol ${url.protocol}`;
  } catch {
    return `the API base URL "${baseUrl}" is not absolute; set API_BASE_URL to the API's address`;
  }
}

function positiveInt(raw: string | undefined, fallback: number): number {
  const n = Number(raw);
  return raw !== undefined && Number.isInteger(n) && n > 0 ? n : fallback;
}

function nonNegativeInt(raw: string | undefined, fallback: number): number {
  const n = Number(raw);
  return raw !== undefined && raw.trim() !== '' && Number.isInteger(n) && n >= 0 ? n : fallback;
}
