// A minimal JSON-RPC 2.0 client over a child process's stdio, as MCP's stdio transport frames it:
// one JSON message per line. No SDK: the benchmark measures the servers, not a client library.
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';

export class StdioRpc {
  /**
   * Spawns `command args` with piped stdio. `startedAt` is taken just before the spawn, so the
   * time to the first response includes process start-up.
   */
  constructor(command, args, { cwd, env } = {}) {
    this.startedAt = performance.now();
    this.child = spawn(command, args, { cwd, env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    this.nextId = 1;
    this.pending = new Map();
    this.buffer = '';
    this.stderr = '';
    this.nonJsonLines = 0;
    this.exited = false;
    this.exitInfo = null;
    this.child.stdout.on('data', (chunk) => this.#onData(chunk));
    this.child.stderr.on('data', (chunk) => {
      if (this.stderr.length < 64 * 1024) this.stderr += chunk.toString('utf8');
    });
    this.child.stdin.on('error', () => {}); // EPIPE when the server died; reported via 'exit'
    this.child.on('error', (error) => this.#failAll(new Error(`spawn failed: ${error.message}`)));
    this.child.on('exit', (code, signal) => {
      this.exited = true;
      this.exitInfo = { code, signal };
      const tail = lastLine(this.stderr);
      this.#failAll(new Error(`server exited (code ${code}${signal ? `, signal ${signal}` : ''})${tail ? `: ${tail}` : ''}`));
    });
  }

  #onData(chunk) {
    const receivedAt = performance.now();
    this.buffer += chunk.toString('utf8');
    let newline;
    while ((newline = this.buffer.indexOf('\n')) >= 0) {
      const line = this.buffer.slice(0, newline);
      this.buffer = this.buffer.slice(newline + 1);
      if (line.trim() === '') continue;
      let message;
      try {
        message = JSON.parse(line);
      } catch {
        this.nonJsonLines += 1;
        continue;
      }
      const waiter = message && message.id !== undefined ? this.pending.get(message.id) : undefined;
      if (!waiter) continue; // notifications and server-to-client requests are ignored
      this.pending.delete(message.id);
      clearTimeout(waiter.timer);
      waiter.resolve({ message, bytes: Buffer.byteLength(line, 'utf8') + 1, ms: receivedAt - waiter.sentAt, receivedAt });
    }
  }

  #failAll(error) {
    for (const [id, waiter] of this.pending) {
      clearTimeout(waiter.timer);
      this.pending.delete(id);
      waiter.reject(error);
    }
  }

  /** Sends a request; resolves with { message, bytes, ms, receivedAt } (ms since the send). */
  request(method, params, timeoutMs = 60_000) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      if (this.exited) return reject(new Error(`server already exited (code ${this.exitInfo?.code})`));
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`no response to ${method} within ${timeoutMs} ms`));
      }, timeoutMs);
      const sentAt = performance.now();
      this.pending.set(id, { resolve, reject, timer, sentAt });
      this.#write({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });
    });
  }

  notify(method, params) {
    this.#write({ jsonrpc: '2.0', method, ...(params === undefined ? {} : { params }) });
  }

  #write(message) {
    if (!this.exited) this.child.stdin.write(`${JSON.stringify(message)}\n`);
  }

  /** Closes stdin (the stdio transport's shutdown signal), then kills the process group if needed. */
  async close(graceMs = 3_000) {
    if (this.exited) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.stdin.end();
    const timer = setTimeout(() => killGroup(this.child, 'SIGTERM'), graceMs);
    const hardTimer = setTimeout(() => killGroup(this.child, 'SIGKILL'), graceMs * 2);
    await exited;
    clearTimeout(timer);
    clearTimeout(hardTimer);
  }
}

export function killGroup(child, signal) {
  try {
    process.kill(-child.pid, signal); // the child was spawned detached: its pid is its group id
  } catch {
    try {
      child.kill(signal);
    } catch {
      /* already gone */
    }
  }
}

function lastLine(text) {
  const lines = text.split('\n').map((l) => l.trim()).filter(Boolean);
  return lines.length ? lines[lines.length - 1].slice(0, 300) : '';
}

/**
 * Starts an MCP stdio server and measures: spawn → initialize response, then (after
 * notifications/initialized) the tools/list latency, response size and tool count. Follows
 * nextCursor if a server paginates (latency and bytes are then summed over the pages).
 */
export async function probeMcpServer(entry, { cwd, env, protocolVersion = '2025-11-25', timeoutMs = 60_000 } = {}) {
  const rpc = new StdioRpc(process.execPath, [entry], { cwd, env });
  try {
    const init = await rpc.request(
      'initialize',
      { protocolVersion, capabilities: {}, clientInfo: { name: 'mcp-gen-bench', version: '0.0.0' } },
      timeoutMs,
    );
    if (init.message.error) throw new Error(`initialize error: ${JSON.stringify(init.message.error).slice(0, 300)}`);
    const initializeMs = init.receivedAt - rpc.startedAt;
    rpc.notify('notifications/initialized');
    let toolsListMs = 0;
    let toolsListBytes = 0;
    let toolCount = 0;
    let pages = 0;
    let cursor;
    do {
      const res = await rpc.request('tools/list', cursor === undefined ? {} : { cursor }, timeoutMs);
      if (res.message.error) throw new Error(`tools/list error: ${JSON.stringify(res.message.error).slice(0, 300)}`);
      pages += 1;
      toolsListMs += res.ms;
      toolsListBytes += res.bytes;
      toolCount += res.message.result?.tools?.length ?? 0;
      cursor = res.message.result?.nextCursor;
    } while (cursor !== undefined && pages < 1000);
    return {
      initializeMs,
      toolsListMs,
      toolsListBytes,
      toolCount,
      pages,
      protocolVersion: init.message.result?.protocolVersion,
      serverInfo: init.message.result?.serverInfo,
      nonJsonStdoutLines: rpc.nonJsonLines,
    };
  } finally {
    await rpc.close();
  }
}
