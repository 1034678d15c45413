/**
 * Upstream authentication end to end, through real parts only: fixtures/openapi-3.0/secured.yaml
 * and fixtures/openapi-2.0/secured-swagger.yaml are generated, installed and built, spawned over
 * stdio by the real v1 and v2 MCP clients with credentials in their environment, and call a real
 * API on 127.0.0.1 that checks every kind of credential (401 otherwise) and echoes back what it got,
 * plus a real OAuth 2 token endpoint and OpenID Connect discovery document on 127.0.0.1.
 *
 * Token URLs: a spec's tokenUrl and openIdConnectUrl are absolute and end up in the generated
 * server as they are (there is no variable to point them elsewhere). The fixtures therefore name a
 * placeholder authorization server, `http://auth.example.test`, and stay valid, readable specs;
 * this file starts the local authorization server first (on a port the OS picks, so nothing can
 * collide), writes a copy of each fixture with the placeholder replaced by its origin to `.tmp/e2e/`
 * and generates from that copy.
 *
 * Tests named "fixed bug" cover runtime bugs this suite found (since fixed): they state the
 * correct behaviour.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SecurityAlternative } from '../../runtime/types.js';
import { E2E_TMP_ROOT, REPO_ROOT, prepareProject, type PreparedProject } from '../support/generated-project.js';
import { CLIENT_KINDS, connectClient, logEvents, textOf, type McpTestClient, type ToolCallResult } from '../support/mcp-clients.js';
import { json, startRecordingUpstream, type RecordedRequest, type RecordingUpstream, type Route } from '../support/recording-upstream.js';

const OPENAPI3_FIXTURE = 'fixtures/openapi-3.0/secured.yaml';
const SWAGGER2_FIXTURE = 'fixtures/openapi-2.0/secured-swagger.yaml';
const PLACEHOLDER_AUTH_ORIGIN = 'http://auth.example.test';

// ---------------------------------------------------------------------------------------------
// credentials

/**
 * Every credential of the OpenAPI 3 fixture, as the server's environment holds them. Some need
 * encoding on the wire (a query value, a cookie value, a Basic password with a colon, a client
 * secret that is form-encoded before Basic): the API decodes them and compares exactly.
 */
const OAS3_ENV = {
  HEADER_KEY: 'hk-5f2a9c0e71',
  QUERY_KEY: 'qk+8d3&e7=1/x',
  COOKIE_KEY: 'ck;4b77 =v2',
  BEARER_AUTH: 'bt-9e1c0d7a3f',
  BASIC_AUTH_USERNAME: 'ada',
  BASIC_AUTH_PASSWORD: 'bp:3c8e-a1f0',
  MACHINE_AUTH_CLIENT_ID: 'reports-client',
  MACHINE_AUTH_CLIENT_SECRET: 'ms-7d:2/+e9b4',
  OIDC_AUTH_CLIENT_ID: 'oidc-client',
  OIDC_AUTH_CLIENT_SECRET: 'os-66a1b2c3d4',
  USER_AUTH: 'ut-0b5e4d2c19',
} as const;

/** Wrong values: the API (or the token endpoint) refuses every one of them. */
const OAS3_WRONG_ENV = {
  HEADER_KEY: 'wrong-hk-4411aa',
  BEARER_AUTH: 'wrong-bt-5522bb',
  BASIC_AUTH_USERNAME: 'ada',
  BASIC_AUTH_PASSWORD: 'wrong-bp-6633cc',
  MACHINE_AUTH_CLIENT_ID: 'reports-client',
  MACHINE_AUTH_CLIENT_SECRET: 'wrong-ms-7744dd',
} as const;

const SWAGGER2_ENV = {
  LEGACY_BASIC_USERNAME: 'grace',
  LEGACY_BASIC_PASSWORD: 'lbp-91ab:c7',
  LEGACY_KEY: 'lk-2c4e6a8b0d',
  LEGACY_QUERY_KEY: 'lqk/5e+7a 9c',
  LEGACY_MACHINE_CLIENT_ID: 'legacy-client',
  LEGACY_MACHINE_CLIENT_SECRET: 'lms-3d5f7b9e',
} as const;

/** Variables that hold no secret (user names, client IDs): the runtime does not redact them. */
const NOT_SECRET = /(_USERNAME|_CLIENT_ID)$/;

function secretsOf(env: Record<string, string>): string[] {
  return Object.entries(env)
    .filter(([name]) => !NOT_SECRET.test(name))
    .map(([, value]) => value);
}

// ---------------------------------------------------------------------------------------------
// the authorization server: OAuth 2 token endpoints and an OpenID Connect discovery document

interface TokenRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  contentType: string | undefined;
  form: URLSearchParams;
}

interface IssuedToken {
  endpoint: string;
  clientId: string;
  scopes: string[];
}

/** `+` is a space in form encoding, which decodeURIComponent alone does not know. */
function formDecode(text: string): string {
  return decodeURIComponent(text.replace(/\+/g, ' '));
}

class AuthServer {
  /** Every request, discovery included, in arrival order. */
  readonly requests: TokenRequest[] = [];
  readonly issued = new Map<string, IssuedToken>();
  private readonly revoked = new Set<string>();
  /** While set, token requests get their connection closed without an answer (the server is down). */
  dropTokenRequests = false;
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private count = 0;

  /** Token endpoint path → the clients (id → secret) it accepts. */
  constructor(private readonly clients: Record<string, Record<string, string>>) {}

  get origin(): string {
    return `http://127.0.0.1:${(this.server?.address() as AddressInfo).port}`;
  }

  tokenRequests(path: string): TokenRequest[] {
    return this.requests.filter((r) => r.method === 'POST' && r.path === path);
  }

  discoveryRequests(): TokenRequest[] {
    return this.requests.filter((r) => r.path === '/.well-known/openid-configuration');
  }

