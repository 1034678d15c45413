/**
 * MCP tools that need Node 22 — the conformance suite (`@modelcontextprotocol/conformance`) and the
 * MCP Inspector CLI (`@modelcontextprotocol/inspector`) — installed with npm under `.tmp/`, next to a
 * Node 22 binary from the npm `node` package. Installed once; later runs reuse them.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { basename, delimiter, dirname, join } from 'node:path';
import { REPO_ROOT } from './generated-project.js';

export const NODE22_VERSION = '22.23.3';
export const CONFORMANCE_VERSION = '0.1.16';
export const INSPECTOR_VERSION = '2.12.0';

const NODE22_DIR = join(REPO_ROOT, '.tmp', 'node22');
const TOOLS_DIR = join(REPO_ROOT, '.tmp', 'mcp-tools');

export interface Node22Tools {
  /** The Node 22 executable. */
  node: string;
  /** PATH with Node 22 first, for tools that spawn `node`. */
  path: string;
  /** Script paths, run with `node`. */
  conformance: string;
  inspector: string;
}

function paths(): Node22Tools {
  const node = join(NODE22_DIR, 'node_modules', 'node', 'bin', 'node');
  const modules = join(TOOLS_DIR, 'node_modules', '@modelcontextprotocol');
  return {
    node,
    path: [dirname(node), process.env.PATH ?? ''].join(delimiter),
    conformance: join(modules, 'conformance', 'dist', 'index.js'),
    inspector: join(modules, 'inspector', 'clients', 'launcher', 'build', 'index.js'),
  };
}

function installedVersion(packageDir: string): string | undefined {
  try {
    return (JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { version?: string }).version;
  } catch {
    return undefined;
  }
}

/** Whether the pinned versions are already under `.tmp/` (then no registry is needed). */
export function node22ToolsInstalled(): boolean {
  const p = paths();
  const modules = join(TOOLS_DIR, 'node_modules', '@modelcontextprotocol');
  return (
    existsSync(p.node) &&
    installedVersion(join(NODE22_DIR, 'node_modules', 'node')) === NODE22_VERSION &&
    installedVersion(join(modules, 'conformance')) === CONFORMANCE_VERSION &&
    installedVersion(join(modules, 'inspector')) === INSPECTOR_VERSION &&
    existsSync(p.conformance) &&
    existsSync(p.inspector)
  );
}

/** `npm ping` against the configured registry: undefined when reachable, else why not. */
export async function registryProblem(): Promise<string | undefined> {
  try {
    await run('npm', ['ping'], REPO_ROOT, 30_000);
    return undefined;
  } catch (error) {
    return (error as Error).message.split('\n').slice(0, 6).join(' ');
  }
}

/**
 * Installs whatever is missing (Node 22 first: the tools' install scripts need it). Concurrent test
 * runs take turns (a lock folder), so they never install into the same folder at once.
 */
export async function ensureNode22Tools(): Promise<Node22Tools> {
  if (node22ToolsInstalled()) return paths();
  const lock = join(REPO_ROOT, '.tmp', 'node22-tools.lock');
  await mkdir(dirname(lock), { recursive: true });
  const deadline = Date.now() + 300_000;
  for (;;) {
    try {
      await mkdir(lock);
      break;
    } catch {
      if (Date.now() > deadline) throw new Error(`${lock} is still held after 5 minutes; remove it if no test run is installing`);
      await new Promise((resolvePromise) => setTimeout(resolvePromise, 1_000));
    }
  }
  try {
    return await install();
  } finally {
    await rm(lock, { recursive: true, force: true });
  }
}

async function install(): Promise<Node22Tools> {
  const p = paths();
  if (node22ToolsInstalled()) return p;
  // Each folder is a project of its own: without a package.json there, npm would walk up and
  // install into the nearest one, which is this repository.
  for (const dir of [NODE22_DIR, TOOLS_DIR]) {
    await mkdir(dir, { recursive: true });
    if (!existsSync(join(dir, 'package.json')))
      await writeFile(join(dir, 'package.json'), `${JSON.stringify({ name: `mcp-gen-${basename(dir)}`, private: true }, null, 2)}\n`);
  }
  const npmInstall = (dir: string) => ['install', '--prefix', dir, '--no-audit', '--no-fund', '--save-exact'];
  if (installedVersion(join(NODE22_DIR, 'node_modules', 'node')) !== NODE22_VERSION || !existsSync(p.node))
    await run('npm', [...npmInstall(NODE22_DIR), `node@${NODE22_VERSION}`], NODE22_DIR, 240_000);
  await run(
    'npm',
    [...npmInstall(TOOLS_DIR), `@modelcontextprotocol/conformance@${CONFORMANCE_VERSION}`, `@modelcontextprotocol/inspector@${INSPECTOR_VERSION}`],
    TOOLS_DIR,
    240_000,
    p.path,
  );
  if (!node22ToolsInstalled()) throw new Error(`installing the Node 22 tools under .tmp/ did not produce ${JSON.stringify(p)}`);
  return p;
}

/** As in generated-project.ts: nothing npm put into our environment may leak into a nested npm. */
function npmEnv(path?: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^npm_/i.test(key) || key === 'NODE_OPTIONS' || key.startsWith('VITEST')) continue;
    env[key] = value;
  }
  env.NO_UPDATE_NOTIFIER = '1';
  if (path !== undefined) env.PATH = path;
  return env;
}

function run(command: string, args: string[], cwd: string, timeoutMs: number, path?: string): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    execFile(
      command,
      args,
      { cwd, env: npmEnv(path), timeout: timeoutMs, killSignal: 'SIGKILL', maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (!error) resolvePromise(stdout);
        else reject(new Error(`\`${command} ${args.join(' ')}\` failed in ${cwd}: ${error.message}\n${stderr}`));
      },
    );
  });
}

export interface ToolRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a Node 22 script (never rejects on a non-zero exit: the caller judges the output). */
export function runNode22(
  tools: Node22Tools,
  script: string,
  args: string[],
  options: { cwd?: string; env?: Record<string, string>; timeoutMs?: number } = {},
): Promise<ToolRun> {
  return new Promise((resolvePromise, reject) => {
    execFile(
      tools.node,
      [script, ...args],
      {
        cwd: options.cwd ?? REPO_ROOT,
        env: { ...npmEnv(tools.path), ...options.env },
        timeout: options.timeoutMs ?? 120_000,
        killSignal: 'SIGKILL',
        maxBuffer: 64 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        if (error && (error as { killed?: boolean }).killed)
          reject(new Error(`${script} ${args.join(' ')} was killed after its time limit\n${stdout}\n${stderr}`));
        else resolvePromise({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
      },
    );
  });
}
