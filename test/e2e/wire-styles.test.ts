/**
 * Parameter serialization, byte for byte, through the real generated server:
 * fixtures/openapi-3.0/wire-styles.yaml (one operation per style case) is generated, installed and
 * built, driven by the real MCP clients, and every request is captured raw by a local upstream.
 *
 * Expected values are the OpenAPI 3.1.2 "Style Examples" table (4.8.12.6) for
 *   color = "blue" | ["blue", "black", "brown"] | { R: 100, G: 200, B: 150 }
 * and the percent-encoding rules that go with it:
 * - Path and query values are RFC 6570 expansions: every character outside RFC 3986 "unreserved"
 *   is percent-encoded inside a value (space as %20), while the style's own delimiters (`,` `.`
 *   `;` `=` `&`) stay literal: OAS 3.1.2 4.8.12.4 "Reserved characters MUST NOT be
 *   percent-encoded when being used for reserved purposes". `,;=.` are legal in a path segment
 *   (RFC 3986 pchar) and `,=&` in a query.
 * - `[`, `]`, `|` and space are not allowed in a query by RFC 3986 and MUST be percent-encoded
 *   even as deepObject / pipeDelimited / spaceDelimited delimiters (OAS 3.1.2 Appendix E.6):
 *   `color%5BR%5D=100`, `blue%7Cblack`, `blue%20black`.
 * - allowReserved (RFC 6570 reserved expansion) lets RFC 3986 reserved characters and %XX triples
 *   through, but `#[]` (not allowed in a query) and `&=+` (form-urlencoded delimiters) are still
 *   encoded, and so is a lone `%`.
 * - Headers are never percent-encoded (OAS 3.1.2 4.8.12.2.2).
 * - Cookies use RFC 6570 form percent-encoding (OAS 3.1.2 Appendix D.1), and several name=value
 *   pairs are joined with `; ` (the Cookie header's own delimiter; `&` is "always incorrect").
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepareProject, type PreparedProject } from '../support/generated-project.js';
import { connectClient, type McpTestClient } from '../support/mcp-clients.js';
import { WireUpstream, callAndRecord, headerLines, type KnownBug, type WireRequest } from '../support/wire-upstream.js';

const FIXTURE = 'fixtures/openapi-3.0/wire-styles.yaml';
const BASE_PATH = '/api';

const STRING = 'blue';
const ARRAY = ['blue', 'black', 'brown'];
const OBJECT = { R: 100, G: 200, B: 150 };

/** What the upstream saw, reduced to what these tests pin down. */
interface Wire {
  method: string;
  /** Raw path below the base path. */
  path: string;
  /** Raw query string ('' for none). */
  query: string;
  /** Every line of the header under test (only when the case names one). */
  header?: string[];
  /** Every Cookie header line. */
  cookie: string[];
  /** Body length: these are all GETs without a body. */
  bodyBytes: number;
}

interface WireCase {
  name: string;
  tool: string;
  args: Record<string, unknown>;
  /** The header this case is about. */
  headerName?: string;
  want: Partial<Wire> & { path: string };
  knownBug?: KnownBug<Partial<Wire>>;
}

function observe(request: WireRequest, headerName: string | undefined): Wire {
  if (!request.path.startsWith(`${BASE_PATH}/`)) throw new Error(`request outside the base path: ${request.target}`);
  return {
    method: request.method,
    path: request.path.slice(BASE_PATH.length),
    query: request.rawQuery,
    ...(headerName ? { header: headerLines(request, headerName) } : {}),
    cookie: headerLines(request, 'cookie'),
    bodyBytes: request.bytes.length,
  };
}

function expected(c: WireCase): Wire {
  return { method: 'GET', query: '', cookie: [], bodyBytes: 0, ...(c.headerName ? { header: [] } : {}), ...c.want };
}

// ---------------------------------------------------------------------------------------------
// cases

const VALUES = { primitive: STRING, array: ARRAY, object: OBJECT } as const;
type Kind = keyof typeof VALUES;
const KINDS = Object.keys(VALUES) as Kind[];

