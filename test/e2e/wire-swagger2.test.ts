/**
 * Swagger 2.0 collectionFormats, byte for byte, through the real generated server:
 * fixtures/openapi-2.0/wire-collection-formats.yaml (one operation per format and location) is
 * generated, installed and built, driven by the real MCP clients, and every request is captured raw.
 *
 * Swagger 2.0 defines collectionFormat for query, path, header and formData array parameters:
 * csv (the default) `a,b`, ssv `a b`, tsv `a\tb`, pipes `a|b`, and multi (query and formData only)
 * `c=a&c=b`. OpenAPI 3 maps them onto styles (csv = form/simple explode false, multi = form explode
 * true, ssv = spaceDelimited, pipes = pipeDelimited), so the URL encoding is that of
 * test/e2e/wire-styles.test.ts: the `,` delimiter stays literal, while space, tab and `|` are not
 * allowed in a URL by RFC 3986 and go as %20, %09 and %7C. Header values are not percent-encoded.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepareProject, type PreparedProject } from '../support/generated-project.js';
import { connectClient, type McpTestClient } from '../support/mcp-clients.js';
import {
  WireUpstream,
  callAndRecord,
  headerLines,
  parseMultipart,
  singleHeader,
  type KnownBug,
  type WireRequest,
} from '../support/wire-upstream.js';

const FIXTURE = 'fixtures/openapi-2.0/wire-collection-formats.yaml';
const BASE_PATH = '/api';
const COLORS = ['blue', 'black', 'brown'];

interface WireCase {
  name: string;
  tool: string;
  args: Record<string, unknown>;
  /** What is compared: a projection of the request. */
  observe: (request: WireRequest) => Promise<unknown> | unknown;
  want: unknown;
  knownBug?: KnownBug<unknown>;
}

const rawQuery = (r: WireRequest) => ({ path: r.path, query: r.rawQuery });
const rawPath = (r: WireRequest) => r.target;
const xColor = (r: WireRequest) => headerLines(r, 'x-color');
const formBody = (r: WireRequest) => ({ contentType: singleHeader(r, 'content-type'), body: r.bytes.toString('utf8') });

const QUERY_CASES: WireCase[] = [
  ['csv', 'color=blue,black,brown'],
  ['default', 'color=blue,black,brown'], // no collectionFormat: csv
  ['ssv', 'color=blue%20black%20brown'],
  ['tsv', 'color=blue%09black%09brown'],
  ['pipes', 'color=blue%7Cblack%7Cbrown'],
  ['multi', 'color=blue&color=black&color=brown'],
].map(([format, query]) => ({
  name: `query ${format}`,
  tool: `query_${format}`,
  args: { color: COLORS },
  observe: rawQuery,
  want: { path: `/api/query/${format}`, query },
}));

const PATH_CASES: WireCase[] = [
  {
    name: 'path csv',
    tool: 'path_csv',
    args: { color: COLORS },
    observe: rawPath,
    want: '/api/path/csv/blue,black,brown',
  },
  {
    name: 'path ssv',
    tool: 'path_ssv',
    args: { color: COLORS },
    observe: rawPath,
    want: '/api/path/ssv/blue%20black%20brown',
    knownBug: {
      sends: '/api/path/ssv/blue,black,brown',
      why: 'path parameters ignore ssv/tsv/pipes and always join with commas',
    },
  },
  {
    name: 'path tsv',
    tool: 'path_tsv',
    args: { color: COLORS },
    observe: rawPath,
    want: '/api/path/tsv/blue%09black%09brown',
    knownBug: {
      sends: '/api/path/tsv/blue,black,brown',
      why: 'path parameters ignore ssv/tsv/pipes and always join with commas',
    },
  },
  {
    name: 'path pipes',
    tool: 'path_pipes',
    args: { color: COLORS },
    observe: rawPath,
    want: '/api/path/pipes/blue%7Cblack%7Cbrown',
    knownBug: {
      sends: '/api/path/pipes/blue,black,brown',
      why: 'path parameters ignore ssv/tsv/pipes and always join with commas',
    },
  },
];

