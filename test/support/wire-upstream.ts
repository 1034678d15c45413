/**
 * A byte-exact recorder for wire-format tests. Like RecordingUpstream it is a real HTTP server on
 * 127.0.0.1, but it keeps what RecordingUpstream cannot: the request body as raw bytes (not
 * UTF-8 decoded, so binary uploads can be compared byte for byte) and the raw header lines in
 * arrival order (so a test can tell one `Cookie` header from two). Every request is answered
 * `204 No Content`, which every generated tool maps to a plain success.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface WireRequest {
  method: string;
  /** The request target exactly as sent: raw path, `?`, raw query. */
  target: string;
  /** The path part of the target, not percent-decoded, not normalized. */
  path: string;
  /** Everything after `?`, exactly as sent; `''` when there is no query. */
  rawQuery: string;
  /** Header lines as received: [name, value] in arrival order, names as sent. */
  rawHeaders: Array<[string, string]>;
  /** Node's parsed headers (lower-case names, duplicates folded). */
  headers: IncomingHttpHeaders;
  /** The body bytes exactly as received. */
  bytes: Buffer;
}

export class WireUpstream {
  readonly requests: WireRequest[] = [];
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private listeningPort: number | undefined;

  get port(): number {
    if (this.listeningPort === undefined) throw new Error('WireUpstream is not started');
    return this.listeningPort;
  }

  /** `http://127.0.0.1:<port>` followed by `basePath`. */
  url(basePath = ''): string {
    return `http://127.0.0.1:${this.port}${basePath}`;
  }

  clear(): void {
    this.requests.length = 0;
  }

  async start(): Promise<this> {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const target = req.url ?? '/';
        const q = target.indexOf('?');
        const rawHeaders: Array<[string, string]> = [];
        for (let i = 0; i < req.rawHeaders.length; i += 2) {
          rawHeaders.push([req.rawHeaders[i]!, req.rawHeaders[i + 1]!]);
        }
        this.requests.push({
          method: req.method ?? '',
          target,
          path: q === -1 ? target : target.slice(0, q),
          rawQuery: q === -1 ? '' : target.slice(q + 1),
          rawHeaders,
          headers: req.headers,
          bytes: Buffer.concat(chunks),
        });
        res.writeHead(204);
        res.end();
      });
    });
    server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
    this.server = server;
    await new Promise<void>((resolvePromise, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => {
        server.off('error', reject);
        resolvePromise();
      });
    });
    this.listeningPort = (server.address() as AddressInfo).port;
    return this;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    const closed = new Promise<void>((resolvePromise) => server.close(() => resolvePromise()));
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    await closed;
  }
}

/** The values of every header line named `name` (case-insensitive), in arrival order. */
export function headerLines(request: WireRequest, name: string): string[] {
  const lower = name.toLowerCase();
  return request.rawHeaders.filter(([n]) => n.toLowerCase() === lower).map(([, v]) => v);
}

/** The value of the one header line named `name`; throws when there are none or several. */
export function singleHeader(request: WireRequest, name: string): string {
  const lines = headerLines(request, name);
  if (lines.length !== 1) {
    throw new Error(`expected exactly one ${name} header line, got ${lines.length}: ${JSON.stringify(lines)}`);
  }
  return lines[0]!;
}

/** The parts of a multipart body as WHATWG's own parser sees them (Response.formData()). */
export async function parseMultipart(request: WireRequest): Promise<FormData> {
  const contentType = singleHeader(request, 'content-type');
  return new Response(new Uint8Array(request.bytes), { headers: { 'content-type': contentType } }).formData();
}

/**
 * The header block of every part named `name`, read from the serialized multipart text (for what
 * formData() does not keep: the Content-Type of a non-file part, the exact Content-Disposition).
 * Only the header lines are read; part bodies are compared through parseMultipart().
 */
export function partHeaders(request: WireRequest, name: string): string[][] {
  const contentType = singleHeader(request, 'content-type');
  const boundary = /boundary=("?)([^";]+)\1/i.exec(contentType)?.[2];
  if (!boundary) throw new Error(`no boundary in ${contentType}`);
  // latin1 keeps every byte as one character, so binary parts cannot break the split.
  const text = request.bytes.toString('latin1');
  const blocks: string[][] = [];
  for (const part of text.split(`--${boundary}`).slice(1, -1)) {
    const head = part.replace(/^\r\n/, '').split('\r\n\r\n', 1)[0] ?? '';
    const lines = head.split('\r\n');
    const disposition = lines.find((l) => /^content-disposition:/i.test(l)) ?? '';
    if (new RegExp(`;\\s*name="${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}"`).test(disposition)) blocks.push(lines);
  }
  return blocks;
}

/** The one request a tool call made: fails when the call errored or made no or several requests. */
export async function callAndRecord(
  client: {
    callTool(
      name: string,
      args?: Record<string, unknown>,
    ): Promise<{ isError?: boolean; content: Array<{ type: string; text?: string }> }>;
  },
  upstream: WireUpstream,
  tool: string,
  args: Record<string, unknown>,
): Promise<WireRequest> {
  upstream.clear();
  const result = await client.callTool(tool, args);
  const text = result.content.map((c) => c.text ?? `[${c.type}]`).join('\n');
  if (result.isError) throw new Error(`${tool} returned an error result: ${text}`);
  if (upstream.requests.length !== 1) {
    throw new Error(`${tool} made ${upstream.requests.length} upstream requests, expected 1 (result: ${text})`);
  }
  return upstream.requests[0]!;
}

/**
 * A case the runtime gets wrong today: what it sends (`sends`) next to what the spec requires.
 * Kept so the suite stays green, and so the suite fails as soon as the bug is fixed (the entry
 * must then be removed and the case asserted normally).
 */
export interface KnownBug<T> {
  sends: T;
  why: string;
}
