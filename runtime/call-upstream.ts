/**
 * Sends an UpstreamRequest with fetch, bounded in time and size, and reports failures as data
 * (never throws) with messages safe to show an LLM: no stack traces, no query strings, no
 * credentials.
 */
import type { UpstreamRequest } from './build-request.js';

export type UpstreamResult =
  | {
      ok: true;
      status: number;
      statusText: string;
      headers: Headers;
      contentType: string;
      body: Uint8Array;
      truncated: boolean;
    }
  | {
      ok: false;
      kind: 'timeout' | 'aborted' | 'network';
      message: string;
      /** For network failures: the system or parser error code (ECONNREFUSED, HPE_...), if any. */
      code?: string;
    };

export interface CallUpstreamOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  maxResponseBytes?: number;
  fetchImpl?: typeof fetch;
}

export const DEFAULT_MAX_RESPONSE_BYTES = 10 * 1024 * 1024;
const MAX_REDIRECTS = 5;

/**
 * One controller aborted by either the caller's signal or the timer. Done by hand rather than
 * with AbortSignal.any/timeout so that it works on every Node 20 and so we know which of the
 * two fired (the message differs) and can clear the timer as soon as the body is read.
 */
export function combineSignals(timeoutMs: number, outer: AbortSignal | undefined) {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new DOMException(`Timed out after ${timeoutMs} ms`, 'TimeoutError'));
  }, timeoutMs);
  const onAbort = () => controller.abort(outer?.reason);
  if (outer?.aborted) controller.abort(outer.reason);
  else outer?.addEventListener('abort', onAbort, { once: true });
  return {
    signal: controller.signal,
    timedOut: () => timedOut,
    dispose: () => {
      clearTimeout(timer);
      outer?.removeEventListener('abort', onAbort);
    },
  };
}

/** Read at most `max` bytes; stop (and cancel the stream) instead of buffering more. */
async function readLimited(
  response: Response,
  max: number,
): Promise<{ body: Uint8Array; truncated: boolean }> {
  if (!response.body) return { body: new Uint8Array(0), truncated: false };
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (size + value.byteLength > max) {
      chunks.push(value.subarray(0, max - size));
      size = max;
      truncated = true;
      await reader.cancel().catch(() => {});
      break;
    }
    chunks.push(value);
    size += value.byteLength;
  }
  const body = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return { body, truncated };
}

/**
 * `ECONNREFUSED`-style code or a short message from the error chain, without stack, URL or file
 * path, and the code itself when there is one.
 */
function describeCause(error: unknown): { text: string; code?: string } {
  let current: unknown = error;
  let fallback: string | undefined;
  let code: string | undefined;
  for (let depth = 0; depth < 5 && current !== undefined && current !== null; depth++) {
    const e = current as { code?: unknown; message?: unknown; cause?: unknown };
    const message =
      typeof e.message === 'string' && e.message !== 'fetch failed'
        ? (e.message.split('\n')[0] ?? '')
        : '';
    if (typeof e.code === 'string' && e.code !== '') {
      code = e.code;
      // System codes (ECONNREFUSED, ENOTFOUND, CERT_HAS_EXPIRED...) say it all; undici's own
      // codes (UND_ERR_SOCKET) and the HTTP parser's (HPE_...) do not, so keep their message.
      fallback = /^(UND_ERR|HPE_)/.test(e.code) && message ? `${message} (${e.code})` : e.code;
      break;
    }
    if (message) fallback ??= message;
    current = e.cause;
  }
  // Messages can embed a URL; keep only its origin (drops credentials, path and query).
  const text = (fallback ?? 'unknown error').replace(/\bhttps?:\/\/\S+/gi, (m) => {
    try {
      return new URL(m).origin;
    } catch {
      return '<url>';
    }
  });
  return code === undefined ? { text } : { text, code };
}

function isRedirect(status: number): boolean {
  return status === 301 || status === 302 || status === 303 || status === 307 || status === 308;
}

export async function callUpstream(
  req: UpstreamRequest,
  opts: CallUpstreamOptions,
): Promise<UpstreamResult> {
  const fetchImpl = opts.fetchImpl ?? fetch;
  const maxBytes = opts.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const combined = combineSignals(opts.timeoutMs, opts.signal);
  const origin = new URL(req.url).origin;

  let url = req.url;
  let method: string = req.method;
  let headers: Record<string, string> = { ...req.headers };
  let body = req.body;

  try {
    for (let hop = 0; ; hop++) {
      const response = await fetchImpl(url, {
        method,
        headers,
        body,
        // Redirects are followed by hand, only within the same origin, so that credentials the
        // server adds to the request are never sent to another host.
        redirect: 'manual',
        signal: combined.signal,
      });

      const location = response.headers.get('location');
      if (isRedirect(response.status) && location !== null && hop < MAX_REDIRECTS) {
        let next: URL | undefined;
        try {
          next = new URL(location, url);
        } catch {
          next = undefined;
        }
        if (next !== undefined && next.origin === origin) {
          await response.body?.cancel().catch(() => {});
          // Same rules as browsers: 303 always, and 301/302 after POST, continue as GET.
          if (
            response.status === 303 ||
            ((response.status === 301 || response.status === 302) && method === 'POST')
          ) {
            if (method !== 'HEAD') method = 'GET';
            body = undefined;
            headers = Object.fromEntries(
              Object.entries(headers).filter(([k]) => k.toLowerCase() !== 'content-type'),
            );
          }
          url = next.href;
          continue;
        }
      }

      const { body: bytes, truncated } = await readLimited(response, maxBytes);
      return {
        ok: true,
        status: response.status,
        statusText: response.statusText,
        headers: response.headers,
        contentType: response.headers.get('content-type') ?? '',
        body: bytes,
        truncated,
      };
    }
  } catch (error) {
    if (combined.timedOut()) {
      return {
        ok: false,
        kind: 'timeout',
        message: `Upstream request timed out after ${opts.timeoutMs} ms`,
      };
    }
    if (opts.signal?.aborted) {
      return { ok: false, kind: 'aborted', message: 'Upstream request was cancelled' };
    }
    const { text: cause, code } = describeCause(error);
    // Refused or unresolvable: nothing was sent. A connection lost once open, or an answer that is
    // not HTTP, may follow a delivered request, so the model must not assume it is safe to repeat
    // a non-idempotent call.
    const lost = /ECONNRESET|EPIPE|UND_ERR_SOCKET|other side closed/i.test(cause);
    const garbled = code?.startsWith('HPE_') === true;
    const message = lost
      ? `Connection to ${origin} was lost before a complete response arrived (${cause}); the API may or may not have processed the request`
      : garbled
        ? `The upstream at ${origin} answered with something that is not valid HTTP (${cause}); the API may or may not have processed the request`
        : `Could not reach ${origin}: ${cause}`;
    return code === undefined
      ? { ok: false, kind: 'network', message }
      : { ok: false, kind: 'network', message, code };
  } finally {
    combined.dispose();
  }
}