const HEADER_CASES: WireCase[] = [
  { name: 'header csv', tool: 'header_csv', args: { 'X-Color': COLORS }, observe: xColor, want: ['blue,black,brown'] },
  ...[
    ['ssv', 'blue black brown'],
    ['tsv', 'blue\tblack\tbrown'],
    ['pipes', 'blue|black|brown'],
  ].map(([format, value]) => ({
    name: `header ${format}`,
    tool: `header_${format}`,
    args: { 'X-Color': COLORS },
    observe: xColor,
    want: [value],
    knownBug: {
      sends: ['blue,black,brown'],
      why: 'header parameters ignore ssv/tsv/pipes and always join with commas',
    },
  })),
];

const FORM = 'application/x-www-form-urlencoded';
/** Swagger 2 loses formData collectionFormats: every array field goes as repeated keys (multi). */
const FORM_BUG = {
  sends: { contentType: FORM, body: 'name=Rex&color=blue&color=black&color=brown' },
  why: 'formData collectionFormat is dropped (no fieldEncodings are planned): every array is sent as multi',
};

const FORM_CASES: WireCase[] = [
  ['csv', 'name=Rex&color=blue,black,brown'],
  ['default', 'name=Rex&color=blue,black,brown'],
  ['ssv', 'name=Rex&color=blue%20black%20brown'],
  ['pipes', 'name=Rex&color=blue%7Cblack%7Cbrown'],
  ['multi', 'name=Rex&color=blue&color=black&color=brown'],
].map(([format, body]) => ({
  name: `formData ${format} (urlencoded)`,
  tool: `form_${format}`,
  args: { body: { name: 'Rex', color: COLORS } },
  observe: formBody,
  want: { contentType: FORM, body },
  ...(format === 'multi' ? {} : { knownBug: FORM_BUG }),
}));

const FILE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0xff, 0x0d, 0x0a]);

const MULTIPART_CASES: WireCase[] = [
  {
    name: 'formData multipart: file, caption, multi array',
    tool: 'upload',
    args: {
      body: {
        file: { data: FILE.toString('base64'), filename: 'f.png', mimeType: 'image/png' },
        caption: 'hi',
        labels: COLORS,
      },
    },
    observe: async (r) => {
      const form = await parseMultipart(r);
      const file = form.get('file') as File;
      return {
        keys: [...form.keys()],
        file: [file.name, file.type, Buffer.from(await file.arrayBuffer()).toString('hex')],
        caption: form.get('caption'),
        labels: form.getAll('labels'),
      };
    },
    want: {
      keys: ['file', 'caption', 'labels', 'labels', 'labels'],
      file: ['f.png', 'image/png', FILE.toString('hex')],
      caption: 'hi',
      labels: COLORS,
    },
  },
  {
    name: 'formData multipart: csv array is one part',
    tool: 'upload',
    args: { body: { file: { data: FILE.toString('base64') }, tags: COLORS } },
    observe: async (r) => (await parseMultipart(r)).getAll('tags'),
    want: ['blue,black,brown'],
    knownBug: { sends: COLORS, why: 'a csv formData array in multipart is sent as one part per item (multi)' },
  },
];

const ALL_CASES = [...QUERY_CASES, ...PATH_CASES, ...HEADER_CASES, ...FORM_CASES, ...MULTIPART_CASES];
const V1_SUBSET = [
  'query csv',
  'query multi',
  'query pipes',
  'path csv',
  'header csv',
  'formData multi (urlencoded)',
  'formData multipart: file, caption, multi array',
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

it('covers every operation of the fixture', () => {
  const planned = project.generated.tools.map((t) => t.name).sort();
  expect([...new Set(ALL_CASES.map((c) => c.tool))].sort()).toEqual(planned);
  expect(V1_SUBSET.every((n) => ALL_CASES.some((c) => c.name === n))).toBe(true);
});

describe.each([
  ['v2', ALL_CASES],
  ['v1', ALL_CASES.filter((c) => V1_SUBSET.includes(c.name))],
] as const)('Swagger 2.0 collectionFormats through the %s client', (kind, cases) => {
  let client: McpTestClient;

  beforeAll(async () => {
    client = await connectClient(kind, { entry: project.entry, env: { API_BASE_URL: upstream.url(BASE_PATH) } });
  });

  afterAll(async () => {
    await client?.close();
  });

  it.each(cases)('$name', async (c) => {
    const observed = await c.observe(await callAndRecord(client, upstream, c.tool, c.args));
    expect(observed).toEqual(c.want);
    // Regression guard for bugs this suite found (since fixed): never what used to be sent.
    if (c.knownBug) expect(observed, c.knownBug.why).not.toEqual(c.knownBug.sends);
  });
});
