import { chooseBaseUrl } from './servers.js';
import type { ServerInfo } from './types.js';

/** Settings a generated server reads from its environment, with the defaults documented in its README. */
export interface RuntimeConfig {
  baseUrl: string;
  timeoutMs: number;
  maxResponseBytes: number;
}

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_RESPONSE_BYTES = 10 * 1024 * 1024;

export function readConfig(env: NodeJS.ProcessEnv, info: ServerInfo): RuntimeConfig {
  return {
    baseUrl: chooseBaseUrl(info, env),
    timeoutMs: positiveInt(env.API_TIMEOUT_MS, DEFAULT_TIMEOUT_MS),
    maxResponseBytes: positiveInt(env.MCP_MAX_RESPONSE_BYTES, DEFAULT_MAX_RESPONSE_BYTES),
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