/** OAS 3.1.2 Style Examples, path styles: [primitive, array, object] per style and explode. */
const PATH_TABLE: Record<'simple' | 'label' | 'matrix', Record<'noexplode' | 'explode', [string, string, string]>> = {
  simple: {
    noexplode: ['blue', 'blue,black,brown', 'R,100,G,200,B,150'],
    explode: ['blue', 'blue,black,brown', 'R=100,G=200,B=150'],
  },
  label: {
    noexplode: ['.blue', '.blue,black,brown', '.R,100,G,200,B,150'],
    explode: ['.blue', '.blue.black.brown', '.R=100.G=200.B=150'],
  },
  matrix: {
    noexplode: [';color=blue', ';color=blue,black,brown', ';color=R,100,G,200,B,150'],
    explode: [';color=blue', ';color=blue;color=black;color=brown', ';R=100;G=200;B=150'],
  },
};

const PATH_CASES: WireCase[] = [
  ...Object.entries(PATH_TABLE).flatMap(([style, byExplode]) =>
    Object.entries(byExplode).flatMap(([explode, row]) =>
      KINDS.map((kind, i) => ({
        name: `path ${style} ${explode} ${kind}`,
        tool: `path_${style}_${explode}_${kind}`,
        args: { color: VALUES[kind] },
        want: { path: `/path/${style}/${explode}/${kind}/${row[i]!}` },
      })),
    ),
  ),
  // Inside a value, everything outside "unreserved" is encoded, so no value can add a segment,
  // a query or a fragment, and a delimiter inside a value stays distinguishable from the style's.
  {
    name: 'path simple primitive with reserved and non-ASCII characters',
    tool: 'path_simple_noexplode_primitive',
    args: { color: 'a/b c?d#e%f;g,h=é' },
    want: { path: '/path/simple/noexplode/primitive/a%2Fb%20c%3Fd%23e%25f%3Bg%2Ch%3D%C3%A9' },
  },
  // The empty string: matrix gives the bare name, as RFC 6570's `;` operator does.
  {
    name: 'path matrix empty string',
    tool: 'path_matrix_noexplode_primitive',
    args: { color: '' },
    want: { path: '/path/matrix/noexplode/primitive/;color' },
  },
  {
    name: 'path label array with a comma inside an item',
    tool: 'path_label_noexplode_array',
    args: { color: ['x,y', 'z'] },
    want: { path: '/path/label/noexplode/array/.x%2Cy,z' },
  },
  {
    name: 'path matrix explode object with a key and value needing encoding',
    tool: 'path_matrix_explode_object',
    args: { color: { 'a b': 'c;d' } },
    want: { path: '/path/matrix/explode/object/;a%20b=c%3Bd' },
  },
];

/** OAS 3.1.2 Style Examples, form (query): [primitive, array, object]. */
const FORM_TABLE: Record<'noexplode' | 'explode', [string, string, string]> = {
  noexplode: ['color=blue', 'color=blue,black,brown', 'color=R,100,G,200,B,150'],
  explode: ['color=blue', 'color=blue&color=black&color=brown', 'R=100&G=200&B=150'],
};

const RESERVED_VALUE = "/a/b?c=d&e+f#g[0] h,i;j:k@l!$'()*%41%";

