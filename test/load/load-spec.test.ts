import { describe, expect, it } from 'vitest';
import { loadSpec } from '../../src/load/load-spec.js';
import { planTools } from '../../src/tools/plan-tools.js';

describe('loadSpec', () => {
  it('follows relative external $refs across files, keeping a recursive one finite', async () => {
    const spec = await loadSpec('fixtures/openapi-3.0/multi-file/openapi.yaml');
    const [tool] = planTools(spec.model);
    expect(tool?.inputSchema.properties).toEqual({ id: { type: 'integer', minimum: 1 } });
    const output = tool?.output?.schema as { properties: Record<string, unknown>; $defs: Record<string, unknown> };
    expect(Object.keys(output.properties)).toEqual(['id', 'name', 'keeper']);
    // keeper.yaml refers to itself: it is emitted once under $defs and referenced, not inlined forever.
    const defs = Object.values(output.$defs);
    expect(defs).toHaveLength(1);
    expect(JSON.stringify(output)).toContain('"$ref":"#/$defs/');
    expect(JSON.stringify(output).length).toBeLessThan(1000);
  });

  it.each([
    ['fixtures/openapi-3.0/petstore.yaml', '3.0', 'https://petstore.example.com/v1'],
    ['fixtures/openapi-2.0/petstore.yaml', '2.0', 'https://petstore.example.com/v2'],
    ['fixtures/openapi-3.1/bookshop.yaml', '3.1', 'http://bookshop.example.com/api'],
  ])('%s is OpenAPI %s with base URL %s', async (source, version, baseUrl) => {
    const spec = await loadSpec(source);
    expect(spec.version).toBe(version);
    expect(spec.model.baseUrl).toBe(baseUrl);
  });
});