  /** A token this server issued at `endpoint` for `clientId` with `scope`, not revoked. */
  accepts(token: string | undefined, endpoint: string, clientId: string, scope: string): boolean {
    const issued = token === undefined ? undefined : this.issued.get(token);
    return !!issued && !this.revoked.has(token!) && issued.endpoint === endpoint && issued.clientId === clientId && issued.scopes.includes(scope);
  }

  /** Revokes every token issued so far (as an authorization server may, before they expire). */
  revokeAll(): void {
    for (const token of this.issued.keys()) this.revoked.add(token);
  }

  tokens(): string[] {
    return [...this.issued.keys()];
  }

  async start(): Promise<this> {
    const server = createServer((req, res) => this.handle(req, res));
    server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolvePromise) => server.listen(0, '127.0.0.1', () => resolvePromise()));
    this.server = server;
    return this;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    const closed = new Promise<void>((resolvePromise) => server.close(() => resolvePromise()));
    for (const socket of this.sockets) socket.destroy();
    await closed;
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0] ?? '/';
      const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
      this.requests.push({ method: req.method ?? '', path, authorization: req.headers.authorization, contentType: req.headers['content-type'], form });
      const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
        res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers });
        res.end(JSON.stringify(body));
      };

      if (req.method === 'GET' && path === '/.well-known/openid-configuration') {
        // The token endpoint is only found here: it is named nowhere in the spec.
        send(200, {
          issuer: this.origin,
          token_endpoint: `${this.origin}/oidc/token`,
          grant_types_supported: ['client_credentials'],
          token_endpoint_auth_methods_supported: ['client_secret_basic'],
        });
        return;
      }
      const clients = this.clients[path];
      if (this.dropTokenRequests && req.method === 'POST') {
        req.socket.destroy();
        return;
      }
      if (req.method !== 'POST' || !clients) {
        send(404, { error: 'not_found' });
        return;
      }
      if (!(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) {
        send(400, { error: 'invalid_request', error_description: 'form body expected' });
        return;
      }
      if (form.get('grant_type') !== 'client_credentials') {
        send(400, { error: 'unsupported_grant_type' });
        return;
      }
      // RFC 6749 §2.3.1: HTTP Basic, with the client ID and secret form-encoded first.
      const basic = /^Basic ([A-Za-z0-9+/=]+)$/.exec(req.headers.authorization ?? '');
      const decoded = basic ? Buffer.from(basic[1]!, 'base64').toString('utf8') : '';
      const colon = decoded.indexOf(':');
      const clientId = colon < 0 ? '' : formDecode(decoded.slice(0, colon));
      const secret = colon < 0 ? '' : formDecode(decoded.slice(colon + 1));
      if (!basic || colon < 0 || clients[clientId] !== secret) {
        send(401, { error: 'invalid_client' }, { 'www-authenticate': 'Basic realm="token"' });
        return;
      }
      this.count++;
      const token = `at-${this.count}-${randomBytes(6).toString('hex')}`;
      const scopes = (form.get('scope') ?? '').split(' ').filter(Boolean);
      this.issued.set(token, { endpoint: path, clientId, scopes });
      send(200, { access_token: token, token_type: 'Bearer', expires_in: 3600, scope: scopes.join(' ') });
    });
  }
}

// ---------------------------------------------------------------------------------------------
// the API: checks each route's credentials, echoes back what it got (as careless APIs do)

function header(req: RecordedRequest, name: string): string | undefined {
  const value = req.headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(', ') : value;
}

function queryValue(req: RecordedRequest, name: string): string | undefined {
  return req.query.find(([key]) => key === name)?.[1];
}

function cookies(req: RecordedRequest): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of (header(req, 'cookie') ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0) out.set(part.slice(0, eq).trim(), decodeURIComponent(part.slice(eq + 1).trim()));
  }
  return out;
}

function bearer(req: RecordedRequest): string | undefined {
  const match = /^Bearer (.+)$/.exec(header(req, 'authorization') ?? '');
  return match?.[1];
}