const QUERY_CASES: WireCase[] = [
  ...Object.entries(FORM_TABLE).flatMap(([explode, row]) =>
    KINDS.map((kind, i) => ({
      name: `query form ${explode} ${kind}`,
      tool: `query_form_${explode}_${kind}`,
      args: { color: VALUES[kind] },
      want: { path: `/query/form/${explode}/${kind}`, query: row[i]! },
    })),
  ),
  {
    name: 'query spaceDelimited array',
    tool: 'query_spaceDelimited_array',
    args: { color: ARRAY },
    want: { path: '/query/spaceDelimited/array', query: 'color=blue%20black%20brown' },
  },
  {
    name: 'query spaceDelimited object',
    tool: 'query_spaceDelimited_object',
    args: { color: OBJECT },
    want: { path: '/query/spaceDelimited/object', query: 'color=R%20100%20G%20200%20B%20150' },
  },
  {
    name: 'query pipeDelimited array',
    tool: 'query_pipeDelimited_array',
    args: { color: ARRAY },
    want: { path: '/query/pipeDelimited/array', query: 'color=blue%7Cblack%7Cbrown' },
  },
  {
    name: 'query pipeDelimited object',
    tool: 'query_pipeDelimited_object',
    args: { color: OBJECT },
    want: { path: '/query/pipeDelimited/object', query: 'color=R%7C100%7CG%7C200%7CB%7C150' },
  },
  {
    name: 'query deepObject',
    tool: 'query_deepObject',
    args: { color: OBJECT },
    want: { path: '/query/deepObject', query: 'color%5BR%5D=100&color%5BG%5D=200&color%5BB%5D=150' },
  },
  // `&=+#` inside a form value would split the pair, start a new one, become a space or end the
  // query: RFC 6570 form expansion encodes them (and `/?`, reserved but legal in a query).
  {
    name: 'query form value with reserved characters',
    tool: 'query_form_explode_primitive',
    args: { color: 'a b&c=d+e/f?g#h' },
    want: { path: '/query/form/explode/primitive', query: 'color=a%20b%26c%3Dd%2Be%2Ff%3Fg%23h' },
  },
  {
    name: 'query form noexplode array with a comma inside an item',
    tool: 'query_form_noexplode_array',
    args: { color: ['a,b', 'c'] },
    want: { path: '/query/form/noexplode/array', query: 'color=a%2Cb,c' },
  },
  {
    name: 'query form empty string',
    tool: 'query_form_explode_primitive',
    args: { color: '' },
    want: { path: '/query/form/explode/primitive', query: 'color=' },
  },
  // One exception to "reserved passes through": fetch parses every URL with the WHATWG URL
  // parser, whose special-query percent-encode set turns `'` into %27 in http(s) queries. The
  // runtime's encodeReserved keeps `'` (test/runtime/request-body.test.ts); no fetch-based client can
  // put a literal `'` on the wire. Both decode to the same value.
  {
    name: 'query allowReserved next to a strictly encoded parameter',
    tool: 'query_allowReserved',
    args: { next: RESERVED_VALUE, strict: RESERVED_VALUE },
    want: {
      path: '/query/allowReserved',
      query:
        'next=/a/b?c%3Dd%26e%2Bf%23g%5B0%5D%20h,i;j:k@l!$%27()*%41%25' +
        '&strict=%2Fa%2Fb%3Fc%3Dd%26e%2Bf%23g%5B0%5D%20h%2Ci%3Bj%3Ak%40l%21%24%27%28%29%2A%2541%25',
    },
  },
  // A `content: application/json` parameter is the JSON text, percent-encoded as a form value.
  {
    name: 'query content application/json',
    tool: 'query_content_json',
    args: { coordinates: { lat: 52.5, long: -13.25, label: 'a b' } },
    want: {
      path: '/query/content',
      query: 'coordinates=%7B%22lat%22%3A52.5%2C%22long%22%3A-13.25%2C%22label%22%3A%22a%20b%22%7D',
    },
  },
  {
    name: 'query several parameters, in declaration order',
    tool: 'query_mixed',
    args: { limit: 10, color: ARRAY, filter: { R: 1, G: 2 }, tag: ['x', 'y'] },
    want: {
      path: '/query/mixed',
      query: 'limit=10&color=blue,black,brown&filter%5BR%5D=1&filter%5BG%5D=2&tag=x&tag=y',
    },
  },
  {
    name: 'query optional parameters left out',
    tool: 'query_mixed',
    args: { limit: 0 },
    want: { path: '/query/mixed', query: 'limit=0' },
  },
];

