import { log } from './log.js';
import { DEFAULT_HTTP_HOST, DEFAULT_HTTP_PORT, serveHttp } from './transport-http.js';
import { serveStdio } from './transport-stdio.js';
import type { ServerInfo, ToolDefinition } from './types.js';

/**
 * Entry point of a generated server: picks the transport from the command line.
 * `--transport stdio` (the default) or `--transport http [--port 3000] [--host 127.0.0.1]`.
 */
export async function runServer(
  info: ServerInfo,
  tools: readonly ToolDefinition[],
  argv: readonly string[] = process.argv.slice(2),
): Promise<void> {
  const transport = optionValue(argv, '--transport') ?? 'stdio';
  if (transport === 'stdio') return serveStdio(info, tools);
  if (transport === 'http') {
    const rawPort = optionValue(argv, '--port') ?? String(DEFAULT_HTTP_PORT);
    const port = Number(rawPort);
    if (!/^\d+$/.test(rawPort) || port > 65535)
      return usageError(`--port must be a port number (0-65535), not "${rawPort}"`);
    const host = optionValue(argv, '--host') ?? DEFAULT_HTTP_HOST;
    try {
      await serveHttp(info, tools, { host, port, handleSignals: true });
    } catch (error) {
      log('listen_error', { host, port, message: (error as Error).message });
      process.exitCode = 1;
    }
    return;
  }
  return usageError(`unknown transport "${transport}"; use stdio or http`);
}

function usageError(message: string): void {
  log('usage_error', { message });
  process.exitCode = 2;
}

/** `--name value` or `--name=value`. */
export function optionValue(argv: readonly string[], name: string): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === name) return argv[i + 1];
    if (arg.startsWith(`${name}=`)) return arg.slice(name.length + 1);
  }
  return undefined;
}
