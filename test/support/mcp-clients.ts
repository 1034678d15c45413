/**
 * Connects to a generated server over stdio with the real MCP clients people use: the v1 SDK
 * (`@modelcontextprotocol/sdk`) and the v2 client package (`@modelcontextprotocol/client`), behind
 * one small interface so a test can run once per client with `describe.each(CLIENT_KINDS)`.
 */
import { Client as ClientV2 } from '@modelcontextprotocol/client';
import {
  StdioClientTransport as StdioClientTransportV2,
  getDefaultEnvironment as getDefaultEnvironmentV2,
} from '@modelcontextprotocol/client/stdio';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import {
  StdioClientTransport as StdioClientTransportV1,
  getDefaultEnvironment as getDefaultEnvironmentV1,
} from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Stream } from 'node:stream';

export const CLIENT_KINDS = ['v1', 'v2'] as const;
export type ClientKind = (typeof CLIENT_KINDS)[number];

export interface ListedTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: { type: string; properties?: Record<string, unknown>; required?: string[]; [k: string]: unknown };
  outputSchema?: { type: string; properties?: Record<string, unknown>; required?: string[]; [k: string]: unknown };
  annotations?: {
    title?: string;
    readOnlyHint?: boolean;
    destructiveHint?: boolean;
    idempotentHint?: boolean;
    openWorldHint?: boolean;
  };
}

export interface ContentBlock {
  type: string;
  text?: string;
  [key: string]: unknown;
}

export interface ToolCallResult {
  content: ContentBlock[];
  structuredContent?: unknown;
  isError?: boolean;
}

export interface McpTestClient {
  readonly kind: ClientKind;
  /** Pid of the server process the client spawned. */
  readonly pid: number | null;
  /** The server's name and version from the initialize handshake. */
  serverInfo(): { name: string; version: string } | undefined;
  listTools(): Promise<ListedTool[]>;
  callTool(name: string, args?: Record<string, unknown>, options?: CallOptions): Promise<ToolCallResult>;
  /** Everything the server wrote to stderr so far. */
  stderr(): string;
  /** Resolves once stderr contains `needle`; rejects with the stderr so far after `timeoutMs`. */
  waitForStderr(needle: string | RegExp, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** Per-call request options both clients take (they share the names). */
export interface CallOptions {
  /** Cancels the call (the client sends notifications/cancelled). */
  signal?: AbortSignal;
  /** Asks for progress (the client sends a progressToken) and receives the notifications. */
  onprogress?: (progress: { progress: number; total?: number; message?: string }) => void;
  /** Request timeout in milliseconds (the clients default to 60 s). */
  timeout?: number;
}

export interface ConnectOptions {
  /** The built server entry point, run with the current node. */
  entry: string;
  /** Added to the minimal inherited environment (PATH, HOME, ...), e.g. `{ API_BASE_URL }`. */
  env?: Record<string, string>;
  cwd?: string;
}

const CLIENT_INFO = { name: 'mcp-gen-e2e', version: '0.0.0' };

/** The environment a real MCP host would give the server: the SDK's safe defaults plus config. */
function childEnv(kind: ClientKind, extra: Record<string, string> = {}): Record<string, string> {
  const defaults = kind === 'v1' ? getDefaultEnvironmentV1() : getDefaultEnvironmentV2();
  return { ...defaults, ...extra };
}

class StderrBuffer {
  private text = '';
  private waiters: Array<() => void> = [];

  attach(stream: Stream | null): void {
    if (!stream) throw new Error('the transport did not expose the child stderr (stderr: "pipe" expected)');
    stream.on('data', (chunk: Buffer | string) => {
      this.text += typeof chunk === 'string' ? chunk : chunk.toString('utf8');
      for (const wake of this.waiters.splice(0)) wake();
    });
  }

  get value(): string {
    return this.text;
  }

  async waitFor(needle: string | RegExp, timeoutMs: number): Promise<void> {
    const found = () => (typeof needle === 'string' ? this.text.includes(needle) : needle.test(this.text));
    const deadline = Date.now() + timeoutMs;
    while (!found()) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`stderr did not contain ${String(needle)} within ${timeoutMs} ms; stderr was:\n${this.text}`);
      await new Promise<void>((resolvePromise) => {
        const timer = setTimeout(resolvePromise, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolvePromise();
        });
      });
    }
  }
}

export async function connectClient(kind: ClientKind, options: ConnectOptions): Promise<McpTestClient> {
  const params = {
    command: process.execPath,
    args: [options.entry],
    env: childEnv(kind, options.env),
    stderr: 'pipe' as const,
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
  };
  const stderr = new StderrBuffer();

  if (kind === 'v1') {
    const transport = new StdioClientTransportV1(params);
    stderr.attach(transport.stderr);
    const client = new ClientV1(CLIENT_INFO);
    await connectOrExplain(() => client.connect(transport), stderr);
    return {
      kind,
      get pid() {
        return transport.pid;
      },
      serverInfo: () => client.getServerVersion(),
      listTools: async () => (await client.listTools()).tools as ListedTool[],
      callTool: async (name, args = {}, options) =>
        (await client.callTool({ name, arguments: args }, undefined, options)) as ToolCallResult,
      stderr: () => stderr.value,
      waitForStderr: (needle, timeoutMs = 5_000) => stderr.waitFor(needle, timeoutMs),
      close: () => client.close(),
    };
  }

  const transport = new StdioClientTransportV2(params);
  stderr.attach(transport.stderr);
  const client = new ClientV2(CLIENT_INFO);
  await connectOrExplain(() => client.connect(transport), stderr);
  return {
    kind,
    get pid() {
      return transport.pid;
    },
    serverInfo: () => client.getServerVersion(),
    listTools: async () => (await client.listTools()).tools as ListedTool[],
    callTool: async (name, args = {}, options) => (await client.callTool({ name, arguments: args }, options)) as ToolCallResult,
    stderr: () => stderr.value,
    waitForStderr: (needle, timeoutMs = 5_000) => stderr.waitFor(needle, timeoutMs),
    close: () => client.close(),
  };
}

/** A failed connect is much easier to diagnose with the server's stderr attached. */
async function connectOrExplain(connect: () => Promise<void>, stderr: StderrBuffer): Promise<void> {
  try {
    await connect();
  } catch (error) {
    throw new Error(`MCP connect failed: ${(error as Error).message}\n--- server stderr ---\n${stderr.value}`, { cause: error });
  }
}

// ---------------------------------------------------------------------------------------------
// result helpers

/** The text of all text blocks, joined by newlines. */
export function textOf(result: ToolCallResult): string {
  return result.content
    .filter((block) => block.type === 'text')
    .map((block) => block.text ?? '')
    .join('\n');
}

/** The JSON-RPC error code of a rejected request, for either client's error class. */
export function errorCode(error: unknown): number | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'number' ? code : undefined;
}

/** Structured log lines (one JSON object per line) from a server's stderr; other lines are skipped. */
export function logEvents(stderrText: string): Array<Record<string, unknown>> {
  const events: Array<Record<string, unknown>> = [];
  for (const line of stderrText.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      events.push(JSON.parse(line) as Record<string, unknown>);
    } catch {
      // not a log line
    }
  }
  return events;
}
