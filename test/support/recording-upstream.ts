/**
 * A real HTTP server on 127.0.0.1 that stands in for the API a generated MCP server calls. It
 * records every request exactly as it arrived on the wire (raw path and query, headers, body) and
 * answers from a route table the test supplies.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface RecordedRequest {
  method: string;
  /** The request target's path exactly as sent (not percent-decoded, not normalized). */
  path: string;
  /** Everything after `?`, exactly as sent; `''` when there is no query. */
  rawQuery: string;
  /** The query parsed as application/x-www-form-urlencoded pairs (decoded), in order. */
  query: Array<[string, string]>;
  /** Header names are lower-case (Node's parsing). */
  headers: IncomingHttpHeaders;
  /** The raw request body (UTF-8 decoded); `''` when there is none. */
  body: string;
}

/** How a route answers. */
export type Reply =
  | {
      status?: number;
      headers?: Record<string, string>;
      /** Sent verbatim. */
      body?: string | Buffer;
      /** Wait this long before answering. */
      delayMs?: number;
    }
  | {
      /** Destroy the socket without sending any response. */
      destroySocket: true;
      delayMs?: number;
    };

export interface Route {
  /** HTTP method, or `*` for any. */
  method: string;
  /**
   * Matched against the raw path (without query). A string is a pattern in which `:name` matches
   * one raw segment (`[^/]+`) and everything else is literal; a RegExp is tested as is.
   */
  path: string | RegExp;
  reply: Reply | ((request: RecordedRequest) => Reply);
}

// ---------------------------------------------------------------------------------------------
// reply builders

export function json(value: unknown, status = 200, headers: Record<string, string> = {}): Reply {
  return { status, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(value) };
}

export function text(body: string, status = 200, contentType = 'text/plain; charset=utf-8'): Reply {
  return { status, headers: { 'content-type': contentType }, body };
}

export function empty(status = 204): Reply {
  return { status };
}

/** A body that claims to be JSON but is not. */
export function malformedJson(body = '{"id": 1, "name": "oops"', status = 200): Reply {
  return { status, headers: { 'content-type': 'application/json' }, body };
}

export function destroySocket(delayMs?: number): Reply {
  return delayMs === undefined ? { destroySocket: true } : { destroySocket: true, delayMs };
}

export function delayed(delayMs: number, reply: Reply): Reply {
  return { ...reply, delayMs };
}

// ---------------------------------------------------------------------------------------------

function compilePattern(pattern: string | RegExp): RegExp {
  if (pattern instanceof RegExp) return pattern;
  const source = pattern
    .split(/(:[A-Za-z_][A-Za-z0-9_]*)/)
    .map((part) => (part.startsWith(':') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${source}$`);
}

const NO_ROUTE: Reply = json({ error: 'the recording upstream has no route for this request' }, 599);

export class RecordingUpstream {
  /** Every request received since start() or the last reset(), in arrival order. */
  readonly requests: RecordedRequest[] = [];
  private routes: Array<{ method: string; pattern: RegExp; reply: Route['reply'] }> = [];
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private listeningPort: number | undefined;

  constructor(routes: Route[] = []) {
    this.setRoutes(routes);
  }

  /** Replaces the whole route table. */
  setRoutes(routes: Route[]): this {
    this.routes = routes.map((r) => ({ method: r.method.toUpperCase(), pattern: compilePattern(r.path), reply: r.reply }));
    return this;
  }

  /** Adds a route that takes precedence over the existing ones (e.g. one test's special case). */
  route(method: string, path: string | RegExp, reply: Route['reply']): this {
    this.routes.unshift({ method: method.toUpperCase(), pattern: compilePattern(path), reply });
    return this;
  }

  /** Forgets the recorded requests. */
  clearRequests(): this {
    this.requests.length = 0;
    return this;
  }

  get port(): number {
    if (this.listeningPort === undefined) throw new Error('RecordingUpstream is not started');
    return this.listeningPort;
  }

  /** `http://127.0.0.1:<port>` followed by `basePath` (e.g. `/v1`). */
  url(basePath = ''): string {
    return `http://127.0.0.1:${this.port}${basePath}`;
  }

  async start(): Promise<this> {
    if (this.server) throw new Error('RecordingUpstream already started');
    const server = createServer((req, res) => this.handle(req, res));
    // Keep-alive sockets from the MCP server's fetch are tracked so that stop() can end them.
    server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
    this.server = server;
    await new Promise<void>((resolvePromise, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => {
        server.off('error', reject);
        resolvePromise();
      });
    });
    this.listeningPort = (server.address() as AddressInfo).port;
    return this;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    const closed = new Promise<void>((resolvePromise) => server.close(() => resolvePromise()));
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    await closed;
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const target = req.url ?? '/';
      const q = target.indexOf('?');
      const path = q === -1 ? target : target.slice(0, q);
      const rawQuery = q === -1 ? '' : target.slice(q + 1);
      const recorded: RecordedRequest = {
        method: req.method ?? '',
        path,
        rawQuery,
        query: [...new URLSearchParams(rawQuery)],
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      this.requests.push(recorded);

      const route = this.routes.find((r) => (r.method === '*' || r.method === recorded.method) && r.pattern.test(path));
      let reply: Reply;
      try {
        reply = route === undefined ? NO_ROUTE : typeof route.reply === 'function' ? route.reply(recorded) : route.reply;
      } catch (error) {
        reply = text(`route handler threw: ${(error as Error).message}`, 598);
      }
      const send = () => this.send(req, res, reply);
      if (reply.delayMs !== undefined && reply.delayMs > 0) {
        const timer = setTimeout(() => {
          this.timers.delete(timer);
          send();
        }, reply.delayMs);
        this.timers.add(timer);
      } else {
        send();
      }
    });
  }

  private send(req: IncomingMessage, res: ServerResponse, reply: Reply): void {
    if ('destroySocket' in reply) {
      req.socket.destroy();
      return;
    }
    if (res.destroyed) return; // the client gave up while we were delaying
    const body = reply.body ?? '';
    res.writeHead(reply.status ?? 200, { ...reply.headers, 'content-length': String(Buffer.byteLength(body)) });
    res.end(body);
  }
}

/** Creates and starts a RecordingUpstream. */
export async function startRecordingUpstream(routes: Route[] = []): Promise<RecordingUpstream> {
  return new RecordingUpstream(routes).start();
}

/**
 * A port on 127.0.0.1 that nothing listens on (it was bound and released), for "upstream
 * unreachable" tests.
 */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolvePromise) => server.listen(0, '127.0.0.1', () => resolvePromise()));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolvePromise) => server.close(() => resolvePromise()));
  return port;
}
