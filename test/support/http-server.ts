/**
 * A generated server started with `--transport http` as its own process (`--port 0` unless told
 * otherwise: the OS picks a free port, and the `server_started` log line says which), plus small
 * helpers for raw HTTP requests against it and a round-robin proxy for the statelessness test.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { logEvents } from './mcp-clients.js';

export interface HttpServerProcess {
  readonly child: ChildProcessWithoutNullStreams;
  readonly pid: number;
  /** The host and port from the `server_started` log line. */
  readonly host: string;
  readonly port: number;
  /** `http://127.0.0.1:<port>` (a loopback bind is reachable there whatever --host said). */
  readonly origin: string;
  /** `<origin>/mcp`. */
  readonly url: string;
  stderr(): string;
  /** The JSON log lines so far. */
  events(): Array<Record<string, unknown>>;
  readonly exited: Promise<number | string>;
  /** Sends `signal` (SIGKILL by default) if still running and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<number | string>;
}

export interface StartOptions {
  env?: Record<string, string>;
  /** Extra command-line arguments after `--transport http`; `--port 0` is added unless given. */
  args?: string[];
  /** How long to wait for `server_started`. */
  timeoutMs?: number;
}

/** Every server started here, so a test file's afterAll can stop whatever a failed test left. */
const running = new Set<HttpServerProcess>();

export async function startHttpServer(entry: string, options: StartOptions = {}): Promise<HttpServerProcess> {
  const args = ['--transport', 'http', ...(options.args ?? [])];
  if (!args.includes('--port') && !args.some((a) => a.startsWith('--port='))) args.push('--port', '0');
  const child = spawn(process.execPath, [entry, ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr.setEncoding('utf8');
  child.stdout.resume();
  const exited = new Promise<number | string>((resolvePromise) => {
    child.once('exit', (code, signal) => resolvePromise(code ?? signal ?? 'unknown'));
  });

  const started = await new Promise<Record<string, unknown>>((resolvePromise, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no server_started within ${options.timeoutMs ?? 15_000} ms; stderr:\n${err}`));
    }, options.timeoutMs ?? 15_000);
    const onData = (chunk: string) => {
      err += chunk;
      const event = logEvents(err).find((e) => e.event === 'server_started');
      if (event) {
        clearTimeout(timer);
        resolvePromise(event);
      }
    };
    child.stderr.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited (${String(code)}) before listening; stderr:\n${err}`));
    });
  });

  const port = started.port as number;
  const handle: HttpServerProcess = {
    child,
    pid: child.pid as number,
    host: started.host as string,
    port,
    origin: `http://127.0.0.1:${port}`,
    url: `http://127.0.0.1:${port}/mcp`,
    stderr: () => err,
    events: () => logEvents(err),
    exited,
    stop: async (signal = 'SIGKILL') => {
      running.delete(handle);
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
  running.add(handle);
  return handle;
}

/** Stops every server startHttpServer started that is still running. */
export async function stopAllHttpServers(): Promise<void> {
  await Promise.all([...running].map((server) => server.stop()));
}

/**
 * Runs a generated server to completion (for command lines that must fail): resolves with the exit
 * code and stderr.
 */
export function runToExit(
  entry: string,
  args: string[],
  env: Record<string, string> = {},
  timeoutMs = 10_000,
): Promise<{ code: number | string; stderr: string }> {
  const child = spawn(process.execPath, [entry, ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => (err += chunk));
  return new Promise((resolvePromise, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`still running after ${timeoutMs} ms; stderr:\n${err}`));
    }, timeoutMs);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      resolvePromise({ code: code ?? signal ?? 'unknown', stderr: err });
    });
  });
}

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * One HTTP request with exactly the headers given (node:http, so Host and Origin can be set to
 * anything, which fetch does not allow).
 */
export function rawRequest(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<RawResponse> {
  return new Promise((resolvePromise, reject) => {
    const req = httpRequest(url, { method: options.method ?? 'GET', headers: options.headers, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolvePromise({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

/** The headers and body of a JSON-RPC POST to an MCP endpoint (2025-era `initialize` by default). */
export function jsonRpcPost(message: Record<string, unknown> = initializeMessage(), headers: Record<string, string> = {}) {
  return {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: JSON.stringify(message),
  };
}

export function initializeMessage(id = 1): Record<string, unknown> {
  return {
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw-http', version: '0.0.0' } },
  };
}

/** The JSON-RPC messages of a response that is either JSON or an SSE stream. */
export function jsonRpcMessages(response: RawResponse): Array<Record<string, unknown>> {
  if (String(response.headers['content-type']).startsWith('text/event-stream')) {
    return response.body
      .split('\n')
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(5).trim())
      .filter((data) => data !== '')
      .map((data) => JSON.parse(data) as Record<string, unknown>);
  }
  const parsed = JSON.parse(response.body) as Record<string, unknown> | Array<Record<string, unknown>>;
  return Array.isArray(parsed) ? parsed : [parsed];
}

export interface ProxiedRequest {
  /** Index of the backend that got it. */
  backend: number;
  method: string;
  /** The JSON-RPC method of a POST body, when it has one. */
  rpcMethod?: string;
  status?: number;
}

/**
 * A plain round-robin HTTP proxy on 127.0.0.1: request n goes to backend n % backends.length, with
 * no affinity of any kind. Records which backend answered what.
 */
export class RoundRobinProxy {
  readonly requests: ProxiedRequest[] = [];
  private server: Server | undefined;
  private next = 0;
  private readonly sockets = new Set<Socket>();

  constructor(private readonly backends: Array<{ port: number }>) {}

  get url(): string {
    return `http://127.0.0.1:${(this.server?.address() as AddressInfo).port}/mcp`;
  }

  async start(): Promise<this> {
    const server = createServer((req, res) => {
      const backend = this.next++ % this.backends.length;
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        const record: ProxiedRequest = { backend, method: req.method ?? '' };
        try {
          const rpc = JSON.parse(body.toString('utf8')) as { method?: string };
          if (typeof rpc.method === 'string') record.rpcMethod = rpc.method;
        } catch {
          // no JSON body (GET, DELETE)
        }
        this.requests.push(record);
        const forward = httpRequest(
          {
            host: '127.0.0.1',
            port: this.backends[backend]!.port,
            method: req.method,
            path: req.url,
            headers: req.headers,
            agent: false,
          },
          (upstream) => {
            record.status = upstream.statusCode;
            res.writeHead(upstream.statusCode ?? 502, upstream.headers);
            upstream.pipe(res);
          },
        );
        forward.on('error', () => {
          if (!res.headersSent) res.writeHead(502);
          res.end();
        });
        forward.end(body);
      });
    });
    server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolvePromise) => server.listen(0, '127.0.0.1', () => resolvePromise()));
    this.server = server;
    return this;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    const closed = new Promise<void>((resolvePromise) => server.close(() => resolvePromise()));
    for (const socket of this.sockets) socket.destroy();
    await closed;
  }
}
