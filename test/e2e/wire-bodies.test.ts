/**
 * Request bodies, byte for byte, through the real generated server:
 * fixtures/openapi-3.0/wire-bodies.yaml (one operation per encoding) is generated, installed and
 * built, driven by the real MCP clients, and each request body is captured as raw bytes.
 *
 * - JSON bodies are the compact JSON text of the argument, in UTF-8, with the declared media type
 *   (a `*\/*` body goes as application/json).
 * - URL-encoded bodies serialize each field like a query parameter (OAS 3.1.2 4.8.15, Encoding
 *   Object style/explode/allowReserved), percent-encoded as in test/e2e/wire-styles.test.ts.
 * - Multipart bodies are checked with WHATWG's own parser (Response.formData()) for names, values,
 *   file names, types and bytes, and part header lines are read from the raw text for what
 *   formData() does not keep (the Content-Type of a non-file part).
 * - Files and binary bodies must be exactly the base64-decoded bytes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepareProject, type PreparedProject } from '../support/generated-project.js';
import { connectClient, textOf, type McpTestClient } from '../support/mcp-clients.js';
import {
  WireUpstream,
  callAndRecord,
  headerLines,
  parseMultipart,
  partHeaders,
  singleHeader,
  type WireRequest,
} from '../support/wire-upstream.js';

const FIXTURE = 'fixtures/openapi-3.0/wire-bodies.yaml';
const BASE_PATH = '/api';

/** Every byte value once: any lossy text step on the way would show. */
const ALL_BYTES = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
/** A 1x1 transparent PNG. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

const utf8 = (s: string): Buffer => Buffer.from(s, 'utf8');

/** Method, path, Content-Type and body bytes, plus the framing checks every body must pass. */
function expectBody(request: WireRequest, method: string, path: string, contentType: string, bytes: Buffer): void {
  expect(request.method).toBe(method);
  expect(request.target).toBe(`${BASE_PATH}${path}`);
  expect(singleHeader(request, 'content-type')).toBe(contentType);
  expect(
    request.bytes.equals(bytes),
    `body bytes\n got ${request.bytes.toString('hex')}\nwant ${bytes.toString('hex')}`,
  ).toBe(true);
  // Known-length bodies go with Content-Length, not chunked.
  expect(singleHeader(request, 'content-length')).toBe(String(bytes.length));
  expect(headerLines(request, 'transfer-encoding')).toEqual([]);
}

async function fileBytes(entry: FormDataEntryValue | null | undefined): Promise<Buffer> {
  expect(entry).toBeInstanceOf(File);
  return Buffer.from(await (entry as File).arrayBuffer());
}

function formPairs(request: WireRequest): Array<[string, string]> {
  return [...new URLSearchParams(request.bytes.toString('utf8'))];
}

/** Bodies the runtime gets wrong today; see the KNOWN_BUGS block at the end. */
interface KnownBodyBug {
  id: string;
  tool: string;
  args: Record<string, unknown>;
  /** The part of the request the bug is about. */
  project: (request: WireRequest) => Promise<unknown>;
  sends: unknown;
  want: unknown;
  why: string;
}

const KNOWN_BUGS: KnownBodyBug[] = [
  {
    id: 'form-object-default-json',
    tool: 'post_form',
    args: { body: { address: { city: 'Berlin', zip: '10115' } } },
    project: async (r) => formPairs(r),
    sends: [
      ['city', 'Berlin'],
      ['zip', '10115'],
    ],
    // OAS 3.0.4 / 3.1.1+ Encoding Object: style/explode defaults apply "only when contentType is
    // not being used due to one or both of explode or allowReserved being explicitly specified";
    // without them an object field takes its default contentType, application/json (3.1.2
    // 4.8.15.2.1 "URL Encoded Form with JSON Values").
    want: [['address', '{"city":"Berlin","zip":"10115"}']],
    why: 'an object field without an Encoding Object is spread into its properties instead of sent as JSON',
  },
  {
    id: 'multipart-string-contentType-ignored',
    tool: 'post_upload',
    args: { body: { notes: '# Notes' } },
    project: async (r) => partHeaders(r, 'notes'),
    sends: [['Content-Disposition: form-data; name="notes"']],
    want: [['Content-Disposition: form-data; name="notes"', 'Content-Type: text/markdown']],
    why: 'the Encoding Object contentType of a string field (text/markdown) is not sent',
  },
  {
    id: 'multipart-file-contentType-list',
    tool: 'post_upload',
    args: { body: { icon: { data: PNG.toString('base64'), filename: 'icon.png' } } },
    project: async (r) => partHeaders(r, 'icon')[0]?.find((l) => l.startsWith('Content-Type:')),
    sends: 'Content-Type: image/png, image/jpeg',
    // The Encoding Object lists acceptable types ("image/png, image/jpeg"); a part carries one.
    want: 'Content-Type: image/png',
    why: 'the comma-separated contentType list is sent verbatim as the part Content-Type',
  },
  {
    id: 'multipart-array-of-objects-one-part',
    tool: 'post_upload',
    args: { body: { addresses: [{ city: 'A' }, { city: 'B' }] } },
    project: async (r) => (await parseMultipart(r)).getAll('addresses'),
    sends: ['[{"city":"A"},{"city":"B"}]'],
    // OAS 3.1.2 4.8.15.3: array properties are repeated parts; object items default to JSON.
    want: ['{"city":"A"}', '{"city":"B"}'],
    why: 'an array of objects is sent as one JSON part instead of one part per item',
  },
];

