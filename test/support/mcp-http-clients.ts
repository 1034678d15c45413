/**
 * The real MCP clients over Streamable HTTP, behind one small interface:
 * - `v1`: `@modelcontextprotocol/sdk`'s StreamableHTTPClientTransport (2025-11-25, `initialize`);
 * - `v2-legacy`: `@modelcontextprotocol/client` without version negotiation (its default, 2025-11-25);
 * - `v2-modern`: `@modelcontextprotocol/client` pinned to 2026-07-28 (`server/discover`, per-request
 *   `_meta` envelope, no `initialize`).
 */
import { Client as ClientV2, StreamableHTTPClientTransport as HttpTransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as HttpTransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { ListedTool, ToolCallResult } from './mcp-clients.js';

export const HTTP_CLIENT_KINDS = ['v1', 'v2-legacy', 'v2-modern'] as const;
export type HttpClientKind = (typeof HTTP_CLIENT_KINDS)[number];

export interface HttpMcpClient {
  readonly kind: HttpClientKind;
  /** The protocol revision the connection speaks. */
  protocolVersion(): string | undefined;
  serverInfo(): { name: string; version: string } | undefined;
  listTools(): Promise<ListedTool[]>;
  callTool(name: string, args?: Record<string, unknown>): Promise<ToolCallResult>;
  close(): Promise<void>;
}

export interface HttpConnectOptions {
  /** Sent on every request (e.g. `{ Authorization: 'Bearer …' }`). */
  headers?: Record<string, string>;
}

const CLIENT_INFO = { name: 'mcp-gen-e2e-http', version: '0.0.0' };

export async function connectHttpClient(
  kind: HttpClientKind,
  url: string,
  options: HttpConnectOptions = {},
): Promise<HttpMcpClient> {
  const requestInit = options.headers ? { headers: options.headers } : undefined;
  if (kind === 'v1') {
    const client = new ClientV1(CLIENT_INFO);
    const transport = new HttpTransportV1(new URL(url), requestInit ? { requestInit } : {});
    await client.connect(transport);
    return {
      kind,
      // The v1 transport records the version it sends in the mcp-protocol-version header.
      protocolVersion: () => transport.protocolVersion,
      serverInfo: () => client.getServerVersion(),
      listTools: async () => (await client.listTools()).tools as ListedTool[],
      callTool: async (name, args = {}) => (await client.callTool({ name, arguments: args })) as ToolCallResult,
      close: () => client.close(),
    };
  }
  const client = new ClientV2(
    CLIENT_INFO,
    kind === 'v2-modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
  );
  const transport = new HttpTransportV2(new URL(url), requestInit ? { requestInit } : {});
  await client.connect(transport);
  return {
    kind,
    protocolVersion: () => client.getNegotiatedProtocolVersion(),
    serverInfo: () => client.getServerVersion(),
    listTools: async () => (await client.listTools()).tools as ListedTool[],
    callTool: async (name, args = {}) => (await client.callTool({ name, arguments: args })) as ToolCallResult,
    close: () => client.close(),
  };
}
