/**
 * A generated server spawned directly (no MCP client in between), for tests about the process
 * itself: what exactly it writes to stdout, and that it exits when stdin closes.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';

export interface ServerProcess {
  readonly child: ChildProcessWithoutNullStreams;
  /** Raw stdout so far. */
  stdout(): string;
  stderr(): string;
  /** Writes one JSON-RPC message as a line to the server's stdin. */
  send(message: Record<string, unknown>): void;
  /** Resolves with the first stdout message (parsed) whose `id` equals `id`. */
  response(id: number | string, timeoutMs?: number): Promise<Record<string, unknown>>;
  /** Resolves with the exit code (or signal name) once the process has exited. */
  readonly exited: Promise<number | string>;
  /** SIGKILL if still running; waits for exit. */
  kill(): Promise<void>;
}

export function spawnServer(entry: string, env: Record<string, string>): ServerProcess {
  const child = spawn(process.execPath, [entry], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  const listeners = new Set<() => void>();
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    out += chunk;
    for (const listener of listeners) listener();
  });
  child.stderr.on('data', (chunk: string) => {
    err += chunk;
  });
  const exited = new Promise<number | string>((resolvePromise) => {
    child.once('exit', (code, signal) => resolvePromise(code ?? signal ?? 'unknown'));
  });

  const findResponse = (id: number | string): Record<string, unknown> | undefined => {
    for (const line of out.split('\n')) {
      if (line.trim() === '') continue;
      try {
        const message = JSON.parse(line) as Record<string, unknown>;
        if (message.id === id && ('result' in message || 'error' in message)) return message;
      } catch {
        // a partial line or not JSON: the purity assertion is the test's job
      }
    }
    return undefined;
  };

  return {
    child,
    stdout: () => out,
    stderr: () => err,
    send: (message) => {
      child.stdin.write(`${JSON.stringify(message)}\n`);
    },
    response: (id, timeoutMs = 10_000) =>
      new Promise((resolvePromise, reject) => {
        const check = () => {
          const found = findResponse(id);
          if (found === undefined) return;
          cleanup();
          resolvePromise(found);
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`no response with id ${String(id)} within ${timeoutMs} ms\nstdout:\n${out}\nstderr:\n${err}`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          listeners.delete(check);
        };
        listeners.add(check);
        check();
      }),
    exited,
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

/** Resolves with the promise's value, or with `'timeout'` after `ms`. */
export async function within<T>(promise: Promise<T>, ms: number): Promise<T | 'timeout'> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolvePromise) => {
    timer = setTimeout(() => resolvePromise('timeout'), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
