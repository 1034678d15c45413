import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { McpGenError } from '../../src/diagnostics.js';
import type { GeneratedFile } from '../../src/emit/emit-project.js';
import { formatFiles } from '../../src/write/format.js';
import { MANIFEST_PATH, buildManifest } from '../../src/write/manifest.js';
import { writeOutput } from '../../src/write/write-output.js';

let root: string;
let out: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'mcp-gen-write-'));
  out = join(root, 'out');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function generation(byPath: Record<string, string>): GeneratedFile[] {
  const list = Object.entries(byPath).map(([path, content]) => ({ path, content }));
  return [...list, buildManifest(list)];
}

const read = (path: string) => readFileSync(join(out, path), 'utf8');

describe('writeOutput', () => {
  it('creates the folder, nested folders, files and the manifest', () => {
    const plan = writeOutput(out, generation({ 'package.json': '{}\n', 'src/runtime/a.ts': 'a\n' }), false);
    expect(plan.write).toHaveLength(3);
    expect(read('src/runtime/a.ts')).toBe('a\n');
    expect(JSON.parse(read(MANIFEST_PATH)).files).toHaveProperty('package.json');
  });

  it('regenerates in place: unchanged files untouched, stale files removed', () => {
    writeOutput(out, generation({ 'a.ts': 'a', 'old.ts': 'old' }), false);
    const plan = writeOutput(out, generation({ 'a.ts': 'a', 'b.ts': 'b' }), false);
    expect(plan.unchanged).toBe(1);
    expect(plan.remove).toEqual(['old.ts']);
    expect(existsSync(join(out, 'old.ts'))).toBe(false);
    expect(read('b.ts')).toBe('b');
  });

  it('refuses to overwrite an edited file, writing nothing at all', () => {
    writeOutput(out, generation({ 'a.ts': 'a', 'b.ts': 'b' }), false);
    writeFileSync(join(out, 'a.ts'), 'edited');
    const manifestBefore = read(MANIFEST_PATH);
    let error: unknown;
    try {
      writeOutput(out, generation({ 'a.ts': 'a2', 'b.ts': 'b2', 'c.ts': 'c' }), false);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(McpGenError);
    expect((error as McpGenError).diagnostic.code).toBe('OUTPUT_CONFLICT');
    expect((error as McpGenError).message).toContain('a.ts');
    expect([read('a.ts'), read('b.ts'), read(MANIFEST_PATH)]).toEqual(['edited', 'b', manifestBefore]);
    expect(existsSync(join(out, 'c.ts'))).toBe(false);
    writeOutput(out, generation({ 'a.ts': 'a2', 'b.ts': 'b2' }), true);
    expect(read('a.ts')).toBe('a2');
  });

  it('refuses a non-empty folder it did not generate', () => {
    mkdirSync(out);
    writeFileSync(join(out, 'unrelated.txt'), 'x');
    expect(() => writeOutput(out, generation({ 'a.ts': 'a' }), false)).toThrow(McpGenError);
    expect(existsSync(join(out, 'a.ts'))).toBe(false);
    writeOutput(out, generation({ 'a.ts': 'a' }), true);
    expect(read('unrelated.txt')).toBe('x');
  });

  it('keeps a stale file the user edited', () => {
    writeOutput(out, generation({ 'a.ts': 'a', 'old.ts': 'old' }), false);
    writeFileSync(join(out, 'old.ts'), 'mine now');
    const plan = writeOutput(out, generation({ 'a.ts': 'a' }), false);
    expect(plan.remove).toEqual([]);
    expect(read('old.ts')).toBe('mine now');
  });
});

describe('formatFiles', () => {
  it('formats TypeScript, JSON and Markdown with the pinned options; leaves other files and canonical ones alone', async () => {
    const formatted = await formatFiles([
      { path: 'src/a.ts', content: 'const x = {a:"b",c:[1,2,]}\n' },
      { path: 'package.json', content: '{"name":"x","bin":{"x":"dist/index.js"}}' },
      { path: 'README.md', content: '# Title\n\n\n\n* item\n' },
      { path: '.env.example', content: 'A=1\n\n\n' },
      { path: 'src/tools.json', content: '[ 1,2 ]', canonical: true },
    ]);
    expect(formatted).toStrictEqual([
      { path: 'src/a.ts', content: "const x = { a: 'b', c: [1, 2] };\n" },
      { path: 'package.json', content: '{ "name": "x", "bin": { "x": "dist/index.js" } }\n' },
      { path: 'README.md', content: '# Title\n\n- item\n' },
      { path: '.env.example', content: 'A=1\n\n\n' },
      { path: 'src/tools.json', content: '[ 1,2 ]' },
    ]);
  });

  it('is stable: formatting formatted output changes nothing', async () => {
    const once = await formatFiles([{ path: 'x.ts', content: 'export function f(a:number,b:string){return [a,b]}' }]);
    expect(await formatFiles(once)).toStrictEqual(once);
  });
});
