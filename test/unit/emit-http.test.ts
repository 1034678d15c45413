/**
 * What a generated project says and needs for `--transport http`: the Node adapter as an exact
 * dependency, the README section (flags, paths, environment, client snippet), the .env.example lines.
 */
import { describe, expect, it } from 'vitest';
import { GENERATED_DEPENDENCY_VERSIONS } from '../../src/emit/dependency-versions.js';
import { emitProject } from '../../src/emit/emit-project.js';
import { projectView } from '../../src/emit/view-model.js';
import { loadAssets } from '../../src/load/assets.js';
import { planTools } from '../../src/tools/plan-tools.js';
import { model, operation, petSchema, response } from './model-factory.js';

function emitted(): (path: string) => string {
  const m = model([operation('GET', '/pets', { operationId: 'listPets', responses: [response('200', { type: 'array', items: petSchema() })] })], {
    title: 'Pets',
    version: '1.0.0',
    baseUrl: 'https://pets.example.test/v1',
  });
  const files = emitProject(projectView(m, planTools(m), { name: 'pets-mcp' }), loadAssets());
  return (path) => {
    const file = files.find((f) => f.path === path);
    if (!file) throw new Error(`not emitted: ${path}`);
    return file.content;
  };
}

describe('a generated project and the HTTP transport', () => {
  const text = emitted();

  it('depends on @modelcontextprotocol/node at the exact version this repo tests with', () => {
    const pkg = JSON.parse(text('package.json'));
    expect(pkg.dependencies['@modelcontextprotocol/node']).toBe(GENERATED_DEPENDENCY_VERSIONS.node);
    expect(GENERATED_DEPENDENCY_VERSIONS.node).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('the README explains flags, paths, environment and statelessness', () => {
    const readme = text('README.md');
    expect(readme).toContain('node dist/index.js --transport http');
    for (const row of ['| `--port` | `3000` |', '| `--host` | `127.0.0.1` |', '| `/mcp` |', '| `/healthz` |'])
      expect(readme).toContain(row);
    for (const variable of ['MCP_AUTH_TOKEN', 'MCP_ALLOWED_HOSTS', 'MCP_ALLOWED_ORIGINS']) expect(readme).toContain(`| \`${variable}\` |`);
    expect(readme).toMatch(/stateless/);
    expect(readme).toMatch(/without session affinity/);
    expect(readme).toMatch(/RFC 9728/);
  });

  it('the README has an HTTP client configuration that is valid JSON', () => {
    const readme = text('README.md');
    const blocks = [...readme.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => JSON.parse(m[1]!));
    const http = blocks.find((b) => b.mcpServers?.['pets-mcp']?.type === 'http');
    expect(http?.mcpServers['pets-mcp']).toEqual({
      type: 'http',
      url: 'http://127.0.0.1:3000/mcp',
      headers: { Authorization: 'Bearer <the MCP_AUTH_TOKEN value>' },
    });
  });

  it('.env.example lists the HTTP variables, commented out', () => {
    const env = text('.env.example');
    for (const line of ['# MCP_AUTH_TOKEN=', '# MCP_ALLOWED_HOSTS=mcp.example.com', '# MCP_ALLOWED_ORIGINS=https://app.example.com'])
      expect(env.split('\n')).toContain(line);
  });
});
