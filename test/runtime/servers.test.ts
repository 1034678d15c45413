import { describe, expect, it } from 'vitest';
import { chooseBaseUrl, expandServerUrl, serverVariableProblems, toolBaseUrl } from '../../runtime/servers.js';
import type { ServerInfo, ServerTemplate, ToolDefinition } from '../../runtime/types.js';

const regional: ServerTemplate = {
  url: 'https://{region}.api.example.com/{version}',
  variables: [
    { name: 'region', env: 'API_SERVER_REGION', default: 'eu', enum: ['eu', 'us'] },
    { name: 'version', env: 'API_SERVER_VERSION', default: 'v1' },
  ],
};
const info: ServerInfo = {
  name: 'x',
  version: '1',
  defaultBaseUrl: 'https://eu.api.example.com/v1',
  servers: [regional, { url: 'http://localhost:8080/api' }],
};

function tool(server?: ServerTemplate): ToolDefinition {
  return {
    name: 't',
    description: 'd',
    annotations: {},
    inputSchema: { type: 'object' },
    http: { method: 'GET', path: '/x', arguments: [], ...(server ? { server } : {}) },
  };
}

describe('servers', () => {
  it.each<[string, Record<string, string>, string]>([
    ['the first server with default variables', {}, 'https://eu.api.example.com/v1'],
    ['variables from the environment', { API_SERVER_REGION: 'us', API_SERVER_VERSION: 'v2' }, 'https://us.api.example.com/v2'],
    ['another server by index', { API_SERVER: '1' }, 'http://localhost:8080/api'],
    ['an out-of-range index falls back to the first', { API_SERVER: '7' }, 'https://eu.api.example.com/v1'],
    ['API_BASE_URL over everything', { API_BASE_URL: 'http://127.0.0.1:9/mock', API_SERVER: '1' }, 'http://127.0.0.1:9/mock'],
  ])('%s', (_, env, want) => {
    expect(chooseBaseUrl(info, env)).toBe(want);
  });

  it('reports a variable outside its enum', () => {
    expect(serverVariableProblems(regional, { API_SERVER_REGION: 'mars' })).toEqual(['API_SERVER_REGION="mars" is not one of eu, us']);
    expect(serverVariableProblems(regional, { API_SERVER_REGION: 'us' })).toEqual([]);
  });

  it('leaves an unknown {variable} alone', () => {
    expect(expandServerUrl({ url: 'https://{x}.example.com' }, {})).toBe('https://{x}.example.com');
  });

  it.each<[string, ServerTemplate | undefined, Record<string, string>, string]>([
    ['no server of its own', undefined, {}, 'https://eu.api.example.com/v1'],
    ['an absolute operation server', { url: 'https://upload.example.com/files' }, {}, 'https://upload.example.com/files'],
    ['a relative one, against the API origin', { url: '/v3' }, {}, 'https://eu.api.example.com/v3'],
    ['a relative one without a slash, below the API path', { url: 'beta' }, {}, 'https://eu.api.example.com/v1/beta'],
    ['API_BASE_URL sends every tool to one place', { url: 'https://upload.example.com' }, { API_BASE_URL: 'http://127.0.0.1:9' }, 'https://eu.api.example.com/v1'],
  ])('tool base URL: %s', (_, server, env, want) => {
    expect(toolBaseUrl(tool(server), 'https://eu.api.example.com/v1', env)).toBe(want);
  });
});
