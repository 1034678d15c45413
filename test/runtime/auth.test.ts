import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MissingCredentialError, TokenSource, authorize, redact, secretValues } from '../../runtime/auth.js';
import type { UpstreamRequest } from '../../runtime/build-request.js';
import type { SecuritySchemeDef } from '../../runtime/types.js';

/** A real OAuth 2 token endpoint and OpenID Connect discovery document on 127.0.0.1. */
let server: Server;
let origin: string;
let tokenRequests: { authorization?: string; body: string }[] = [];
let issued = 0;

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      if (req.url === '/.well-known/openid-configuration') {
        res.end(JSON.stringify({ issuer: origin, token_endpoint: `${origin}/oauth/token` }));
        return;
      }
      tokenRequests.push({ authorization: req.headers.authorization, body });
      const expected = `Basic ${Buffer.from('my-client:s3cr3t-value').toString('base64')}`;
      if (req.headers.authorization !== expected) {
        res.statusCode = 401;
        res.end(JSON.stringify({ error: 'invalid_client' }));
        return;
      }
      issued++;
      const expiresIn = new URLSearchParams(body).get('scope') === 'short' ? 30 : 3600;
      res.end(JSON.stringify({ access_token: `token-${issued}`, token_type: 'Bearer', expires_in: expiresIn }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));
beforeEach(() => {
  tokenRequests = [];
});

const request = (): UpstreamRequest => ({ method: 'GET', url: 'https://api.example.test/v1/pets?limit=1', headers: { Accept: 'application/json' } });

const schemes = (): Record<string, SecuritySchemeDef> => ({
  HeaderKey: { type: 'apiKey', in: 'header', name: 'X-API-Key', env: 'HEADER_KEY' },
  QueryKey: { type: 'apiKey', in: 'query', name: 'api_key', env: 'QUERY_KEY' },
  CookieKey: { type: 'apiKey', in: 'cookie', name: 'session', env: 'COOKIE_KEY' },
  Bearer: { type: 'bearer', env: 'BEARER' },
  Basic: { type: 'basic', usernameEnv: 'BASIC_USERNAME', passwordEnv: 'BASIC_PASSWORD' },
  Machine: { type: 'clientCredentials', tokenUrl: `${origin}/oauth/token`, env: 'MACHINE', clientIdEnv: 'MACHINE_CLIENT_ID', clientSecretEnv: 'MACHINE_CLIENT_SECRET', scopesEnv: 'MACHINE_SCOPES' },
  Oidc: { type: 'clientCredentials', discoveryUrl: `${origin}/.well-known/openid-configuration`, env: 'OIDC', clientIdEnv: 'OIDC_CLIENT_ID', clientSecretEnv: 'OIDC_CLIENT_SECRET', scopesEnv: 'OIDC_SCOPES' },
});

const one = (scheme: string, scopes: string[] = []) => [[{ scheme, scopes }]];

