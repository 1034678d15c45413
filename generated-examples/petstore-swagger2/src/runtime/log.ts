/**
 * Logs go to stderr only: on the stdio transport, stdout carries JSON-RPC and nothing else.
 * One JSON line per event, so logs can be parsed.
 */
export function log(event: string, fields: Record<string, unknown> = {}): void {
  process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), event, ...fields })}\n`);
}
