/**
 * Streamable HTTP transport: MCP at `/mcp`, served statelessly by the SDK's createMcpHandler (a
 * fresh McpServer per request), so any replica can answer any request and a load balancer needs
 * no session affinity. 2026-07-28 clients take the SDK's modern path; 2025-era clients (the
 * `initialize` handshake) its stateless legacy fallback.
 *
 * In front of `/mcp`, in this order: the Host check and the Origin check (DNS rebinding), then
 * the bearer token when MCP_AUTH_TOKEN is set. `GET /healthz` answers without any of them and says
 * nothing about the configuration. The client's own headers (Authorization included) stay here:
 * upstream requests are built from tool arguments and the API credentials only.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { toNodeHandler } from '@modelcontextprotocol/node';
import {
  OAuthError,
  OAuthErrorCode,
  bearerAuthChallengeResponse,
  createMcpHandler,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  validateHostHeader,
  validateOriginHeader,
  verifyBearerToken,
  type OAuthTokenVerifier,
} from '@modelcontextprotocol/server';
import { log } from './log.js';
import { createServer } from './server.js';
import type { ServerInfo, ToolDefinition } from './types.js';

export const DEFAULT_HTTP_HOST = '127.0.0.1';
export const DEFAULT_HTTP_PORT = 3000;
export const MCP_PATH = '/mcp';
export const HEALTH_PATH = '/healthz';

/** How long a stopping server waits for requests in flight before it drops their connections. */
const SHUTDOWN_GRACE_MS = 10_000;

export interface HttpOptions {
  host: string;
  /** 0 picks a free port; the `server_started` log line says which. */
  port: number;
  /** Stop gracefully on SIGTERM and SIGINT (off for in-process use). */
  handleSignals?: boolean;
}

export interface HttpServerHandle {
  host: string;
  port: number;
  /** Stops accepting connections and resolves once the requests in flight have finished. */
  close(): Promise<void>;
}

/** The access rules for `/mcp`, from the bound host and the environment. */
export interface HttpAccess {
  /** Host header hostnames (port-agnostic) that may reach `/mcp`. */
  allowedHosts: string[];
  /** Origin hostnames (or `<scheme>://*`) browsers may call `/mcp` from; no Origin always passes. */
  allowedOrigins: string[];
  /** Verifies `Authorization: Bearer …` when MCP_AUTH_TOKEN is set. */
  verifier?: OAuthTokenVerifier;
}

/**
 * localhost names, the bound host (unless it is a wildcard address) and MCP_ALLOWED_HOSTS; localhost
 * origins and MCP_ALLOWED_ORIGINS; a bearer token verifier when MCP_AUTH_TOKEN is set.
 */
export function httpAccess(bindHost: string, env: Record<string, string | undefined>): HttpAccess {
  const bound = isWildcardHost(bindHost) ? [] : [hostnameOf(bindHost)];
  const token = env.MCP_AUTH_TOKEN?.trim();
  return {
    allowedHosts: unique([
      ...localhostAllowedHostnames(),
      ...bound,
      ...listEnv(env.MCP_ALLOWED_HOSTS).map(hostnameOf),
    ]),
    allowedOrigins: unique([
      ...localhostAllowedOrigins(),
      ...listEnv(env.MCP_ALLOWED_ORIGINS).map(originHostnameOf),
    ]),
    ...(token ? { verifier: staticTokenVerifier(token) } : {}),
  };
}

/**
 * Accepts exactly `token`. Both sides are hashed first, so the comparison takes the same time
 * whatever the length or content of the guess.
 */
export function staticTokenVerifier(token: string): OAuthTokenVerifier {
  const expected = sha256(token);
  return {
    verifyAccessToken: async (candidate) => {
      if (!timingSafeEqual(sha256(candidate), expected))
        throw new OAuthError(OAuthErrorCode.InvalidToken, 'Invalid bearer token');
      // The SDK refuses tokens without an expiry; a static token is valid while it is configured.
      return {
        token: candidate,
        clientId: 'mcp-auth-token',
        scopes: [],
        expiresAt: Math.floor(Date.now() / 1000) + 3600,
      };
    },
  };
}

