import type { ToolDefinition } from '../../runtime/types.js';
import { hints } from '../emit/view-model.js';

/** The --dry-run listing: one line per tool, columns aligned. */
export function formatToolPlan(tools: readonly ToolDefinition[]): string {
  const rows = [
    ['TOOL', 'METHOD', 'PATH', 'HINTS'],
    ...tools.map((t) => [t.name, t.http.method, t.http.path, hints(t)]),
  ];
  const widths = [0, 1, 2].map((c) => Math.max(...rows.map((r) => (r[c] ?? '').length)));
  const lines = rows.map((r) => r.map((cell, c) => (c < 3 ? cell.padEnd(widths[c] ?? 0) : cell)).join('  ').trimEnd());
  return `${lines.join('\n')}\n${tools.length} tools\n`;
}
