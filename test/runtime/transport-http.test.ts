import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { optionValue } from '../../runtime/main.js';
import {
  hostnameOf,
  httpAccess,
  originHostnameOf,
  serveHttp,
  staticTokenVerifier,
  type HttpServerHandle,
} from '../../runtime/transport-http.js';
import type { ServerInfo, ToolDefinition } from '../../runtime/types.js';

describe('allow-lists from the environment', () => {
  it('hosts: localhost names, the bound host, then MCP_ALLOWED_HOSTS normalized to bare host names', () => {
    const access = httpAccess('10.0.0.5', { MCP_ALLOWED_HOSTS: ' MCP.Example.com:443 , ,api.example.org, ::1 ' });
    expect(access.allowedHosts).toEqual([
      'localhost',
      '127.0.0.1',
      '[::1]',
      '10.0.0.5',
      'mcp.example.com',
      'api.example.org',
    ]);
  });

  it('a wildcard bind adds no host of its own', () => {
    for (const host of ['0.0.0.0', '::', ''])
      expect(httpAccess(host, {}).allowedHosts).toEqual(['localhost', '127.0.0.1', '[::1]']);
    expect(httpAccess('::1', {}).allowedHosts).toEqual(['localhost', '127.0.0.1', '[::1]']);
  });

  it('origins: localhost names plus MCP_ALLOWED_ORIGINS, full origins reduced to their host name', () => {
    const access = httpAccess('127.0.0.1', {
      MCP_ALLOWED_ORIGINS: 'https://App.example.com, http://tools.example.org:8080/, chrome-extension://abcdef, moz-extension://*',
    });
    expect(access.allowedOrigins).toEqual([
      'localhost',
      '127.0.0.1',
      '[::1]',
      'app.example.com',
      'tools.example.org',
      'abcdef',
      'moz-extension://*',
    ]);
  });

  it('no verifier without MCP_AUTH_TOKEN (or with a blank one)', () => {
    expect(httpAccess('127.0.0.1', {}).verifier).toBeUndefined();
    expect(httpAccess('127.0.0.1', { MCP_AUTH_TOKEN: '  ' }).verifier).toBeUndefined();
    expect(httpAccess('127.0.0.1', { MCP_AUTH_TOKEN: 'x' }).verifier).toBeDefined();
  });

  it('hostnameOf and originHostnameOf', () => {
    expect(hostnameOf('[::1]:3000')).toBe('[::1]');
    expect(hostnameOf('fe80::1')).toBe('[fe80::1]');
    expect(hostnameOf('https://a.example/x')).toBe('a.example');
    expect(originHostnameOf('moz-extension://*')).toBe('moz-extension://*');
  });
});

describe('staticTokenVerifier', () => {
  const verifier = staticTokenVerifier('right-token');

  it('accepts exactly the token, with an expiry the SDK requires', async () => {
    const info = await verifier.verifyAccessToken('right-token');
    expect(info.expiresAt).toBeGreaterThan(Date.now() / 1000);
  });

  it.each(['', 'right-toke', 'right-token ', 'RIGHT-TOKEN', 'right-token-and-more'])('refuses %j', async (candidate) => {
    await expect(verifier.verifyAccessToken(candidate)).rejects.toMatchObject({ code: 'invalid_token' });
  });
});

describe('optionValue', () => {
  it('reads --name value and --name=value', () => {
    expect(optionValue(['--transport', 'http', '--port=8080'], '--port')).toBe('8080');
    expect(optionValue(['--transport', 'http', '--port', '8080'], '--port')).toBe('8080');
    expect(optionValue(['--transport', 'http'], '--host')).toBeUndefined();
  });
});

describe('serveHttp in process', () => {
  const info: ServerInfo = { name: 'unit-http', version: '0.0.1', defaultBaseUrl: 'http://127.0.0.1:9' };
  const tools: ToolDefinition[] = [];
  let handle: HttpServerHandle;
  let base: string;

  beforeAll(async () => {
    handle = await serveHttp(info, tools, { host: '127.0.0.1', port: 0 }, { MCP_AUTH_TOKEN: 'tok' });
    base = `http://127.0.0.1:${handle.port}`;
  });

  afterAll(async () => {
    await handle?.close();
  });

  it('listens on the port the OS picked', () => {
    expect(handle.port).toBeGreaterThan(0);
    expect(handle.host).toBe('127.0.0.1');
  });

  it('healthz without a token; /mcp needs one; other paths are 404', async () => {
    const health = await fetch(`${base}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });

    const refused = await fetch(`${base}/mcp`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toMatch(/^Bearer /);

    const ping = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: {
        authorization: 'Bearer tok',
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    expect(ping.status).toBe(200);
    expect(await ping.text()).toContain('"id":1');

    expect((await fetch(`${base}/elsewhere`)).status).toBe(404);
  });

  it('close() resolves, and is idempotent', async () => {
    const other = await serveHttp(info, tools, { host: '127.0.0.1', port: 0 }, {});
    await Promise.all([other.close(), other.close()]);
    await expect(fetch(`http://127.0.0.1:${other.port}/healthz`)).rejects.toThrow();
  });
});
