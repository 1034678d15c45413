import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generate } from '../../src/generate.js';
import { sha256 } from '../../src/write/manifest.js';
import { runCli, tempDir } from './run-cli.js';

const PETSTORE = resolve('fixtures/openapi-3.0/petstore.yaml');

describe('bad input gets a clear error, exit code and no output', () => {
  it.each([
    ['an invalid spec', 'fixtures/invalid/missing-responses.yaml', /fixtures\/invalid\/missing-responses\.yaml#\/paths\/~1things\/get/],
    ['a file that is not YAML', 'fixtures/invalid/not-yaml.yaml', /not-yaml\.yaml.*cannot parse/],
    ['a missing file', 'fixtures/does-not-exist.yaml', /does-not-exist\.yaml.*cannot read/],
  ])('%s → exit 1, file and pointer named, nothing written', async (_label, spec, message) => {
    const out = join(tempDir(), 'server');
    const run = await runCli([spec, '-o', out]);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(message);
    expect(run.stderr).not.toMatch(/\n\s+at .+:\d+:\d+/); // no stack trace
    expect(existsSync(out)).toBe(false);
  });

  it('names the missing property of an invalid operation', async () => {
    const run = await runCli(['fixtures/invalid/missing-responses.yaml', '-o', join(tempDir(), 'x')]);
    expect(run.stderr).toContain("must have required property 'responses'");
  });

  it.each([
    ['no arguments', []],
    ['no output folder', [PETSTORE]],
    ['an invalid --name', [PETSTORE, '-o', 'x', '--name', 'Not A Name']],
    ['an unknown option', [PETSTORE, '--frobnicate']],
  ])('usage error for %s → exit 2', async (_label, args) => {
    const run = await runCli(args);
    expect(run.status).toBe(2);
    expect(run.stderr.length).toBeGreaterThan(0);
  });
});

describe('commands', () => {
  it('--version prints the package version', async () => {
    const run = await runCli(['--version']);
    expect(run.status).toBe(0);
    expect(run.stdout.trim()).toBe(JSON.parse(readFileSync('package.json', 'utf8')).version);
  });

  it('--help lists the options', async () => {
    const run = await runCli(['--help']);
    expect(run.status).toBe(0);
    for (const option of ['--output', '--name', '--force', '--dry-run']) expect(run.stdout).toContain(option);
  });

  it('--dry-run prints the tool plan and writes nothing', async () => {
    const cwd = tempDir();
    const run = await runCli([PETSTORE, '--dry-run'], cwd);
    expect(run.status).toBe(0);
    const { tools } = await generate(PETSTORE);
    for (const tool of tools) {
      expect(run.stdout).toMatch(new RegExp(`^${tool.name}\\s+${tool.http.method}\\s+${tool.http.path.replace(/[{}]/g, '\\$&')}\\s`, 'm'));
    }
    expect(run.stdout).toMatch(/^deletePet\s+DELETE\s+\S+\s+destructive, idempotent$/m);
    expect(run.stdout).toContain(`${tools.length} tools`);
    expect(existsSync(join(cwd, 'petstore-server'))).toBe(false);
  });

  it('--name names the server and package', async () => {
    const out = join(tempDir(), 'named');
    expect((await runCli([PETSTORE, '-o', out, '--name', 'my-pets'])).status).toBe(0);
    expect(JSON.parse(readFileSync(join(out, 'package.json'), 'utf8')).name).toBe('my-pets');
    expect(readFileSync(join(out, 'src/tools.ts'), 'utf8')).toContain("name: 'my-pets'");
  });
});

describe('regenerating into an existing folder', () => {
  it('rewrites only what changed and keeps files the user added', async () => {
    const out = join(tempDir(), 'server');
    expect((await runCli([PETSTORE, '-o', out])).status).toBe(0);
    writeFileSync(join(out, 'NOTES.md'), 'mine');
    const again = await runCli([PETSTORE, '-o', out]);
    expect(again.status).toBe(0);
    expect(again.stderr).toMatch(/0 written/);
    expect(readFileSync(join(out, 'NOTES.md'), 'utf8')).toBe('mine');
  });

  it('refuses to overwrite a generated file the user edited, unless --force', async () => {
    const out = join(tempDir(), 'server');
    expect((await runCli([PETSTORE, '-o', out])).status).toBe(0);
    const readme = join(out, 'README.md');
    writeFileSync(readme, 'my own readme');
    const refused = await runCli([PETSTORE, '-o', out]);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain('README.md');
    expect(refused.stderr).toContain('--force');
    expect(readFileSync(readme, 'utf8')).toBe('my own readme');
    expect((await runCli([PETSTORE, '-o', out, '--force'])).status).toBe(0);
    expect(readFileSync(readme, 'utf8')).toContain('mcp-gen');
  });

  it('refuses a non-empty folder it did not generate', async () => {
    const out = tempDir();
    writeFileSync(join(out, 'index.js'), 'someone else');
    const run = await runCli([PETSTORE, '-o', out]);
    expect(run.status).toBe(1);
    expect(existsSync(join(out, 'package.json'))).toBe(false);
  });

  it('removes files it generated earlier that a new spec no longer produces', async () => {
    const out = join(tempDir(), 'server');
    expect((await runCli([PETSTORE, '-o', out])).status).toBe(0);
    const manifestPath = join(out, '.mcp-gen/manifest.json');
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
    // Pretend an earlier generation also wrote src/old.ts.
    writeFileSync(join(out, 'src/old.ts'), 'export {};\n');
    manifest.files['src/old.ts'] = sha256('export {};\n');
    writeFileSync(manifestPath, JSON.stringify(manifest));
    expect((await runCli([PETSTORE, '-o', out])).status).toBe(0);
    expect(existsSync(join(out, 'src/old.ts'))).toBe(false);
  });
});

describe('a spec given by URL', () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    server = createServer((req, res) => {
      res.setHeader('content-type', 'application/yaml');
      res.end(readFileSync(PETSTORE));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/specs/petstore.yaml`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('is fetched and generates the same tools as the file', async () => {
    const out = join(tempDir(), 'server');
    const run = await runCli([url, '-o', out]);
    expect(run.status, run.stderr).toBe(0);
    const fromFile = await generate(PETSTORE);
    const written = JSON.parse(readFileSync(join(out, 'src/tools.json'), 'utf8'));
    expect(written).toEqual(fromFile.tools);
  });
});