describe('authorize', () => {
  it('puts an API key in a header, the query or a cookie', async () => {
    const tokens = new TokenSource();
    const env = { HEADER_KEY: 'h-key', QUERY_KEY: 'q key&x', COOKIE_KEY: 'c-key' };
    expect((await authorize(request(), one('HeaderKey'), schemes(), env, tokens)).headers['X-API-Key']).toBe('h-key');
    expect((await authorize(request(), one('QueryKey'), schemes(), env, tokens)).url).toBe('https://api.example.test/v1/pets?limit=1&api_key=q%20key%26x');
    expect((await authorize(request(), one('CookieKey'), schemes(), env, tokens)).headers.Cookie).toBe('session=c-key');
  });

  it('sends bearer and basic credentials', async () => {
    const tokens = new TokenSource();
    const env = { BEARER: 'tok', BASIC_USERNAME: 'ann', BASIC_PASSWORD: 'p:w' };
    expect((await authorize(request(), one('Bearer'), schemes(), env, tokens)).headers.Authorization).toBe('Bearer tok');
    expect((await authorize(request(), one('Basic'), schemes(), env, tokens)).headers.Authorization).toBe(
      `Basic ${Buffer.from('ann:p:w').toString('base64')}`,
    );
  });

  it('combines schemes of one alternative and picks the first alternative whose variables are set', async () => {
    const tokens = new TokenSource();
    const alternatives = [[{ scheme: 'Bearer', scopes: [] }], [{ scheme: 'HeaderKey', scopes: [] }, { scheme: 'QueryKey', scopes: [] }]];
    const out = await authorize(request(), alternatives, schemes(), { HEADER_KEY: 'h', QUERY_KEY: 'q' }, tokens);
    expect(out.headers.Authorization).toBeUndefined();
    expect(out.headers['X-API-Key']).toBe('h');
    expect(new URL(out.url).searchParams.get('api_key')).toBe('q');
  });

  it('optional security ({}) needs nothing; missing credentials otherwise name the variables', async () => {
    const tokens = new TokenSource();
    expect((await authorize(request(), [[{ scheme: 'Bearer', scopes: [] }], []], schemes(), {}, tokens)).headers.Authorization).toBeUndefined();
    await expect(authorize(request(), [[{ scheme: 'Bearer', scopes: [] }], [{ scheme: 'Basic', scopes: [] }]], schemes(), { BASIC_USERNAME: 'u' }, tokens)).rejects.toThrow(
      new MissingCredentialError('This operation needs credentials: set BEARER, or BASIC_PASSWORD in the server\'s environment.'),
    );
  });

  it('does not let a credential with CR/LF split the request', async () => {
    const out = await authorize(request(), one('Bearer'), schemes(), { BEARER: 'abc\r\nX-Evil: 1' }, new TokenSource());
    expect(out.headers.Authorization).toBe('Bearer abcX-Evil: 1');
  });

  it('OAuth 2 client credentials: fetches a token with HTTP Basic client auth and the scopes, then caches it', async () => {
    const tokens = new TokenSource();
    const env = { MACHINE_CLIENT_ID: 'my-client', MACHINE_CLIENT_SECRET: 's3cr3t-value' };
    const first = await authorize(request(), one('Machine', ['pets:read', 'pets:write']), schemes(), env, tokens);
    const second = await authorize(request(), one('Machine', ['pets:read', 'pets:write']), schemes(), env, tokens);
    expect(first.headers.Authorization).toMatch(/^Bearer token-\d+$/);
    expect(second.headers.Authorization).toBe(first.headers.Authorization);
    expect(tokenRequests).toHaveLength(1);
    const form = new URLSearchParams(tokenRequests[0]?.body);
    expect(form.get('grant_type')).toBe('client_credentials');
    expect(form.get('scope')).toBe('pets:read pets:write');
  });

  it('refreshes a token that is about to expire, and honours <SCHEME>_SCOPES', async () => {
    const tokens = new TokenSource();
    const env = { MACHINE_CLIENT_ID: 'my-client', MACHINE_CLIENT_SECRET: 's3cr3t-value', MACHINE_SCOPES: 'short' };
    const a = await authorize(request(), one('Machine'), schemes(), env, tokens);
    const b = await authorize(request(), one('Machine'), schemes(), env, tokens);
    // expires_in 30 s is within the 30 s safety margin: every call fetches a fresh token.
    expect(a.headers.Authorization).not.toBe(b.headers.Authorization);
    expect(tokenRequests).toHaveLength(2);
  });

  it('a ready token in <SCHEME> is used without calling the token endpoint', async () => {
    const out = await authorize(request(), one('Machine'), schemes(), { MACHINE: 'given' }, new TokenSource());
    expect(out.headers.Authorization).toBe('Bearer given');
    expect(tokenRequests).toHaveLength(0);
  });

  it('wrong client credentials: a clear error without the secret', async () => {
    const env = { MACHINE_CLIENT_ID: 'my-client', MACHINE_CLIENT_SECRET: 'wrong-secret' };
    const error = await authorize(request(), one('Machine'), schemes(), env, new TokenSource()).catch((e: Error) => e);
    expect(error).toBeInstanceOf(MissingCredentialError);
    expect((error as Error).message).toContain('MACHINE_CLIENT_ID/MACHINE_CLIENT_SECRET');
    expect((error as Error).message).toContain('invalid_client');
    expect((error as Error).message).not.toContain('wrong-secret');
  });

  it('OpenID Connect: discovers the token endpoint, then uses client credentials', async () => {
    const env = { OIDC_CLIENT_ID: 'my-client', OIDC_CLIENT_SECRET: 's3cr3t-value' };
    const out = await authorize(request(), one('Oidc', ['openid']), schemes(), env, new TokenSource());
    expect(out.headers.Authorization).toMatch(/^Bearer token-\d+$/);
    expect(tokenRequests).toHaveLength(1);
  });
});

describe('secrets never leak into results', () => {
  it('lists secret values from the environment and redacts every occurrence', () => {
    const env = { HEADER_KEY: 'h-key-123', BASIC_USERNAME: 'ann', BASIC_PASSWORD: 'pw-4567', MACHINE_CLIENT_SECRET: 'cs-890' };
    const secrets = secretValues(schemes(), env);
    expect(secrets.sort()).toEqual([Buffer.from('ann:pw-4567').toString('base64'), 'cs-890', 'h-key-123', 'pw-4567'].sort());
    expect(redact('echo: h-key-123 and pw-4567, h-key-123', secrets)).toBe('echo: [redacted] and [redacted], [redacted]');
  });
});