// ---------------------------------------------------------------------------------------------

let project: PreparedProject;
let upstream: WireUpstream;

beforeAll(async () => {
  upstream = await new WireUpstream().start();
  project = await prepareProject(FIXTURE);
});

afterAll(async () => {
  await upstream?.stop();
  await project?.dispose();
});

it('plans the encodings the fixture describes', () => {
  const http = Object.fromEntries(project.generated.tools.map((t) => [t.name, t.http]));
  expect(
    Object.fromEntries(Object.entries(http).map(([name, h]) => [name, [h.bodyEncoding, h.bodyMediaType]])),
  ).toEqual({
    post_json: ['json', 'application/json'],
    patch_merge: ['json', 'application/merge-patch+json'],
    post_any: ['json', '*/*'],
    post_form: ['form', 'application/x-www-form-urlencoded'],
    post_upload: ['multipart', 'multipart/form-data'],
    post_text: ['text', 'text/plain'],
    post_octet: ['binary', 'application/octet-stream'],
    put_image: ['binary', 'image/png'],
    put_image_any: ['binary', 'image/*'],
  });
  expect(http.post_upload?.fileFields).toEqual(['file', 'attachments', 'icon']);
});

describe.each(['v2', 'v1'] as const)('request bodies through the %s client', (kind) => {
  let client: McpTestClient;
  /** The v1 client runs a subset: one case per encoding. */
  const full = kind === 'v2';
  const itFull = (name: string, fn: () => Promise<void>): void => {
    if (full) it(name, fn);
  };

  beforeAll(async () => {
    client = await connectClient(kind, { entry: project.entry, env: { API_BASE_URL: upstream.url(BASE_PATH) } });
  });

  afterAll(async () => {
    await client?.close();
  });

  const call = (tool: string, args: Record<string, unknown>) => callAndRecord(client, upstream, tool, args);

  describe('JSON', () => {
    it('sends the compact JSON text in UTF-8 as application/json', async () => {
      const body = { name: 'Rëx ☃', tags: ['a', 'b'], weight: 3.5, owner: { id: 7 }, note: null };
      const request = await call('post_json', { body });
      expectBody(
        request,
        'POST',
        '/json',
        'application/json',
        utf8('{"name":"Rëx ☃","tags":["a","b"],"weight":3.5,"owner":{"id":7},"note":null}'),
      );
    });

    itFull('keeps a +json media type as Content-Type', async () => {
      const request = await call('patch_merge', { body: { name: null, tag: 'x' } });
      expectBody(request, 'PATCH', '/merge-patch', 'application/merge-patch+json', utf8('{"name":null,"tag":"x"}'));
    });

    itFull('sends a */* body as application/json', async () => {
      const request = await call('post_any', { body: { a: 1 } });
      expectBody(request, 'POST', '/anything', 'application/json', utf8('{"a":1}'));
    });
  });

  describe('application/x-www-form-urlencoded', () => {
    it('serializes each field per its Encoding Object (default form/explode, form/false, deepObject, allowReserved)', async () => {
      const request = await call('post_form', {
        body: {
          name: 'Rex & Co+1',
          tags: ['a', 'b c'],
          ids: [1, 2, 3],
          filter: { R: 100, G: 200 },
          next: 'https://x.test/cb?a=1&b=2#top',
        },
      });
      expectBody(
        request,
        'POST',
        '/form',
        'application/x-www-form-urlencoded',
        utf8(
          // name: `&` and `+` encoded or they would split the pair / become a space;
          // tags: no Encoding Object, form + explode → the key repeats;
          // ids: style form, explode false → one pair, literal `,` delimiters;
          // filter: deepObject, brackets percent-encoded (not allowed raw, OAS 3.1.2 E.6);
          // next: allowReserved keeps `:/?` but still encodes `=&#` (form delimiters, fragment).
          'name=Rex%20%26%20Co%2B1&tags=a&tags=b%20c&ids=1,2,3&filter%5BR%5D=100&filter%5BG%5D=200' +
            '&next=https://x.test/cb?a%3D1%26b%3D2%23top',
        ),
      );
      expect(formPairs(request)).toEqual([
        ['name', 'Rex & Co+1'],
        ['tags', 'a'],
        ['tags', 'b c'],
        ['ids', '1,2,3'],
        ['filter[R]', '100'],
        ['filter[G]', '200'],
        ['next', 'https://x.test/cb?a=1&b=2#top'],
      ]);
    });
  });

  describe('multipart/form-data', () => {
    it('sends files, arrays of files and plain fields as separate parts with exact bytes', async () => {
      const attachment2 = Buffer.from([0xff, 0x00, 0xfe, 0x0d, 0x0a, 0x2d, 0x2d]); // includes CRLF--
      const request = await call('post_upload', {
        body: {
          file: { data: ALL_BYTES.toString('base64'), filename: 'all.png' },
          attachments: [
            { data: utf8('hello').toString('base64'), filename: 'a.txt', mimeType: 'text/plain' },
            { data: attachment2.toString('base64'), filename: 'b.bin' },
          ],
          description: 'Grüße "quoted"\r\nline 2',
          count: 3,
          tags: ['x', 'y'],
          meta: { a: 1 },
        },
      });
      expect(request.method).toBe('POST');
      expect(request.target).toBe('/api/upload');
      expect(singleHeader(request, 'content-type')).toMatch(/^multipart\/form-data; boundary=[^\s;]+$/);
      expect(singleHeader(request, 'content-length')).toBe(String(request.bytes.length));

      const form = await parseMultipart(request);
      expect([...form.keys()]).toEqual([
        'file',
        'attachments',
        'attachments',
        'description',
        'count',
        'tags',
        'tags',
        'meta',
      ]);

      // The file: no mimeType from the model, so the Encoding Object's contentType (image/png).
      const file = form.get('file') as File;
      expect([file.name, file.type]).toEqual(['all.png', 'image/png']);
      expect((await fileBytes(file)).equals(ALL_BYTES)).toBe(true);
      expect(partHeaders(request, 'file')).toEqual([
        ['Content-Disposition: form-data; name="file"; filename="all.png"', 'Content-Type: image/png'],
      ]);

      // One part per file, each with its own name, type and bytes.
      const [a, b] = form.getAll('attachments') as File[];
      expect([a?.name, a?.type, b?.name, b?.type]).toEqual([
        'a.txt',
        'text/plain',
        'b.bin',
        'application/octet-stream',
      ]);
      expect((await fileBytes(a)).equals(utf8('hello'))).toBe(true);
      expect((await fileBytes(b)).equals(attachment2)).toBe(true);

      // Plain fields are text parts without Content-Type or filename (RFC 7578: text/plain).
      expect(form.get('description')).toBe('Grüße "quoted"\r\nline 2');
      expect(partHeaders(request, 'description')).toEqual([['Content-Disposition: form-data; name="description"']]);
      expect(form.get('count')).toBe('3');
      expect(form.getAll('tags')).toEqual(['x', 'y']);

      // An object is one application/json part, without a filename.
      expect(form.get('meta')).toBe('{"a":1}');
      expect(partHeaders(request, 'meta')).toEqual([
        ['Content-Disposition: form-data; name="meta"', 'Content-Type: application/json'],
      ]);
    });

    // fetch serializes FormData by the HTML form-data encoding algorithm, which normalizes line
    // breaks in text fields to CRLF. RFC 7578 does not require it; it is what browsers send.
    itFull("sends a text field's bare LF as CRLF (HTML form-data line-break normalization)", async () => {
      const request = await call('post_upload', { body: { description: 'a\nb\rc' } });
      expect((await parseMultipart(request)).get('description')).toBe('a\r\nb\r\nc');
    });

    itFull('takes the file media type from the model, and from a data: URL', async () => {
      const request = await call('post_upload', {
        body: {
          file: { data: PNG.toString('base64'), filename: 'p.gif', mimeType: 'image/gif' },
          attachments: [{ data: `data:application/pdf;base64,${ALL_BYTES.toString('base64')}`, filename: 'doc.pdf' }],
        },
      });
      const form = await parseMultipart(request);
      expect((form.get('file') as File).type).toBe('image/gif');
      const pdf = form.get('attachments') as File;
      expect([pdf.name, pdf.type]).toEqual(['doc.pdf', 'application/pdf']);
      expect((await fileBytes(pdf)).equals(ALL_BYTES)).toBe(true);
    });

    itFull('names a file after its field when the model gives no filename', async () => {
      const request = await call('post_upload', { body: { file: { data: 'aGk=' } } });
      expect(partHeaders(request, 'file')).toEqual([
        ['Content-Disposition: form-data; name="file"; filename="file"', 'Content-Type: image/png'],
      ]);
    });

    itFull('rejects a file that is not base64 before anything is sent, naming the argument', async () => {
      upstream.clear();
      const result = await client.callTool('post_upload', { body: { file: { data: 'not base64!' } } });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain('Invalid arguments for post_upload');
      expect(textOf(result)).toContain('"body.file" must carry base64 data');
      expect(upstream.requests).toEqual([]);
    });
  });

  describe('text/plain', () => {
    it('sends the string as UTF-8 bytes, unchanged', async () => {
      const text = 'héllo\r\nwörld ☃ \u0000 "x"\n';
      const request = await call('post_text', { body: text });
      expectBody(request, 'POST', '/text', 'text/plain', utf8(text));
    });
  });

  describe('binary bodies', () => {
    it('sends application/octet-stream bodies as exactly the decoded bytes', async () => {
      const request = await call('post_octet', { body: { data: ALL_BYTES.toString('base64') } });
      expectBody(request, 'POST', '/octet', 'application/octet-stream', ALL_BYTES);
    });

    itFull('accepts base64url and data: URLs', async () => {
      expectBody(
        await call('post_octet', { body: { data: ALL_BYTES.toString('base64url') } }),
        'POST',
        '/octet',
        'application/octet-stream',
        ALL_BYTES,
      );
      expectBody(
        await call('post_octet', { body: { data: `data:application/zip;base64,${ALL_BYTES.toString('base64')}` } }),
        'POST',
        '/octet',
        'application/octet-stream', // the declared type wins; a data: URL's type only fills a wildcard
        ALL_BYTES,
      );
    });

    it('sends an image/png body with Content-Type image/png', async () => {
      const request = await call('put_image', { body: { data: PNG.toString('base64'), filename: 'x.png' } });
      expectBody(request, 'PUT', '/image', 'image/png', PNG);
    });

    itFull('sends an image/* body with the mimeType given, else application/octet-stream', async () => {
      expectBody(
        await call('put_image_any', { body: { data: PNG.toString('base64'), mimeType: 'image/webp' } }),
        'PUT',
        '/image-any',
        'image/webp',
        PNG,
      );
      expectBody(
        await call('put_image_any', { body: { data: PNG.toString('base64') } }),
        'PUT',
        '/image-any',
        'application/octet-stream',
        PNG,
      );
    });

    itFull('rejects data that is not base64 before anything is sent', async () => {
      upstream.clear();
      const result = await client.callTool('post_octet', { body: { data: 'not base64!' } });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain('"body" must carry base64 data');
      expect(upstream.requests).toEqual([]);
    });
  });

  /** Spec violations this suite found, since fixed: each must send what OAS 3.1.2 requires (`want`). */
  describe('fixed bugs (regression)', () => {
    it.each(full ? KNOWN_BUGS : KNOWN_BUGS.slice(0, 1))('$id: $why', async (bug) => {
      const observed = await bug.project(await call(bug.tool, bug.args));
      expect(observed).toEqual(bug.want);
      expect(observed).not.toEqual(bug.sends);
    });
  });
});