function basicCredentials(req: RecordedRequest): { username: string; password: string } | undefined {
  const match = /^Basic ([A-Za-z0-9+/=]+)$/.exec(header(req, 'authorization') ?? '');
  if (!match) return undefined;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? undefined : { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/** Which credential carriers a request has, e.g. `['header:X-API-Key', 'query:api_key']`. */
function carriers(req: RecordedRequest): string[] {
  const out: string[] = [];
  for (const name of ['X-API-Key', 'X-Legacy-Key']) if (header(req, name) !== undefined) out.push(`header:${name}`);
  for (const name of ['api_key', 'token']) if (queryValue(req, name) !== undefined) out.push(`query:${name}`);
  if (cookies(req).has('session_id')) out.push('cookie:session_id');
  const authorization = header(req, 'authorization');
  if (authorization !== undefined) out.push(`authorization:${authorization.split(' ')[0]}`);
  return out.sort();
}

/** What a route's check found: whether to let the call in, and the credentials it echoes. */
interface Verdict {
  ok: boolean;
  received: Record<string, string>;
}

function guarded(path: string, route: string, check: (req: RecordedRequest) => Verdict): Route {
  return {
    method: 'GET',
    path,
    reply: (req) => {
      const { ok, received } = check(req);
      return ok
        ? json({ route, received })
        : json({ error: 'unauthorized', message: 'missing or wrong credentials', received }, 401, { 'www-authenticate': 'Bearer realm="api"' });
    },
  };
}

function apiKeyIn(where: 'header' | 'query' | 'cookie', name: string, expected: string) {
  return (req: RecordedRequest): Verdict => {
    const got = where === 'header' ? header(req, name) : where === 'query' ? queryValue(req, name) : cookies(req).get(name);
    return { ok: got === expected, received: got === undefined ? {} : { [name]: got } };
  };
}

function bearerToken(accept: (token: string | undefined) => boolean) {
  return (req: RecordedRequest): Verdict => {
    const token = bearer(req);
    return { ok: accept(token), received: token === undefined ? {} : { token } };
  };
}

function basicAuth(username: string, password: string) {
  return (req: RecordedRequest): Verdict => {
    const got = basicCredentials(req);
    return { ok: got?.username === username && got.password === password, received: got ?? {} };
  };
}

function anyOf(...checks: Array<(req: RecordedRequest) => Verdict>) {
  return (req: RecordedRequest): Verdict => {
    const verdicts = checks.map((check) => check(req));
    return { ok: verdicts.some((v) => v.ok), received: Object.assign({}, ...verdicts.map((v) => v.received)) as Record<string, string> };
  };
}

function allOf(...checks: Array<(req: RecordedRequest) => Verdict>) {
  return (req: RecordedRequest): Verdict => {
    const verdicts = checks.map((check) => check(req));
    return { ok: verdicts.every((v) => v.ok), received: Object.assign({}, ...verdicts.map((v) => v.received)) as Record<string, string> };
  };
}

/** No credentials: let in. Credentials: they must be right. */
function optional(check: (req: RecordedRequest) => Verdict) {
  return (req: RecordedRequest): Verdict => (carriers(req).length === 0 ? { ok: true, received: {} } : check(req));
}

/** Lets anyone in, echoing whatever credentials came along anyway. */
function open(req: RecordedRequest): Verdict {
  const received: Record<string, string> = {};
  const authorization = header(req, 'authorization');
  if (authorization !== undefined) received.authorization = authorization;
  for (const name of ['X-API-Key', 'X-Legacy-Key']) {
    const value = header(req, name);
    if (value !== undefined) received[name] = value;
  }
  return { ok: true, received };
}

function apiRoutes(auth: AuthServer): Route[] {
  const e = OAS3_ENV;
  const s = SWAGGER2_ENV;
  const headerKey = apiKeyIn('header', 'X-API-Key', e.HEADER_KEY);
  const queryKey = apiKeyIn('query', 'api_key', e.QUERY_KEY);
  const bearerAuth = bearerToken((t) => t === e.BEARER_AUTH);
  return [
    // OpenAPI 3.0 fixture, base path /v1
    guarded('/v1/global-default', 'global-default', headerKey),
    guarded('/v1/header-key', 'header-key', headerKey),
    guarded('/v1/query-key', 'query-key', queryKey),
    guarded('/v1/cookie-key', 'cookie-key', apiKeyIn('cookie', 'session_id', e.COOKIE_KEY)),
    guarded('/v1/bearer', 'bearer', bearerAuth),
    guarded('/v1/basic', 'basic', basicAuth(e.BASIC_AUTH_USERNAME, e.BASIC_AUTH_PASSWORD)),
    guarded(
      '/v1/reports',
      'reports',
      bearerToken((t) => auth.accepts(t, '/oauth/token', e.MACHINE_AUTH_CLIENT_ID, 'reports:read')),
    ),
    guarded(
      '/v1/reports/:id',
      'report',
      bearerToken((t) => auth.accepts(t, '/oauth/token', e.MACHINE_AUTH_CLIENT_ID, 'reports:read')),
    ),
    guarded(
      '/v1/oidc',
      'oidc',
      bearerToken((t) => auth.accepts(t, '/oidc/token', e.OIDC_AUTH_CLIENT_ID, 'openid')),
    ),
    guarded(
      '/v1/me',
      'me',
      bearerToken((t) => t === e.USER_AUTH),
    ),
    guarded('/v1/either', 'either', anyOf(headerKey, bearerAuth)),
    guarded('/v1/both', 'both', allOf(headerKey, queryKey)),
    guarded('/v1/optional', 'optional', optional(bearerAuth)),
    guarded('/v1/public', 'public', open),
    // Swagger 2.0 fixture, base path /v2
    guarded('/v2/basic', 'legacy-basic', basicAuth(s.LEGACY_BASIC_USERNAME, s.LEGACY_BASIC_PASSWORD)),
    guarded('/v2/key', 'legacy-key', apiKeyIn('header', 'X-Legacy-Key', s.LEGACY_KEY)),
    guarded('/v2/query-key', 'legacy-query-key', apiKeyIn('query', 'token', s.LEGACY_QUERY_KEY)),
    guarded(
      '/v2/inventory',
      'legacy-inventory',
      bearerToken((t) => auth.accepts(t, '/oauth/token', s.LEGACY_MACHINE_CLIENT_ID, 'inventory:read')),
    ),
    guarded('/v2/public', 'legacy-public', open),
  ];
}

// ---------------------------------------------------------------------------------------------
// setup

let auth: AuthServer;
let upstream: RecordingUpstream;
let specDir: string;
let oas3: PreparedProject;
let swagger2: PreparedProject;

/** A copy of `fixture` under `specDir/<version folder>/` with the placeholder authorization server replaced. */
async function localCopy(fixture: string): Promise<string> {
  const text = await readFile(join(REPO_ROOT, fixture), 'utf8');
  if (!text.includes(PLACEHOLDER_AUTH_ORIGIN)) throw new Error(`${fixture} does not name ${PLACEHOLDER_AUTH_ORIGIN}`);
  const dir = join(specDir, basename(join(REPO_ROOT, fixture, '..')));
  await mkdir(dir, { recursive: true });
  const copy = join(dir, basename(fixture));
  await writeFile(copy, text.replaceAll(PLACEHOLDER_AUTH_ORIGIN, auth.origin));
  return copy;
}

beforeAll(async () => {
  auth = await new AuthServer({
    '/oauth/token': {
      [OAS3_ENV.MACHINE_AUTH_CLIENT_ID]: OAS3_ENV.MACHINE_AUTH_CLIENT_SECRET,
      [SWAGGER2_ENV.LEGACY_MACHINE_CLIENT_ID]: SWAGGER2_ENV.LEGACY_MACHINE_CLIENT_SECRET,
    },
    '/oidc/token': { [OAS3_ENV.OIDC_AUTH_CLIENT_ID]: OAS3_ENV.OIDC_AUTH_CLIENT_SECRET },
  }).start();
  upstream = await startRecordingUpstream(apiRoutes(auth));
  await mkdir(E2E_TMP_ROOT, { recursive: true });
  specDir = await mkdtemp(join(E2E_TMP_ROOT, 'auth-specs-'));
  const [oas3Spec, swagger2Spec] = await Promise.all([localCopy(OPENAPI3_FIXTURE), localCopy(SWAGGER2_FIXTURE)]);
  [oas3, swagger2] = await Promise.all([prepareProject(oas3Spec, 'secured-api-mcp'), prepareProject(swagger2Spec, 'secured-swagger-mcp')]);
});

afterAll(async () => {
  await upstream?.stop();
  await auth?.stop();
  await oas3?.dispose();
  await swagger2?.dispose();
  if (specDir && process.env.MCP_GEN_KEEP_E2E !== '1') await rm(specDir, { recursive: true, force: true });
});

// ---------------------------------------------------------------------------------------------
// assertions

/** Fails naming the secret's variable (not printing the secret) when `text` contains one. */
function expectNoSecrets(text: string, secrets: readonly string[], where: string): void {
  const found = secrets.filter((secret) => text.includes(secret));
  expect(found.length, `${where} contains ${found.length} secret(s): ${found.map((f) => `${f.slice(0, 3)}…`).join(', ')}`).toBe(0);
}

/** Every form a secret travels in: as is, percent-encoded, form-encoded, and Basic's base64. */
function wireForms(env: Record<string, string>, basicPairs: Array<[string, string]>): string[] {
  const forms = secretsOf(env).flatMap((s) => [s, encodeURIComponent(s), new URLSearchParams({ s }).toString().slice(2)]);
  for (const [user, password] of basicPairs) if (env[user] && env[password]) forms.push(Buffer.from(`${env[user]}:${env[password]}`).toString('base64'));
  return [...new Set(forms)];
}

/** A success whose echoed credentials all came back as [redacted]. */
function expectRedactedSuccess(result: ToolCallResult, secrets: readonly string[], expectEcho = true): void {
  expect(result.isError, textOf(result)).toBeFalsy();
  const received = (result.structuredContent as { received?: Record<string, string> } | undefined)?.received ?? {};
  if (expectEcho) expect(Object.keys(received).length, 'the API echoed no credential').toBeGreaterThan(0);
  for (const [key, value] of Object.entries(received)) if (key !== 'username') expect(value, `received.${key}`).toBe('[redacted]');
  if (expectEcho) expect(textOf(result)).toContain('[redacted]');
  expectNoSecrets(JSON.stringify(result), secrets, 'the result');
}

function singleRequest(): RecordedRequest {
  expect(upstream.requests.map((r) => `${r.method} ${r.path}`)).toHaveLength(1);
  return upstream.requests[0]!;
}

/** The stderr of a server: JSON log lines only, at least one per call, and no secret in any form. */
function expectCleanStderr(client: McpTestClient, forms: readonly string[]): void {
  const stderr = client.stderr();
  const lines = stderr.split('\n').filter((l) => l.trim() !== '');
  expect(lines.length).toBeGreaterThan(0);
  expect(logEvents(stderr)).toHaveLength(lines.length);
  expect(logEvents(stderr).filter((e) => e.event === 'tool_call').length).toBeGreaterThan(0);
  expectNoSecrets(stderr, forms, 'stderr');
}

// ---------------------------------------------------------------------------------------------
// the plan and the docs

describe('generation', () => {
  it('plans each operation with the requirements of the spec (global default, alternatives, combined, optional, public)', () => {
    const security = (name: string): SecurityAlternative[] | undefined => oas3.generated.tools.find((t) => t.name === name)?.http.security;
    expect(security('getGlobalDefault')).toEqual([[{ scheme: 'HeaderKey', scopes: [] }]]);
    expect(security('listReports')).toEqual([[{ scheme: 'MachineAuth', scopes: ['reports:read'] }]]);
    expect(security('getEither')).toEqual([[{ scheme: 'HeaderKey', scopes: [] }], [{ scheme: 'BearerAuth', scopes: [] }]]);
    expect(security('getBoth')).toEqual([
      [
        { scheme: 'HeaderKey', scopes: [] },
        { scheme: 'QueryKey', scopes: [] },
      ],
    ]);
    expect(security('getOptional')).toEqual([[], [{ scheme: 'BearerAuth', scopes: [] }]]);
    expect(security('getPublic')).toBeUndefined();
    const legacy = (name: string) => swagger2.generated.tools.find((t) => t.name === name)?.http.security;
    expect(legacy('legacyKey')).toEqual([[{ scheme: 'LegacyKey', scopes: [] }]]);
    expect(legacy('legacyPublic')).toBeUndefined();
  });

  it.each([
    ['OpenAPI 3.0', () => oas3, [...Object.keys(OAS3_ENV), 'MACHINE_AUTH', 'MACHINE_AUTH_SCOPES', 'OIDC_AUTH', 'OIDC_AUTH_SCOPES']],
    ['Swagger 2.0', () => swagger2, [...Object.keys(SWAGGER2_ENV), 'LEGACY_MACHINE', 'LEGACY_MACHINE_SCOPES']],
  ] as const)('%s: the generated README and .env.example list every credential variable', async (_, project, variables) => {
    const readme = await readFile(join(project().dir, 'README.md'), 'utf8');
    const envExample = await readFile(join(project().dir, '.env.example'), 'utf8');
    const credentials = readme.slice(readme.indexOf('## Credentials'), readme.indexOf('\n## ', readme.indexOf('## Credentials') + 1));
    expect(credentials).toMatch(/^\| Variable +\| Meaning +\|$/m);
    const listed = [...credentials.matchAll(/^\| `([A-Z0-9_]+)` +\|/gm)].map((m) => m[1]);
    expect([...listed].sort()).toEqual([...variables].sort());
    for (const variable of variables) expect(envExample, variable).toMatch(new RegExp(`^# ${variable}=$`, 'm'));
  });

  it('the generated server calls the local authorization server, not the placeholder', async () => {
    const tools = await readFile(join(oas3.dir, 'src', 'tools.ts'), 'utf8');
    expect(tools).not.toContain('auth.example.test');
    expect(tools).toContain(`${auth.origin}/oauth/token`);
    expect(tools).toContain(`${auth.origin}/.well-known/openid-configuration`);
  });
});

// ---------------------------------------------------------------------------------------------
// OpenAPI 3.0

interface SuccessCase {
  tool: string;
  args?: Record<string, unknown>;
  path: string;
  /** The credential carriers the API must see, and no others. */
  carriers: string[];
}

const OAS3_SUCCESS: SuccessCase[] = [
  { tool: 'getGlobalDefault', path: '/v1/global-default', carriers: ['header:X-API-Key'] },
  { tool: 'getHeaderKey', path: '/v1/header-key', carriers: ['header:X-API-Key'] },
  { tool: 'getQueryKey', args: { q: 'hello' }, path: '/v1/query-key', carriers: ['query:api_key'] },
  { tool: 'getCookieKey', args: { theme: 'dark' }, path: '/v1/cookie-key', carriers: ['cookie:session_id'] },
  { tool: 'getBearer', path: '/v1/bearer', carriers: ['authorization:Bearer'] },
  { tool: 'getBasic', path: '/v1/basic', carriers: ['authorization:Basic'] },
  { tool: 'getMe', path: '/v1/me', carriers: ['authorization:Bearer'] },
  // The first alternative whose variables are set: the header key (both are set).
  { tool: 'getEither', path: '/v1/either', carriers: ['header:X-API-Key'] },
  { tool: 'getBoth', path: '/v1/both', carriers: ['header:X-API-Key', 'query:api_key'].sort() },
];

const OAS3_MISSING: Array<{ tool: string; args?: Record<string, unknown>; variables: string[] }> = [
  { tool: 'getGlobalDefault', variables: ['HEADER_KEY'] },
  { tool: 'getHeaderKey', variables: ['HEADER_KEY'] },
  { tool: 'getQueryKey', variables: ['QUERY_KEY'] },
  { tool: 'getCookieKey', variables: ['COOKIE_KEY'] },
  { tool: 'getBearer', variables: ['BEARER_AUTH'] },
  { tool: 'getBasic', variables: ['BASIC_AUTH_USERNAME', 'BASIC_AUTH_PASSWORD'] },
  { tool: 'listReports', variables: ['MACHINE_AUTH_CLIENT_ID', 'MACHINE_AUTH_CLIENT_SECRET'] },
  { tool: 'getReport', args: { reportId: 'r1' }, variables: ['MACHINE_AUTH_CLIENT_ID', 'MACHINE_AUTH_CLIENT_SECRET'] },
  { tool: 'getOidc', variables: ['OIDC_AUTH_CLIENT_ID', 'OIDC_AUTH_CLIENT_SECRET'] },
  { tool: 'getMe', variables: ['USER_AUTH'] },
  { tool: 'getEither', variables: ['HEADER_KEY', 'BEARER_AUTH'] },
  { tool: 'getBoth', variables: ['HEADER_KEY', 'QUERY_KEY'] },
];

function variablePattern(variable: string): RegExp {
  return new RegExp(`(^|[^A-Z0-9_])${variable}($|[^A-Z0-9_])`);
}

describe.each(CLIENT_KINDS)('secured API (OpenAPI 3.0) through the %s client', (kind) => {
  describe('with every credential set', () => {
    let client: McpTestClient;
    const secrets = () => [...secretsOf(OAS3_ENV), ...auth.tokens()];

    beforeAll(async () => {
      client = await connectClient(kind, { entry: oas3.entry, env: { API_BASE_URL: upstream.url('/v1'), ...OAS3_ENV } });
      await client.listTools();
    });

    afterAll(async () => {
      await client?.close();
    });

    it.each(OAS3_SUCCESS)(
      '$tool: the API gets $carriers and nothing else; the echoed credential is [redacted]',
      async ({ tool, args, path, carriers: expected }) => {
        upstream.clearRequests();
        const result = await client.callTool(tool, args ?? {});
        expectRedactedSuccess(result, secrets());
        const req = singleRequest();
        expect(req.path).toBe(path);
        expect(carriers(req)).toEqual(expected);
      },
    );

    it('query API key: the value is percent-encoded and the operation parameters are kept', async () => {
      upstream.clearRequests();
      const result = await client.callTool('getQueryKey', { q: 'a b', ids: ['x', 'y'] });
      expectRedactedSuccess(result, secrets());
      const req = singleRequest();
      expect(queryValue(req, 'api_key')).toBe(OAS3_ENV.QUERY_KEY);
      expect(queryValue(req, 'q')).toBe('a b');
      expect(queryValue(req, 'ids')).toBe('x,y');
    });

    // runtime/auth.ts applyScheme (apiKey in query) appends with url.searchParams, which
    // re-serializes the whole query the request builder made: `,` → %2C, `|` → %7C, `%20` → `+`,
    // allowReserved characters encoded. Here the delimiter comma and an escaped comma inside an
    // item become the same bytes, so ['a,b', 'c'] arrives as three items.
    it('fixed bug: query API key: the query the request builder serialized arrives byte for byte', async () => {
      upstream.clearRequests();
      const result = await client.callTool('getQueryKey', { ids: ['a,b', 'c'] });
      expect(result.isError, textOf(result)).toBeFalsy();
      expect(singleRequest().rawQuery).toMatch(/^ids=a%2Cb,c&api_key=/);
    });

    it('cookie API key: joins the cookie parameter in one Cookie header, encoded', async () => {
      upstream.clearRequests();
      const result = await client.callTool('getCookieKey', { theme: 'dark' });
      expectRedactedSuccess(result, secrets());
      const req = singleRequest();
      expect(req.headers.cookie).toBe(`theme=dark; session_id=${encodeURIComponent(OAS3_ENV.COOKIE_KEY)}`);
      expect(cookies(req).get('session_id')).toBe(OAS3_ENV.COOKIE_KEY);
    });

    it('HTTP Basic: user name and password (with a colon) as base64', async () => {
      upstream.clearRequests();
      await client.callTool('getBasic');
      expect(header(singleRequest(), 'authorization')).toBe(
        `Basic ${Buffer.from(`${OAS3_ENV.BASIC_AUTH_USERNAME}:${OAS3_ENV.BASIC_AUTH_PASSWORD}`).toString('base64')}`,
      );
    });

    it('OAuth 2 client credentials: one token for several calls of two tools, client credentials in HTTP Basic, the scopes asked for', async () => {
      const before = auth.tokenRequests('/oauth/token').length;
      upstream.clearRequests();
      for (const [tool, args] of [
        ['listReports', {}],
        ['getReport', { reportId: 'r1' }],
        ['listReports', {}],
        ['getReport', { reportId: 'r2' }],
      ] as const) {
        expectRedactedSuccess(await client.callTool(tool, args), secrets());
      }
      const tokenRequests = auth.tokenRequests('/oauth/token').slice(before);
      expect(tokenRequests).toHaveLength(1);
      const request = tokenRequests[0]!;
      const id = encodeURIComponent(OAS3_ENV.MACHINE_AUTH_CLIENT_ID);
      const secret = encodeURIComponent(OAS3_ENV.MACHINE_AUTH_CLIENT_SECRET);
      expect(request.authorization).toBe(`Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`);
      expect(request.contentType).toMatch(/^application\/x-www-form-urlencoded/);
      expect(request.form.get('grant_type')).toBe('client_credentials');
      expect(request.form.get('scope')).toBe('reports:read');
      // The secret travels in the header only, never in the body.
      expect(request.form.has('client_secret')).toBe(false);
      const tokens = upstream.requests.map((r) => bearer(r));
      expect(upstream.requests.map((r) => r.path)).toEqual(['/v1/reports', '/v1/reports/r1', '/v1/reports', '/v1/reports/r2']);
      expect(new Set(tokens).size).toBe(1);
      expect(auth.issued.get(tokens[0]!)).toMatchObject({ endpoint: '/oauth/token', clientId: OAS3_ENV.MACHINE_AUTH_CLIENT_ID });
    });

    it('OpenID Connect: discovery once, then client credentials at the discovered token endpoint, once', async () => {
      const discoveries = auth.discoveryRequests().length;
      const before = auth.tokenRequests('/oidc/token').length;
      upstream.clearRequests();
      expectRedactedSuccess(await client.callTool('getOidc'), secrets());
      expectRedactedSuccess(await client.callTool('getOidc'), secrets());
      expect(auth.discoveryRequests().length - discoveries).toBe(1);
      const tokenRequests = auth.tokenRequests('/oidc/token').slice(before);
      expect(tokenRequests).toHaveLength(1);
      expect(tokenRequests[0]!.authorization).toBe(
        `Basic ${Buffer.from(`${OAS3_ENV.OIDC_AUTH_CLIENT_ID}:${OAS3_ENV.OIDC_AUTH_CLIENT_SECRET}`).toString('base64')}`,
      );
      expect(tokenRequests[0]!.form.get('scope')).toBe('openid reports:read');
      expect(upstream.requests).toHaveLength(2);
      expect(auth.accepts(bearer(upstream.requests[0]!), '/oidc/token', OAS3_ENV.OIDC_AUTH_CLIENT_ID, 'openid')).toBe(true);
    });

    it('a token the authorization server revoked: the API says 401, and the next call fetches a fresh one', async () => {
      const before = auth.tokenRequests('/oauth/token').length;
      auth.revokeAll();
      const rejected = await client.callTool('listReports');
      expect(rejected.isError).toBe(true);
      expect(textOf(rejected)).toContain('401');
      expect(auth.tokenRequests('/oauth/token').length - before).toBe(0);
      expectRedactedSuccess(await client.callTool('listReports'), secrets());
      expect(auth.tokenRequests('/oauth/token').length - before).toBe(1);
    });

    // runtime/execute-tool.ts runCall: on a 401 it calls ctx.auth.tokens.invalidate() and returns;
    // scrubSecrets then asks tokens.fetchedTokens(), which no longer has the rejected token, so an
    // API that echoes it in the 401 hands it to the model.
    it('fixed bug: a rejected OAuth token the API echoes in its 401 body is [redacted]', async () => {
      auth.revokeAll();
      const rejected = await client.callTool('listReports');
      expect(rejected.isError).toBe(true);
      expectNoSecrets(JSON.stringify(rejected), auth.tokens(), 'the 401 result');
    });

    it('public operation (security: []): no credential of any kind is sent', async () => {
      upstream.clearRequests();
      const result = await client.callTool('getPublic');
      expect(result.isError, textOf(result)).toBeFalsy();
      expect(result.structuredContent).toEqual({ route: 'public', received: {} });
      const req = singleRequest();
      expect(carriers(req)).toEqual([]);
      expect(req.headers.cookie).toBeUndefined();
      expect(req.rawQuery).toBe('');
    });

    it('optional security ([{}, {BearerAuth: []}]): the call succeeds', async () => {
      upstream.clearRequests();
      const result = await client.callTool('getOptional');
      expect(result.isError, textOf(result)).toBeFalsy();
      expect(singleRequest().path).toBe('/v1/optional');
    });

    // runtime/auth.ts authorize takes the first satisfiable alternative; `{}` always is, so a
    // configured BEARER_AUTH is never sent when the spec lists `{}` first (listed second, it is).
    it('fixed bug: optional security sends the credentials that are configured', async () => {
      upstream.clearRequests();
      const result = await client.callTool('getOptional');
      expect(result.isError, textOf(result)).toBeFalsy();
      expect(carriers(singleRequest())).toEqual(['authorization:Bearer']);
    });

    // runtime/auth.ts secretValues/redact only know the raw values; an API that echoes the
    // credential in the form it was sent (Basic's base64, a percent-encoded query) is not scrubbed.
    it('fixed bug: an API that echoes the Authorization header of HTTP Basic does not reveal the password', async () => {
      upstream.route('GET', '/v1/basic', (req) => json({ error: 'unauthorized', authorization: header(req, 'authorization') ?? '' }, 401));
      try {
        const result = await client.callTool('getBasic');
        expect(result.isError).toBe(true);
        expectNoSecrets(JSON.stringify(result), wireForms(OAS3_ENV, [['BASIC_AUTH_USERNAME', 'BASIC_AUTH_PASSWORD']]), 'the 401 result');
      } finally {
        upstream.setRoutes(apiRoutes(auth));
      }
    });

    it('fixed bug: an API that echoes the request URL does not reveal the query API key (percent-encoded)', async () => {
      upstream.route('GET', '/v1/query-key', (req) => json({ error: 'not found', url: `${req.path}?${req.rawQuery}` }, 404));
      try {
        const result = await client.callTool('getQueryKey');
        expect(result.isError).toBe(true);
        expectNoSecrets(JSON.stringify(result), wireForms({ QUERY_KEY: OAS3_ENV.QUERY_KEY }, []), 'the 404 result');
      } finally {
        upstream.setRoutes(apiRoutes(auth));
      }
    });

    it('the server logs JSON lines only, with no secret or token in any form', () => {
      expectCleanStderr(client, [...wireForms(OAS3_ENV, [['BASIC_AUTH_USERNAME', 'BASIC_AUTH_PASSWORD']]), ...auth.tokens()]);
    });
  });

  describe('without credentials', () => {
    let client: McpTestClient;

    beforeAll(async () => {
      client = await connectClient(kind, { entry: oas3.entry, env: { API_BASE_URL: upstream.url('/v1') } });
    });

    afterAll(async () => {
      await client?.close();
    });

    it.each(OAS3_MISSING)('$tool: isError naming $variables; nothing reaches the API or the token endpoint', async ({ tool, args, variables }) => {
      upstream.clearRequests();
      const authRequests = auth.requests.length;
      const result = await client.callTool(tool, args ?? {});
      expect(result.isError).toBe(true);
      const text = textOf(result);
      for (const variable of variables) expect(text).toMatch(variablePattern(variable));
      expect(text).toContain("server's environment");
      expect(text).not.toMatch(/internal error/i);
      expect(result.structuredContent).toBeUndefined();
      expect(upstream.requests).toEqual([]);
      expect(auth.requests.length).toBe(authRequests);
    });

    it('the audit log says config_error with no attempt for those calls', () => {
      const calls = logEvents(client.stderr()).filter((e) => e.event === 'tool_call');
      expect(calls.length).toBeGreaterThanOrEqual(OAS3_MISSING.length);
      for (const call of calls.slice(0, OAS3_MISSING.length)) expect(call).toMatchObject({ status: 'config_error', isError: true, attempts: 0 });
    });

    it('public operation: succeeds, with no credential sent', async () => {
      upstream.clearRequests();
      const result = await client.callTool('getPublic');
      expect(result.isError, textOf(result)).toBeFalsy();
      expect(carriers(singleRequest())).toEqual([]);
    });

    it('optional security: succeeds anonymously', async () => {
      upstream.clearRequests();
      const result = await client.callTool('getOptional');
      expect(result.isError, textOf(result)).toBeFalsy();
      expect(result.structuredContent).toEqual({ route: 'optional', received: {} });
      expect(carriers(singleRequest())).toEqual([]);
    });
  });

  describe('with some credentials (BEARER_AUTH and QUERY_KEY only)', () => {
    let client: McpTestClient;
    const env = { BEARER_AUTH: OAS3_ENV.BEARER_AUTH, QUERY_KEY: OAS3_ENV.QUERY_KEY };

    beforeAll(async () => {
      client = await connectClient(kind, { entry: oas3.entry, env: { API_BASE_URL: upstream.url('/v1'), ...env } });
    });

    afterAll(async () => {
      await client?.close();
    });

    it('alternatives: the second one (bearer) is used when the first (header key) is not set', async () => {
      upstream.clearRequests();
      const result = await client.callTool('getEither');
      expectRedactedSuccess(result, secretsOf(env));
      expect(carriers(singleRequest())).toEqual(['authorization:Bearer']);
    });

    it('combined requirement: half of it is not enough; the error names only the missing variable', async () => {
      upstream.clearRequests();
      const result = await client.callTool('getBoth');
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(variablePattern('HEADER_KEY'));
      expect(textOf(result)).not.toMatch(variablePattern('QUERY_KEY'));
      expect(upstream.requests).toEqual([]);
    });
  });

  describe('with wrong credentials', () => {
    let client: McpTestClient;

    beforeAll(async () => {
      client = await connectClient(kind, { entry: oas3.entry, env: { API_BASE_URL: upstream.url('/v1'), ...OAS3_WRONG_ENV } });
    });

    afterAll(async () => {
      await client?.close();
    });

    it.each([
      { tool: 'getHeaderKey', echoed: 'X-API-Key' },
      { tool: 'getBearer', echoed: 'token' },
      { tool: 'getBasic', echoed: 'password' },
    ])('$tool: the API answers 401 echoing the credential; the result shows [redacted]', async ({ tool, echoed }) => {
      upstream.clearRequests();
      const result = await client.callTool(tool);
      expect(result.isError).toBe(true);
      const text = textOf(result);
      expect(text).toContain('401');
      expect(text).toContain('unauthorized');
      expect(text).toMatch(new RegExp(`"${echoed}"\\s*:\\s*"\\[redacted\\]"`));
      expectNoSecrets(JSON.stringify(result), secretsOf(OAS3_WRONG_ENV), 'the 401 result');
      expect(singleRequest().path).toMatch(/^\/v1\//);
    });

    it('client credentials the token endpoint refuses: isError naming the variables, no secret, nothing reaches the API', async () => {
      upstream.clearRequests();
      const before = auth.tokenRequests('/oauth/token').length;
      const result = await client.callTool('listReports');
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(variablePattern('MACHINE_AUTH_CLIENT_ID'));
      expect(textOf(result)).toMatch(variablePattern('MACHINE_AUTH_CLIENT_SECRET'));
      expect(textOf(result)).toContain('invalid_client');
      expectNoSecrets(JSON.stringify(result), secretsOf(OAS3_WRONG_ENV), 'the result');
      expect(auth.tokenRequests('/oauth/token').length - before).toBe(1);
      expect(upstream.requests).toEqual([]);
    });

    // runtime/auth.ts TokenSource.token lets fetch's TypeError (or the deadline's TimeoutError)
    // escape; only MissingCredentialError is handled in runtime/execute-tool.ts, so a token
    // endpoint that is down or slow becomes "Internal error ... a problem with the server"
    // (status internal_error, a tool_error line with a stack) instead of a network error or a
    // timeout that names the token endpoint. (This client never holds a cached token.)
    it('fixed bug: a token endpoint that is down is reported as such, not as an internal error', async () => {
      upstream.clearRequests();
      auth.dropTokenRequests = true;
      try {
        const result = await client.callTool('listReports');
        expect(result.isError).toBe(true);
        expect(upstream.requests).toEqual([]);
        expect(textOf(result)).not.toMatch(/internal error|problem with the server/i);
        expect(textOf(result)).toMatch(/token endpoint/i);
      } finally {
        auth.dropTokenRequests = false;
      }
    });

    it('the server logs no secret in any form', () => {
      expectCleanStderr(client, wireForms(OAS3_WRONG_ENV, [['BASIC_AUTH_USERNAME', 'BASIC_AUTH_PASSWORD']]));
    });
  });
});

// ---------------------------------------------------------------------------------------------
// Swagger 2.0

describe.each(CLIENT_KINDS)('secured API (Swagger 2.0) through the %s client', (kind) => {
  describe('with every credential set', () => {
    let client: McpTestClient;
    const secrets = () => [...secretsOf(SWAGGER2_ENV), ...auth.tokens()];

    beforeAll(async () => {
      client = await connectClient(kind, { entry: swagger2.entry, env: { API_BASE_URL: upstream.url('/v2'), ...SWAGGER2_ENV } });
    });

    afterAll(async () => {
      await client?.close();
    });

    it.each([
      { tool: 'legacyBasic', path: '/v2/basic', carriers: ['authorization:Basic'] },
      { tool: 'legacyKey', path: '/v2/key', carriers: ['header:X-Legacy-Key'] },
      { tool: 'legacyQueryKey', path: '/v2/query-key', carriers: ['query:token'] },
    ])('$tool: the API gets $carriers and nothing else; the echoed credential is [redacted]', async ({ tool, path, carriers: expected }) => {
      upstream.clearRequests();
      expectRedactedSuccess(await client.callTool(tool), secrets());
      const req = singleRequest();
      expect(req.path).toBe(path);
      expect(carriers(req)).toEqual(expected);
    });

    it('oauth2 application flow: one token for several calls, client credentials in HTTP Basic, the scope asked for', async () => {
      const before = auth.tokenRequests('/oauth/token').length;
      upstream.clearRequests();
      for (let i = 0; i < 3; i++) expectRedactedSuccess(await client.callTool('legacyInventory'), secrets());
      const tokenRequests = auth.tokenRequests('/oauth/token').slice(before);
      expect(tokenRequests).toHaveLength(1);
      expect(tokenRequests[0]!.authorization).toBe(
        `Basic ${Buffer.from(`${SWAGGER2_ENV.LEGACY_MACHINE_CLIENT_ID}:${SWAGGER2_ENV.LEGACY_MACHINE_CLIENT_SECRET}`).toString('base64')}`,
      );
      expect(tokenRequests[0]!.form.get('grant_type')).toBe('client_credentials');
      expect(tokenRequests[0]!.form.get('scope')).toBe('inventory:read');
      expect(new Set(upstream.requests.map((r) => bearer(r))).size).toBe(1);
      expect(upstream.requests).toHaveLength(3);
    });

    it('public operation (security: []): no credential of any kind is sent', async () => {
      upstream.clearRequests();
      const result = await client.callTool('legacyPublic');
      expect(result.isError, textOf(result)).toBeFalsy();
      expect(carriers(singleRequest())).toEqual([]);
    });

    it('the server logs no secret or token in any form', () => {
      expectCleanStderr(client, [...wireForms(SWAGGER2_ENV, [['LEGACY_BASIC_USERNAME', 'LEGACY_BASIC_PASSWORD']]), ...auth.tokens()]);
    });
  });

  describe('without credentials', () => {
    let client: McpTestClient;

    beforeAll(async () => {
      client = await connectClient(kind, { entry: swagger2.entry, env: { API_BASE_URL: upstream.url('/v2') } });
    });

    afterAll(async () => {
      await client?.close();
    });

    it.each([
      { tool: 'legacyBasic', variables: ['LEGACY_BASIC_USERNAME', 'LEGACY_BASIC_PASSWORD'] },
      { tool: 'legacyKey', variables: ['LEGACY_KEY'] },
      { tool: 'legacyQueryKey', variables: ['LEGACY_QUERY_KEY'] },
      { tool: 'legacyInventory', variables: ['LEGACY_MACHINE_CLIENT_ID', 'LEGACY_MACHINE_CLIENT_SECRET'] },
    ])('$tool: isError naming $variables; nothing reaches the API or the token endpoint', async ({ tool, variables }) => {
      upstream.clearRequests();
      const authRequests = auth.requests.length;
      const result = await client.callTool(tool);
      expect(result.isError).toBe(true);
      for (const variable of variables) expect(textOf(result)).toMatch(variablePattern(variable));
      expect(upstream.requests).toEqual([]);
      expect(auth.requests.length).toBe(authRequests);
    });

    it('public operation: succeeds, with no credential sent', async () => {
      upstream.clearRequests();
      const result = await client.callTool('legacyPublic');
      expect(result.isError, textOf(result)).toBeFalsy();
      expect(carriers(singleRequest())).toEqual([]);
    });
  });
});