const HEADER_CASES: WireCase[] = [
  {
    name: 'header simple primitive',
    tool: 'header_simple_primitive',
    headerName: 'X-Color',
    args: { 'X-Color': STRING },
    want: { path: '/header/primitive', header: ['blue'] },
  },
  ...(['noexplode', 'explode'] as const).flatMap((explode) =>
    (['array', 'object'] as const).map((kind) => ({
      name: `header simple ${explode} ${kind}`,
      tool: `header_simple_${explode}_${kind}`,
      headerName: 'X-Color',
      args: { 'X-Color': VALUES[kind] },
      want: {
        path: `/header/${explode}/${kind}`,
        header: [PATH_TABLE.simple[explode][kind === 'array' ? 1 : 2]],
      },
    })),
  ),
  {
    name: 'header value is sent as is, not percent-encoded',
    tool: 'header_simple_primitive',
    headerName: 'X-Color',
    args: { 'X-Color': 'a b, c; q="x"%20/é' },
    // é is Latin-1 (0xE9): Node's parser reads header bytes as latin1, so it arrives as é.
    want: { path: '/header/primitive', header: ['a b, c; q="x"%20/é'] },
  },
  // A `content: application/json` header is the JSON text, unencoded.
  {
    name: 'header content application/json',
    tool: 'header_content_json',
    headerName: 'X-Filter',
    args: { 'X-Filter': { q: 'a b,c', max: 3 } },
    want: { path: '/header/content', header: ['{"q":"a b,c","max":3}'] },
  },
];

const COOKIE_CASES: WireCase[] = [
  {
    name: 'cookie form primitive',
    tool: 'cookie_form_primitive',
    args: { color: STRING },
    want: { path: '/cookie/primitive', cookie: ['color=blue'] },
  },
  {
    name: 'cookie form primitive with characters a cookie value cannot hold',
    tool: 'cookie_form_primitive',
    args: { color: 'a b;c,"d"' },
    want: { path: '/cookie/primitive', cookie: ['color=a%20b%3Bc%2C%22d%22'] },
  },
  // The table's form/false row. (RFC 6265 cookie-octet excludes `,`; OAS 3.1.2 Appendix D
  // recommends `content` for cookies for this reason. The OAS serialization is what is asserted.)
  {
    name: 'cookie form noexplode array',
    tool: 'cookie_form_noexplode_array',
    args: { color: ARRAY },
    want: { path: '/cookie/noexplode/array', cookie: ['color=blue,black,brown'] },
  },
  {
    name: 'cookie form explode array',
    tool: 'cookie_form_explode_array',
    args: { color: ARRAY },
    want: { path: '/cookie/explode/array', cookie: ['color=blue; color=black; color=brown'] },
  },
  {
    name: 'two cookie parameters in one Cookie header',
    tool: 'cookie_two',
    args: { session: 'abc123', theme: 'dark' },
    want: { path: '/cookie/two', cookie: ['session=abc123; theme=dark'] },
  },
];

const ALL_CASES = [...PATH_CASES, ...QUERY_CASES, ...HEADER_CASES, ...COOKIE_CASES];

/** The cases the v1 client also runs: one per location and a few shapes. */
const V1_SUBSET = [
  'path label explode array',
  'path matrix explode object',
  'query deepObject',
  'query spaceDelimited array',
  'query content application/json',
  'header simple explode object',
  'two cookie parameters in one Cookie header',
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
  expect(ALL_CASES.map((c) => c.name)).toEqual([...new Set(ALL_CASES.map((c) => c.name))]);
  expect(V1_SUBSET.every((n) => ALL_CASES.some((c) => c.name === n))).toBe(true);
});

describe.each([
  ['v2', ALL_CASES],
  ['v1', ALL_CASES.filter((c) => V1_SUBSET.includes(c.name))],
] as const)('parameter serialization through the %s client', (kind, cases) => {
  let client: McpTestClient;

  beforeAll(async () => {
    client = await connectClient(kind, { entry: project.entry, env: { API_BASE_URL: upstream.url(BASE_PATH) } });
  });

  afterAll(async () => {
    await client?.close();
  });

  it.each(cases)('$name', async (c) => {
    const wire = observe(await callAndRecord(client, upstream, c.tool, c.args), c.headerName);
    const want = expected(c);
    if (c.knownBug) {
      expect(wire, `known bug fixed? (${c.knownBug.why}) move "${c.name}" out of knownBug`).not.toEqual(want);
      expect(wire).toEqual({ ...want, ...c.knownBug.sends });
    } else {
      expect(wire).toEqual(want);
    }
  });
});
