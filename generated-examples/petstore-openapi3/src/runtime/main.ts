import { log } from './log.js';
import { serveStdio } from './transport-stdio.js';
import type { ServerInfo, ToolDefinition } from './types.js';

/** Entry point of a generated server: picks the transport from the command line. */
export async function runServer(
  info: ServerInfo,
  tools: readonly ToolDefinition[],
  argv: readonly string[] = process.argv.slice(2),
): Promise<void> {
  const transport = optionValue(argv, '--transport') ?? 'stdio';
  if (transport === 'stdio') return serveStdio(info, tools);
  log('usage_error', { message: `unknown transport "${transport}"; use stdio` });
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
