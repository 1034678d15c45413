/**
 * Stoplight Prism (`@stoplight/prism-cli`, a devDependency) as a mock of the API a spec
 * describes, used as a request validator we did not write: started with `--errors`, Prism answers
 * 422 (with its reasons) to any request that violates the spec, and otherwise a response it
 * makes up from the spec (`--dynamic false`: from the examples, else from the schema, so runs are
 * repeatable).
 *
 * How Prism 5.14 routes: it ignores `servers` (and Swagger's `basePath`) entirely. A request is
 * matched against the spec's paths as they are written, from the root of Prism's own origin:
 * `/pets/1` matches `/pets/{id}` whatever the servers say, and `/v1/pets/1` is a 404
 * NO_PATH_MATCHED_ERROR even when the only server is `https://api.example.com/v1`. So a
 * generated server must be given `API_BASE_URL=<prism origin>` with no path. Operation- and
 * path-level servers are ignored the same way (and API_BASE_URL overrides them in our runtime).
 *
 * In front of Prism sits a transparent recording proxy (on its own port; `url` points at it), so
 * a test knows exactly what was sent and what Prism answered for every call, which Prism's own
 * log does not say (it logs neither the query string nor the body).
 *
 * Prism 5.14.2 dies (an uncaught TypeError/Error, exit code 1) on some requests instead of
 * answering: any path parameter value with a comma in it (how OpenAPI serializes path arrays and
 * objects), a label/matrix path value without its `.`/`;` prefix, a missing required header of
 * array or object type. The proxy records such a request with status 0 and Prism's last log lines
 * (the stack trace), and `ensureRunning()` starts a new Prism behind the same proxy URL.
 *
 * Prism runs in its own process group and `stop()` kills the whole group; a process `exit` hook
 * does the same if a test run dies without calling `stop()`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import {
  createServer,
  request as httpRequest,
  type IncomingHttpHeaders,
  type Server,
} from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import { join, resolve } from 'node:path';
import { REPO_ROOT } from './generated-project.js';

const PRISM_CLI = join(REPO_ROOT, 'node_modules', '@stoplight', 'prism-cli', 'dist', 'index.js');
const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 5_000;

/** One request as it reached Prism, and Prism's answer. */
export interface PrismExchange {
  method: string;
  /** Raw request target: path and query exactly as sent. */
  target: string;
  /** Header names lower-case. */
  headers: IncomingHttpHeaders;
  /** Raw request body (`latin1`, so every byte survives); `''` when there is none. */
  body: string;
  status: number;
  responseHeaders: IncomingHttpHeaders;
  /** Prism's response body (UTF-8); for a 422 the problem+json with its `validation` list. */
  responseBody: string;
  /** Prism's log lines written while this request was handled. */
  log: string;
}

export interface PrismMock {
  /** Base URL to give a generated server as API_BASE_URL (the recording proxy, no path). */
  readonly url: string;
  /** Prism's own origin, bypassing the proxy. */
  readonly directUrl: string;
  readonly pid: number;
  /** Everything Prism wrote to stdout and stderr so far. */
  logs(): string;
  /** Every request forwarded to Prism so far, in order. */
  readonly exchanges: readonly PrismExchange[];
  /** Whether the Prism process is still running (some valid requests crash it). */
  running(): boolean;
  /**
   * Starts a fresh Prism behind the same proxy URL if the previous one died (the generated
   * server keeps its API_BASE_URL). Resolves true when a restart was needed.
   */
  ensureRunning(): Promise<boolean>;
  /** How many times Prism was restarted after dying. */
  readonly restarts: number;
  /** Stops Prism (its whole process group) and the proxy. Safe to call twice. */
  stop(): Promise<void>;
}

export interface PrismOptions {
  /** Generate responses from schemas with json-schema-faker (random) instead of statically. */
  dynamic?: boolean;
  /** Prism's --verboseLevel (default `info`, which already logs each validation error). */
  verboseLevel?: 'trace' | 'debug' | 'info' | 'warn' | 'error';
}

/** A port that was free a moment ago (Prism takes a port number, not 0). */
export async function freePort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(0, '127.0.0.1', ok);
  });
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((ok) => server.close(() => ok()));
  return port;
}

