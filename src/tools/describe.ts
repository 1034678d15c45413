import type { ApiOperation } from '../model/api-model.js';
import { successResponse } from './output-schema.js';

/** Long descriptions cost every conversation tokens; beyond this, the rest is cut. */
const MAX_DESCRIPTION = 1500;

export function toolTitle(op: ApiOperation): string | undefined {
  return op.summary?.trim().replace(/\s+/g, ' ') || undefined;
}

/** What the tool does (summary, description) and what it returns (the success response). */
export function toolDescription(op: ApiOperation): string {
  const parts: string[] = [];
  const summary = op.summary?.trim();
  const description = op.description?.trim();
  if (summary) parts.push(ensurePeriod(summary));
  if (description && description !== summary) parts.push(description);
  if (parts.length === 0) parts.push(`Calls ${op.method} ${op.path}.`);
  const returns = successResponse(op)?.description?.trim();
  if (returns) parts.push(`Returns: ${ensurePeriod(returns)}`);
  if (op.deprecated) parts.unshift('Deprecated.');
  const text = parts.join('\n\n');
  if (text.length <= MAX_DESCRIPTION) return text;
  // Cut by code points so a character outside the BMP (an emoji) is never split in half.
  return `${Array.from(text.slice(0, MAX_DESCRIPTION)).slice(0, -1).join('').trimEnd()}…`;
}

function ensurePeriod(text: string): string {
  return /[.!?:]$/.test(text) ? text : `${text}.`;
}
