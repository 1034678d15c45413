import { readFileSync, readdirSync } from 'node:fs';
import * as prettier from 'prettier';
import { describe, expect, it } from 'vitest';
import { PRETTIER_OPTIONS } from '../../src/write/format.js';

/** runtime/ is copied into generated projects without formatting, so it must already be formatted. */
describe('runtime sources', () => {
  it('the repo prettier config is the one generation uses', () => {
    expect(JSON.parse(readFileSync('.prettierrc.json', 'utf8'))).toEqual(PRETTIER_OPTIONS);
  });

  it.each(readdirSync('runtime').filter((f) => f.endsWith('.ts')))('runtime/%s is prettier-formatted (npx prettier --write runtime)', async (file) => {
    const source = readFileSync(`runtime/${file}`, 'utf8');
    expect(await prettier.check(source, { ...PRETTIER_OPTIONS, parser: 'typescript' })).toBe(true);
  });
});
