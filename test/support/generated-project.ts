/**
 * Generates a fixture into a fresh folder under `.tmp/e2e/` with the in-process pipeline
 * (`generate()` + `writeOutput()`, the same code the CLI runs), then installs and builds it the way
 * a user would (`npm install`, `npm run build`). Every call gets its own folder (mkdtemp), so
 * different test files can prepare projects concurrently.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { basename, extname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generate, type Generated } from '../../src/generate.js';
import { writeOutput } from '../../src/write/write-output.js';

/** The mcp-gen repository root. */
export const REPO_ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));

/** Parent of every generated e2e project (gitignored through `.tmp/`). */
export const E2E_TMP_ROOT = join(REPO_ROOT, '.tmp', 'e2e');

const INSTALL_TIMEOUT_MS = 240_000;
const BUILD_TIMEOUT_MS = 120_000;

export interface PreparedProject {
  /** Absolute path of the generated project. */
  dir: string;
  /** Absolute path of the built server entry point (`dist/index.js`). */
  entry: string;
  /** What `generate()` returned (tool plan, spec, files) — the source of truth for expectations. */
  generated: Generated;
  /** Removes the project folder, unless MCP_GEN_KEEP_E2E=1 is set (handy when debugging). */
  dispose(): Promise<void>;
}

/**
 * @param fixture path of the spec, absolute or relative to the repo root
 *   (e.g. `fixtures/openapi-3.0/petstore.yaml`)
 * @param name server/package name passed to `generate()`; derived from the API title when absent
 */
export async function prepareProject(fixture: string, name?: string): Promise<PreparedProject> {
  const source = resolve(REPO_ROOT, fixture);
  if (!existsSync(source)) throw new Error(`fixture not found: ${source}`);

  const generated = await generate(source, name === undefined ? {} : { name });

  await mkdir(E2E_TMP_ROOT, { recursive: true });
  const slug = basename(source, extname(source)).replace(/[^a-z0-9-]+/gi, '-');
  const version = basename(resolve(source, '..')).replace(/[^a-z0-9.-]+/gi, '-');
  const dir = await mkdtemp(join(E2E_TMP_ROOT, `${version}-${slug}-`));

  writeOutput(dir, generated.files, false);
  await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline'], dir, INSTALL_TIMEOUT_MS);
  await run('npm', ['run', 'build'], dir, BUILD_TIMEOUT_MS);

  const entry = join(dir, 'dist', 'index.js');
  if (!existsSync(entry)) throw new Error(`npm run build succeeded but ${entry} does not exist`);

  return {
    dir,
    entry,
    generated,
    dispose: async () => {
      if (process.env.MCP_GEN_KEEP_E2E === '1') return;
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The environment for the nested npm. Everything npm (or npx) put into our own environment is
 * dropped: `npm_config_local_prefix` and friends would otherwise point the nested install at this
 * repository instead of the generated project. npm re-reads the user's .npmrc on its own.
 */
function npmEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^npm_/i.test(key) || key === 'NODE_OPTIONS' || key.startsWith('VITEST')) continue;
    env[key] = value;
  }
  env.NO_UPDATE_NOTIFIER = '1';
  return env;
}

function run(command: string, args: string[], cwd: string, timeoutMs: number): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    execFile(
      command,
      args,
      {
        cwd,
        env: npmEnv(),
        timeout: timeoutMs,
        killSignal: 'SIGKILL',
        maxBuffer: 64 * 1024 * 1024,
        shell: process.platform === 'win32',
      },
      (error, stdout, stderr) => {
        if (!error) {
          resolvePromise();
          return;
        }
        const how = error.killed ? `killed after ${timeoutMs} ms` : `exit code ${String(error.code)}`;
        reject(
          new Error(
            `\`${command} ${args.join(' ')}\` failed in ${cwd} (${how})\n` +
              `--- stdout ---\n${stdout}\n--- stderr ---\n${stderr}`,
          ),
        );
      },
    );
  });
}
