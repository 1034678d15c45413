import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generate } from '../../src/generate.js';
import { writeOutput } from '../../src/write/write-output.js';
import { EXAMPLES } from './examples.js';

/**
 * generated-examples/ must be exactly what the generator emits today.
 * `npm run examples` (UPDATE_EXAMPLES=1) rewrites them; commit the result with the change.
 */
const update = process.env.UPDATE_EXAMPLES === '1';

function listFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)).split('\\').join('/'))
    .sort();
}

describe.each(EXAMPLES)('$dir', ({ spec, dir }) => {
  it('matches the committed output byte for byte', async () => {
    const { files } = await generate(spec);
    if (update) {
      rmSync(dir, { recursive: true, force: true });
      writeOutput(dir, files, false);
    }
    expect(listFiles(dir)).toEqual(files.map((f) => f.path).sort());
    for (const file of files) {
      expect(readFileSync(join(dir, file.path), 'utf8'), `${dir}/${file.path} is stale: run npm run examples`).toBe(
        file.content,
      );
    }
  });
});
