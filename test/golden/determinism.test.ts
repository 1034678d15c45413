import { describe, expect, it } from 'vitest';
import { generate } from '../../src/generate.js';
import { loadSpec } from '../../src/load/load-spec.js';
import { planTools } from '../../src/tools/plan-tools.js';
import { EXAMPLES } from './examples.js';

describe.each(EXAMPLES)('$spec', ({ spec }) => {
  it('generates byte-identical files twice', async () => {
    const first = await generate(spec);
    const second = await generate(spec);
    expect(second.files.map((f) => [f.path, f.content])).toEqual(first.files.map((f) => [f.path, f.content]));
  });

  it('plans without mutating the model, so planning twice gives the same tools', async () => {
    const { model } = await loadSpec(spec);
    const once = JSON.stringify(planTools(model));
    expect(JSON.stringify(planTools(model))).toBe(once);
  });

  it('emits no timestamps or absolute paths', async () => {
    const { files } = await generate(spec);
    for (const file of files) {
      expect(file.content, file.path).not.toContain(process.cwd());
      expect(file.content, file.path).not.toMatch(/20\d\d-\d\d-\d\dT\d\d:\d\d/);
    }
  });
});