/** Serves MCP over Streamable HTTP until closed (or, with handleSignals, until SIGTERM/SIGINT). */
export async function serveHttp(
  info: ServerInfo,
  tools: readonly ToolDefinition[],
  options: HttpOptions,
  env: Record<string, string | undefined> = process.env,
): Promise<HttpServerHandle> {
  const access = httpAccess(options.host, env);
  if (isWildcardHost(options.host) && !listEnv(env.MCP_ALLOWED_HOSTS).length)
    log('config_warning', {
      problem: `listening on ${options.host} without MCP_ALLOWED_HOSTS: only requests addressed to localhost reach ${MCP_PATH}; set MCP_ALLOWED_HOSTS to the host names clients use`,
    });
  if (!isLoopbackHost(options.host) && !access.verifier)
    log('config_warning', {
      problem: `listening on ${options.host} without MCP_AUTH_TOKEN: whoever reaches this port can call the API with this server's credentials`,
    });

  const mcp = createMcpHandler(() => createServer(info, tools, env as NodeJS.ProcessEnv), {
    onerror: (error) => log('mcp_http_error', { message: error.message }),
  });
  const serveMcp = toNodeHandler(mcp, {
    onerror: (error) => log('mcp_http_error', { message: error.message }),
  });

  const server = createHttpServer((req, res) => {
    handle(req, res, access, serveMcp).catch((error: unknown) => {
      log('mcp_http_error', { message: (error as Error).message });
      if (!res.headersSent) sendJson(res, 500, { error: 'internal server error' });
      else res.destroy();
    });
  });
  // Longer than the idle timeout of common load balancers (60 s), so they never reuse a
  // connection this server has just closed.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const grace = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS);
      grace.unref();
      await stopped;
      clearTimeout(grace);
      await mcp.close();
    })());

  // Before listening: a signal that arrives right after `server_started` must find its handler.
  if (options.handleSignals) {
    for (const signal of ['SIGTERM', 'SIGINT'] as const)
      process.once(signal, () => {
        log('server_stopping', { signal });
        void close().then(() => {
          log('server_stopped', {});
          process.exit(0);
        });
      });
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  log('server_started', {
    name: info.name,
    tools: tools.length,
    transport: 'http',
    host: options.host,
    port,
    path: MCP_PATH,
    auth: access.verifier ? 'bearer' : 'none',
  });
  return { host: options.host, port, close };
}

type NodeMcpHandler = ReturnType<typeof toNodeHandler>;

async function handle(
  req: IncomingMessage,
  res: ServerResponse,
  access: HttpAccess,
  serveMcp: NodeMcpHandler,
): Promise<void> {
  const path = (req.url ?? '/').split('?')[0];
  if (path === HEALTH_PATH) {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('allow', 'GET, HEAD');
      sendJson(res, 405, { error: 'method not allowed' });
      return;
    }
    res.setHeader('cache-control', 'no-store');
    sendJson(res, 200, { status: 'ok' });
    return;
  }
  if (path !== MCP_PATH) {
    sendJson(res, 404, { error: `not found; MCP is served at ${MCP_PATH}` });
    return;
  }

  const host = validateHostHeader(req.headers.host, access.allowedHosts);
  if (!host.ok) return reject(res, 'host', host.message);
  const origin = validateOriginHeader(req.headers.origin, access.allowedOrigins);
  if (!origin.ok) return reject(res, 'origin', origin.message);

  // An allowed browser origin gets CORS headers, or it could not read the answers.
  if (origin.origin) {
    res.setHeader('access-control-allow-origin', origin.origin);
    res.setHeader('vary', 'Origin');
    res.setHeader(
      'access-control-expose-headers',
      'mcp-session-id, mcp-protocol-version, www-authenticate',
    );
  }
  if (req.method === 'OPTIONS') {
    res.setHeader('access-control-allow-methods', 'GET, POST, DELETE');
    const requested = req.headers['access-control-request-headers'];
    if (requested) res.setHeader('access-control-allow-headers', requested);
    res.setHeader('access-control-max-age', '600');
    res.writeHead(204).end();
    return;
  }

  if (access.verifier) {
    try {
      await verifyBearerToken(req.headers.authorization, { verifier: access.verifier });
    } catch (error) {
      log('http_rejected', {
        reason: 'unauthorized',
        message: error instanceof OAuthError ? error.message : 'token verification failed',
      });
      await sendResponse(res, bearerAuthChallengeResponse(error));
      return;
    }
  }
  await serveMcp(req, res);
}

function reject(res: ServerResponse, reason: 'host' | 'origin', message: string): void {
  log('http_rejected', { reason, message });
  sendJson(res, 403, { jsonrpc: '2.0', error: { code: -32000, message }, id: null });
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(text)),
  });
  res.end(text);
}

async function sendResponse(res: ServerResponse, response: Response): Promise<void> {
  const body = Buffer.from(await response.arrayBuffer());
  res.writeHead(response.status, {
    ...Object.fromEntries(response.headers),
    'content-length': String(body.length),
  });
  res.end(body);
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

function listEnv(raw: string | undefined): string[] {
  return (raw ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

function unique(items: string[]): string[] {
  return [...new Set(items)];
}

function isLoopbackHost(host: string): boolean {
  const name = hostnameOf(host);
  return name === 'localhost' || name === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(name);
}

function isWildcardHost(host: string): boolean {
  return host === '' || host === '0.0.0.0' || host === '::' || host === '[::]';
}

/** `Example.com:8080` → `example.com`, `::1` → `[::1]`: the form the SDK's Host check compares. */
export function hostnameOf(entry: string): string {
  const host = entry.includes('://') ? entry.slice(entry.indexOf('://') + 3) : entry;
  const bracketed =
    host.includes(':') && !host.startsWith('[') && isIpv6(host) ? `[${host}]` : host;
  try {
    return new URL(`http://${bracketed}`).hostname;
  } catch {
    return entry.toLowerCase();
  }
}

/** Origins are compared by hostname (port- and scheme-agnostic); `<scheme>://*` entries stay. */
export function originHostnameOf(entry: string): string {
  return /^[a-z][a-z0-9+.-]*:\/\/\*$/i.test(entry) ? entry.toLowerCase() : hostnameOf(entry);
}

function isIpv6(host: string): boolean {
  return (host.match(/:/g) ?? []).length >= 2;
}
