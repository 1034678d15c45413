import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { log } from './log.js';
import { createServer } from './server.js';
import type { ServerInfo, ToolDefinition } from './types.js';

/** Serves on stdio until the client closes stdin. */
export async function serveStdio(
  info: ServerInfo,
  tools: readonly ToolDefinition[],
): Promise<void> {
  const server = createServer(info, tools);
  const transport = new StdioServerTransport();
  process.stdin.on('end', () => {
    void server.close().finally(() => process.exit(0));
  });
  await server.connect(transport);
  log('server_started', { name: info.name, tools: tools.length, transport: 'stdio' });
}
