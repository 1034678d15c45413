import type { ToolAnnotations } from '../../runtime/types.js';
import type { HttpMethod } from '../model/api-model.js';

const READ_ONLY: ReadonlySet<HttpMethod> = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE']);

/**
 * MCP behaviour hints from HTTP semantics (RFC 9110): safe methods are read-only, DELETE destroys,
 * PUT and DELETE are idempotent. Every tool reaches an external API, so the world is open.
 */
export function annotationsFor(method: HttpMethod, title: string | undefined): ToolAnnotations {
  const readOnly = READ_ONLY.has(method);
  return {
    ...(title ? { title } : {}),
    readOnlyHint: readOnly,
    ...(readOnly
      ? {}
      : { destructiveHint: method === 'DELETE', idempotentHint: method === 'PUT' || method === 'DELETE' }),
    openWorldHint: true,
  };
}
