/**
 * Which API server a call goes to. The spec's servers are listed in ServerInfo; the environment
 * picks one (API_SERVER, 0-based) and fills its `{variables}`; API_BASE_URL replaces all of that.
 */
import type { ServerInfo, ServerTemplate, ToolDefinition } from './types.js';

/** A server URL with every `{variable}` replaced: from its environment variable, else its default. */
export function expandServerUrl(
  server: ServerTemplate,
  env: Record<string, string | undefined>,
): string {
  return server.url.replace(/\{([^{}]+)\}/g, (whole, name: string) => {
    const variable = server.variables?.find((v) => v.name === name);
    if (!variable) return whole;
    return env[variable.env]?.trim() || variable.default;
  });
}

/** Server variables whose environment value is not one of the spec's allowed values. */
export function serverVariableProblems(
  server: ServerTemplate,
  env: Record<string, string | undefined>,
): string[] {
  return (server.variables ?? [])
    .filter((v) => v.enum && env[v.env] !== undefined && !v.enum.includes(env[v.env]?.trim() ?? ''))
    .map((v) => `${v.env}="${env[v.env]}" is not one of ${v.enum?.join(', ')}`);
}

/** The base URL for every tool without servers of its own. */
export function chooseBaseUrl(info: ServerInfo, env: Record<string, string | undefined>): string {
  const override = env.API_BASE_URL?.trim();
  if (override) return override;
  const servers = info.servers ?? [];
  const index = Number(env.API_SERVER ?? 0);
  const server =
    servers[Number.isInteger(index) && index >= 0 && index < servers.length ? index : 0];
  return server ? expandServerUrl(server, env) : info.defaultBaseUrl;
}

/**
 * A tool's own base URL: an operation- or path-level server, resolved against the API's base when
 * relative. API_BASE_URL, when set, sends every tool to one place (a proxy, a mock, a test server).
 */
export function toolBaseUrl(
  tool: ToolDefinition,
  apiBaseUrl: string,
  env: Record<string, string | undefined>,
): string {
  const own = tool.http.server;
  if (!own || env.API_BASE_URL?.trim()) return apiBaseUrl;
  const url = expandServerUrl(own, env);
  try {
    return new URL(url, withTrailingSlash(apiBaseUrl)).href.replace(/\/$/, '');
  } catch {
    return url;
  }
}

/** `new URL('/v2', base)` keeps only base's origin; `v2` keeps base's path when it ends in '/'. */
function withTrailingSlash(url: string): string {
  return url.endsWith('/') ? url : `${url}/`;
}