/** Starts `prism mock <spec> --errors` on 127.0.0.1 and resolves once it listens. */
export async function startPrism(spec: string, options: PrismOptions = {}): Promise<PrismMock> {
  const specPath = resolve(REPO_ROOT, spec);
  return withProxy(await launch(specPath, options), () => launch(specPath, options));
}

interface RunningPrism {
  child: PrismChild;
  port: number;
}

async function launch(specPath: string, options: PrismOptions): Promise<RunningPrism> {
  let lastError: unknown;
  // The port can be taken between freePort() and Prism's listen(); try again on a new one.
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    const child = spawnPrism(specPath, port, options);
    try {
      await waitUntilListening(child, port);
      return { child, port };
    } catch (error) {
      lastError = error;
      await killGroup(child);
      if (!/EADDRINUSE/.test(String((error as Error).message))) break;
    }
  }
  throw lastError;
}

interface PrismChild {
  process: ChildProcess;
  output: () => string;
  exited: Promise<void>;
  disarm: () => void;
}

function spawnPrism(specPath: string, port: number, options: PrismOptions): PrismChild {
  const args = [
    PRISM_CLI,
    'mock',
    specPath,
    '--host',
    '127.0.0.1',
    '--port',
    String(port),
    '--errors',
    `--dynamic=${String(options.dynamic ?? false)}`,
    '--cors=false',
    `--verboseLevel=${options.verboseLevel ?? 'info'}`,
  ];
  const child = spawn(process.execPath, args, {
    cwd: REPO_ROOT,
    detached: true, // own process group, so stop() can kill everything it started
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0', NODE_OPTIONS: '' },
  });
  let output = '';
  const append = (chunk: Buffer) => {
    output += chunk.toString('utf8');
  };
  child.stdout?.on('data', append);
  child.stderr?.on('data', append);
  const exited = new Promise<void>((ok) => {
    if (child.exitCode !== null || child.signalCode !== null) ok();
    else child.once('exit', () => ok());
  });
  // Safety net: never leave a Prism behind when the test process exits without stop().
  const onExit = () => {
    try {
      if (child.pid !== undefined && child.exitCode === null && child.signalCode === null)
        process.kill(-child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  };
  process.once('exit', onExit);
  return {
    process: child,
    output: () => output,
    exited,
    disarm: () => process.off('exit', onExit),
  };
}

async function waitUntilListening(child: PrismChild, port: number): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  let gone = false;
  void child.exited.then(() => {
    gone = true;
  });
  while (!child.output().includes(`Prism is listening on http://127.0.0.1:${port}`)) {
    if (gone || Date.now() > deadline) {
      const why = gone
        ? `exited (code ${String(child.process.exitCode)}, signal ${String(child.process.signalCode)})`
        : `did not listen within ${START_TIMEOUT_MS} ms`;
      throw new Error(`prism mock ${why}; its output:\n${child.output()}`);
    }
    await new Promise((ok) => setTimeout(ok, 50));
  }
}

/**
 * SIGTERM to Prism's process group, SIGKILL if it lingers. A Prism that already exited is left
 * alone (without --multiprocess it has no children, and its group id could be reused later).
 */
async function killGroup(child: PrismChild): Promise<void> {
  const pid = child.process.pid;
  if (pid !== undefined && isRunning(child)) {
    const signalGroup = (signal: NodeJS.Signals) => {
      try {
        process.kill(-pid, signal);
      } catch {
        // the group is empty: nothing left to stop
      }
    };
    signalGroup('SIGTERM');
    const timer = setTimeout(() => signalGroup('SIGKILL'), STOP_TIMEOUT_MS);
    await child.exited;
    clearTimeout(timer);
  }
  child.disarm();
}

function isRunning(child: PrismChild): boolean {
  return child.process.exitCode === null && child.process.signalCode === null;
}

/** A pass-through proxy that records each exchange with the Prism log lines it caused. */
async function withProxy(
  first: RunningPrism,
  relaunch: () => Promise<RunningPrism>,
): Promise<PrismMock> {
  const exchanges: PrismExchange[] = [];
  const sockets = new Set<Socket>();
  let current = first;
  /** Output of Prisms that died, so logs() keeps the whole story. */
  let earlierOutput = '';
  let restarts = 0;

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const { child, port } = current;
      const logStart = child.output().length;
      const record = (
        status: number,
        responseHeaders: IncomingHttpHeaders,
        responseBody: string,
        log: string,
      ) =>
        exchanges.push({
          method: req.method ?? '',
          target: req.url ?? '',
          headers: req.headers,
          body: body.toString('latin1'),
          status,
          responseHeaders,
          responseBody,
          log,
        });
      const upstream = httpRequest(
        {
          host: '127.0.0.1',
          port,
          method: req.method,
          path: req.url,
          // rawHeaders keep names, order and repeated headers exactly as sent
          headers: req.rawHeaders,
        },
        (answer) => {
          const parts: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => parts.push(chunk));
          answer.on('end', () => {
            const responseBody = Buffer.concat(parts);
            void settleLog(child, logStart).then((log) => {
              record(answer.statusCode ?? 0, answer.headers, responseBody.toString('utf8'), ownLines(log, req.method, req.url));
              res.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
              res.end(responseBody);
            });
          });
        },
      );
      upstream.on('error', (error) => {
        // Prism died or dropped the connection: record it as status 0, with Prism's last words.
        void Promise.race([child.exited, new Promise((ok) => setTimeout(ok, 1_000))]).then(() => {
          const gone = !isRunning(child);
          const message =
            `recording proxy: Prism did not answer (${error.message})` +
            (gone
              ? `; Prism exited (code ${String(child.process.exitCode)}, signal ${String(child.process.signalCode)})`
              : '');
          const log = child.output().slice(logStart);
          record(0, {}, message, log);
          res.writeHead(502, { 'content-type': 'text/plain' });
          res.end(`${message}\n${log}`);
        });
      });
      upstream.end(body);
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(0, '127.0.0.1', ok);
  });
  const proxyPort = (server.address() as AddressInfo).port;

  let stopped: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${proxyPort}`,
    get directUrl() {
      return `http://127.0.0.1:${current.port}`;
    },
    get pid() {
      return current.child.process.pid ?? -1;
    },
    logs: () => earlierOutput + current.child.output(),
    exchanges,
    running: () => isRunning(current.child),
    ensureRunning: async () => {
      if (isRunning(current.child) || stopped) return false;
      await killGroup(current.child); // reap anything left in its group
      earlierOutput += current.child.output();
      current = await relaunch();
      restarts++;
      return true;
    },
    get restarts() {
      return restarts;
    },
    stop: () =>
      (stopped ??= (async () => {
        for (const socket of sockets) socket.destroy();
        await new Promise<void>((ok) => server.close(() => ok()));
        await killGroup(current.child);
      })()),
  };
}

/**
 * The part of a log window that belongs to this request: from Prism's "[HTTP SERVER] <method> <path>"
 * line on. Under load the previous request's last line ("Request terminated ...") can arrive after
 * its own window closed; it must not be blamed on the next request.
 */
function ownLines(log: string, method: string | undefined, url: string | undefined): string {
  const path = (url ?? '').split('?')[0] ?? '';
  const start = log.indexOf(`[HTTP SERVER] ${(method ?? '').toLowerCase()} ${path}`);
  if (start < 0) return log;
  return log.slice(log.lastIndexOf('\n', start) + 1);
}

/**
 * Prism's log lines for the request just answered. Prism logs the outcome around the time it
 * responds (sometimes just after), so wait briefly for the request's last line.
 */
async function settleLog(child: PrismChild, from: number): Promise<string> {
  const done =
    /Responding with|Request terminated|Violation:|\[VALIDATOR\] ✖|\[NEGOTIATOR\] .*(success|error)/;
  const deadline = Date.now() + 500;
  let last = -1;
  for (;;) {
    const text = child.output().slice(from);
    if (done.test(text) && text.length === last) return text;
    if (Date.now() > deadline) return text;
    last = text.length;
    await new Promise((ok) => setTimeout(ok, 15));
  }
}
