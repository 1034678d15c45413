/**
 * The corpus pipeline: real-world OpenAPI documents taken end to end, cheaply enough to run a
 * whole collection in a few minutes.
 *
 * 1. generate — in-process `generate()` + `writeOutput()` into `.tmp/corpus/<name>/`.
 * 2. build — every project's own tsconfig, compiled by the TypeScript the generated package.json
 *    pins. Generated projects all declare the same dependencies, so they are installed once into
 *    `.tmp/corpus/_deps/<hash>` and symlinked as each project's `node_modules` (checked: a project
 *    whose package.json declares other dependencies fails its build stage). The projects are built
 *    by two `tsc -b` processes at a time, each building up to 20 projects: `tsc -b` parses the
 *    shared declaration files once per process, so a project costs ~1.3 s of CPU instead of the
 *    ~3-4 s of its own `tsc -p`.
 * 3. start + list — `node dist/index.js` over stdio, with the v1 and the v2 MCP client.
 * 4. call — one tool per document whose required arguments can be synthesized from its input
 *    schema, answered by a recording upstream on 127.0.0.1 with a value synthesized from the
 *    tool's output schema (or a plain body of the media type the tool accepts).
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { mkdir, rm, stat, symlink, writeFile, readFile } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import type { ToolDefinition } from '../../runtime/types.js';
import { formatDiagnostic, McpGenError, type Diagnostic } from '../../src/diagnostics.js';
import { generate, type Generated } from '../../src/generate.js';
import { writeOutput } from '../../src/write/write-output.js';
import { REPO_ROOT } from './generated-project.js';
import { ExampleSynthesizer } from './json-schema-examples.js';
import {
  connectClient,
  type ClientKind,
  type ListedTool,
  type ToolCallResult,
} from './mcp-clients.js';
import { startRecordingUpstream, type RecordedRequest, type Reply } from './recording-upstream.js';
import { createClientAjv } from './schema-checks.js';
import { within } from './server-process.js';

export const CORPUS_TMP_ROOT = join(REPO_ROOT, '.tmp', 'corpus');
export const SHARED_DEPS_DIR = join(CORPUS_TMP_ROOT, '_deps');
const OAS_EXAMPLES_ROOT = join(REPO_ROOT, 'node_modules', '@readme', 'oas-examples');
export const GITHUB_SPEC = join(
  REPO_ROOT,
  'node_modules',
  '@octokit',
  'openapi',
  'generated',
  'api.github.com.json',
);

/** Where the generated servers send their API calls: a recording upstream, under this base path. */
export const UPSTREAM_BASE_PATH = '/corpus-api';

export interface CorpusDocument {
  /** Stable, readable id used in test names and KNOWN_FAILURES, e.g. `3.0/openapi-workshop/post`. */
  id: string;
  /** Absolute path of the spec. */
  file: string;
  /** Folder name under `.tmp/corpus/`. */
  dirName: string;
}

// ---------------------------------------------------------------------------------------------
// documents

/** Every JSON document of `@readme/oas-examples/<version>/json`, subfolders included, sorted. */
export function oasExampleDocuments(version: '2.0' | '3.0' | '3.1'): CorpusDocument[] {
  const base = join(OAS_EXAMPLES_ROOT, version, 'json');
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir).sort()) {
      const path = join(dir, entry);
      if (statSync(path).isDirectory()) walk(path);
      else if (entry.endsWith('.json')) files.push(path);
    }
  };
  walk(base);
  return files.map((file) => {
    const id = `${version}/${relative(base, file)
      .split(sep)
      .join('/')
      .replace(/\.json$/, '')}`;
    return { id, file, dirName: `oas-${id.replace(/\//g, '-')}` };
  });
}

export function githubDocument(): CorpusDocument {
  return { id: 'github', file: GITHUB_SPEC, dirName: 'github' };
}

// ---------------------------------------------------------------------------------------------
// stage 1: generate

export type GenerateOutcome =
  | { status: 'generated'; generated: Generated; dir: string; ms: number }
  /** The generator refused the document as invalid: exit code 1 with a SPEC_INVALID diagnostic. */
  | { status: 'rejected'; diagnostic: Diagnostic; message: string; ms: number }
  /** Anything else: an exception that is not a clear SPEC_INVALID rejection. */
  | { status: 'crashed'; error: string; ms: number };

export async function generateDocument(doc: CorpusDocument): Promise<GenerateOutcome> {
  const started = performance.now();
  const ms = () => Math.round(performance.now() - started);
  let generated: Generated;
  try {
    generated = await generate(doc.file);
  } catch (error) {
    if (
      error instanceof McpGenError &&
      error.diagnostic.code === 'SPEC_INVALID' &&
      error.exitCode === 1 &&
      error.diagnostic.pointer !== undefined
    ) {
      return {
        status: 'rejected',
        diagnostic: error.diagnostic,
        message: formatDiagnostic(error.diagnostic),
        ms: ms(),
      };
    }
    const text =
      error instanceof McpGenError
        ? `McpGenError (exit ${error.exitCode}): ${formatDiagnostic(error.diagnostic)}`
        : `${(error as Error).stack ?? String(error)}`;
    return { status: 'crashed', error: text, ms: ms() };
  }
  const dir = join(CORPUS_TMP_ROOT, doc.dirName);
  try {
    await rm(dir, { recursive: true, force: true });
    writeOutput(dir, generated.files, false);
  } catch (error) {
    return {
      status: 'crashed',
      error: `writeOutput failed: ${(error as Error).stack ?? String(error)}`,
      ms: ms(),
    };
  }
  return { status: 'generated', generated, dir, ms: ms() };
}

// ---------------------------------------------------------------------------------------------
// shared dependencies

interface PackageJson {
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

/** What `npm install` depends on in a generated package.json. */
export function dependencyKey(dir: string): string {
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as PackageJson;
  return JSON.stringify({
    dependencies: pkg.dependencies ?? {},
    devDependencies: pkg.devDependencies ?? {},
  });
}

const INSTALL_TIMEOUT_MS = 240_000;

/**
 * Installs the dependencies of generated projects once, into `.tmp/corpus/_deps/<hash of the
 * dependency list>` (reused by later runs), and returns its node_modules. A new dependency list gets
 * a new folder, so a run never pulls node_modules from under another run's servers.
 */
export async function ensureSharedDeps(dependencies: string): Promise<string> {
  const hash = createHash('sha256').update(dependencies).digest('hex').slice(0, 16);
  const dir = join(SHARED_DEPS_DIR, hash);
  const modules = join(dir, 'node_modules');
  const marker = join(dir, '.installed');
  if (existsSync(marker)) return modules;
  const release = await acquireLock(`deps-${hash}`, INSTALL_TIMEOUT_MS + 60_000);
  try {
    if (existsSync(marker)) return modules;
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir, { recursive: true });
    const { dependencies: deps, devDependencies: devDeps } = JSON.parse(
      dependencies,
    ) as PackageJson;
    await writeFile(
      join(dir, 'package.json'),
      `${JSON.stringify({ name: 'mcp-gen-corpus-deps', private: true, type: 'module', dependencies: deps, devDependencies: devDeps }, null, 2)}\n`,
    );
    await run(
      'npm',
      ['install', '--no-audit', '--no-fund', '--prefer-offline'],
      dir,
      INSTALL_TIMEOUT_MS,
    );
    await writeFile(marker, dependencies);
    return modules;
  } finally {
    await release();
  }
}

/**
 * An exclusive lock between processes (a folder under `.tmp/corpus/_locks` holding the owner's
 * pid), for work on shared folders: two test runs at once (say `npm test` in one terminal and
 * `vitest run test/corpus` in another) would otherwise regenerate each other's projects
 * mid-build. A lock whose owner process is gone is taken over. Resolves with the release function.
 */
export async function acquireLock(name: string, timeoutMs: number): Promise<() => Promise<void>> {
  const locks = join(CORPUS_TMP_ROOT, '_locks');
  const lock = join(locks, name);
  await mkdir(locks, { recursive: true });
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await mkdir(lock);
      await writeFile(join(lock, 'owner'), String(process.pid));
      return () => rm(lock, { recursive: true, force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const owner = Number(await readFile(join(lock, 'owner'), 'utf8').catch(() => ''));
    const age = Date.now() - (await stat(lock).catch(() => ({ mtimeMs: Date.now() }))).mtimeMs;
    // No owner file yet is normal for a moment after mkdir; for longer, the owner died in between.
    if ((owner > 0 && !isAlive(owner)) || (!(owner > 0) && age > 10_000)) {
      await rm(lock, { recursive: true, force: true });
      continue;
    }
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${lock} (held by pid ${owner})`);
    await new Promise((resolvePromise) => setTimeout(resolvePromise, 1_000));
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export async function linkSharedDeps(dir: string, modules: string): Promise<void> {
  const link = join(dir, 'node_modules');
  await rm(link, { recursive: true, force: true });
  await symlink(modules, link, 'dir');
}

/**
 * Dummy credentials, the way a user configures a generated server: every variable the project's
 * `.env.example` lists under "Credentials for the API" gets a recognisable value. (Schemes with an
 * OAuth token endpoint also list a ready access token, which the runtime uses instead of fetching
 * one, so nothing leaves 127.0.0.1.)
 */
export function dummyCredentials(dir: string): Record<string, string> {
  const text = readFileSync(join(dir, '.env.example'), 'utf8');
  const start = text.indexOf('# Credentials for the API');
  if (start === -1) return {};
  const env: Record<string, string> = {};
  for (const line of text.slice(start).split('\n').slice(1)) {
    const match = /^# ([A-Z][A-Z0-9_]*)=$/.exec(line.trim());
    if (match && !match[1]!.startsWith('MCP_'))
      env[match[1]!] = `corpus-${match[1]!.toLowerCase()}`;
  }
  return env;
}

// ---------------------------------------------------------------------------------------------
// stage 2: build

export interface BuildOutcome {
  /** tsc reported no error for the project. */
  ok: boolean;
  /** tsc's diagnostics for this project (file paths relative to `.tmp/corpus`). */
  errors: string[];
  /** dist/index.js was written (tsc emits despite type errors, so a server may still start). */
  entry?: string;
}

const BUILD_TIMEOUT_MS = 300_000;

/** One `tsc -b` process keeps every project it built in memory (~25 MB each); this bounds it. */
const MAX_PROJECTS_PER_TSC = 20;

/**
 * Builds the projects with their own tsconfig.json, with `tsc -b` processes of at most
 * MAX_PROJECTS_PER_TSC projects each, `concurrency` at a time. `tsc -b` parses the shared
 * declaration files once for all its projects. The TypeScript is the one generated projects pin
 * (from the shared node_modules).
 */
export async function buildProjects(
  dirs: string[],
  modules: string,
  concurrency = 2,
): Promise<Map<string, BuildOutcome>> {
  const tsc = join(modules, 'typescript', 'bin', 'tsc');
  const count = Math.max(concurrency, Math.ceil(dirs.length / MAX_PROJECTS_PER_TSC));
  const groups: string[][] = Array.from(
    { length: Math.max(1, Math.min(count, dirs.length)) },
    () => [],
  );
  // Largest first, each to the lightest group, so the batches take about as long.
  const weighed = dirs.map((dir) => ({
    dir,
    weight: 1 + statSync(join(dir, 'src', 'tools.json')).size / 200_000,
  }));
  weighed.sort((a, b) => b.weight - a.weight);
  const load = groups.map(() => 0);
  for (const { dir, weight } of weighed) {
    const lightest = load.indexOf(Math.min(...load));
    groups[lightest]!.push(dir);
    load[lightest]! += weight;
  }
  const outputs = await mapLimit(
    groups.filter((g) => g.length > 0),
    concurrency,
    async (group) => {
      for (const dir of group) await rm(join(dir, 'dist'), { recursive: true, force: true });
      const args = [
        tsc,
        '-b',
        '--force',
        '--pretty',
        'false',
        ...group.map((dir) => join(dir, 'tsconfig.json')),
      ];
      const { code, stdout, stderr } = await runCapture(
        process.execPath,
        args,
        CORPUS_TMP_ROOT,
        BUILD_TIMEOUT_MS,
      );
      return { group, code, text: `${stdout}\n${stderr}` };
    },
  );
  const results = new Map<string, BuildOutcome>();
  for (const { group, code, text } of outputs) {
    const lines = text.split('\n').filter((l) => l.trim() !== '');
    // Diagnostics start with a path relative to the cwd (or absolute); continuation lines are indented.
    const byDir = new Map<string, string[]>(group.map((dir) => [dir, []]));
    const unattributed: string[] = [];
    let current: string[] | undefined;
    for (const line of lines) {
      if (/^\s/.test(line) && current) {
        current.push(line);
        continue;
      }
      const abs = resolve(CORPUS_TMP_ROOT, line.split('(')[0]!.split(':')[0]!);
      const dir = group.find((d) => abs === d || abs.startsWith(d + sep));
      current = dir ? byDir.get(dir) : unattributed;
      current!.push(line);
    }
    const anyAttributed = group.some((dir) => byDir.get(dir)!.length > 0);
    for (const dir of group) {
      const entry = join(dir, 'dist', 'index.js');
      const written = existsSync(entry);
      const errors = [...byDir.get(dir)!, ...unattributed];
      // A failed tsc that printed nothing we can attribute fails every project of its batch.
      if (code !== 0 && errors.length === 0 && !anyAttributed)
        errors.push(`tsc -b exited ${code} without a diagnostic`);
      if (errors.length === 0 && !written)
        errors.push(`tsc reported no error but ${entry} was not written`);
      results.set(dir, { ok: errors.length === 0, errors, ...(written ? { entry } : {}) });
    }
  }
  return results;
}

// ---------------------------------------------------------------------------------------------
// stage 3 + 4: start, list, call

export interface ToolChoice {
  tool: ToolDefinition;
  args: Record<string, unknown>;
  argsNote: string;
  /** How the upstream answers the call. */
  reply: Reply;
  /** The reply is JSON valid against the tool's output schema (or the tool declares none). */
  replyConforms: boolean;
  replyNote: string;
}

export type CallPlan =
  { status: 'chosen'; choice: ToolChoice } | { status: 'none'; reasons: string[] };

/**
 * The first tool whose required arguments can be synthesized (and validate against its
 * inputSchema). It is called with its optional arguments too, where they can be synthesized, so the
 * call exercises as much of the request serialization as the tool has (query styles, headers,
 * cookies, body encodings); when those do not validate, with the required ones only.
 */
export function chooseTool(tools: readonly ToolDefinition[]): CallPlan {
  const reasons: string[] = [];
  for (const tool of tools) {
    const required = new ExampleSynthesizer(tool.inputSchema);
    const args = required.synthesize();
    if (!args.ok) {
      reasons.push(`${tool.name}: ${args.reason}`);
      continue;
    }
    if (!required.validates(args.value)) {
      reasons.push(
        `${tool.name}: synthesized arguments do not validate: ${required.errorsFor(args.value)}`,
      );
      continue;
    }
    const all = new ExampleSynthesizer(tool.inputSchema, { fillOptional: true, optionalDepth: 3 });
    const full = all.synthesize();
    const useFull = full.ok && all.validates(full.value);
    return {
      status: 'chosen',
      choice: {
        tool,
        args: (useFull ? full.value : args.value) as Record<string, unknown>,
        argsNote: useFull ? 'required and optional arguments' : 'required arguments only',
        ...replyFor(tool),
      },
    };
  }
  return { status: 'none', reasons };
}

const PNG_1x1 = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==',
  'base64',
);

/** A sensible 200 answer: JSON from the output schema, else a body of the first media type the tool accepts. */
function replyFor(tool: ToolDefinition): Pick<ToolChoice, 'reply' | 'replyConforms' | 'replyNote'> {
  const json = (value: unknown): Reply => ({
    status: 200,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(value),
  });
  if (tool.output) {
    const synthesizer = new ExampleSynthesizer(tool.output.schema, {
      fillOptional: true,
      optionalDepth: 4,
    });
    const structured = synthesizer.synthesize();
    if (structured.ok && synthesizer.validates(structured.value)) {
      const wrapKey = tool.output.wrapKey;
      const value =
        wrapKey !== undefined
          ? (structured.value as Record<string, unknown>)[wrapKey]
          : structured.value;
      return {
        reply: json(value),
        replyConforms: true,
        replyNote: 'JSON synthesized from the output schema',
      };
    }
    return {
      reply: json({}),
      replyConforms: false,
      replyNote: `{} (no value could be synthesized from the output schema: ${structured.ok ? 'invalid' : structured.reason})`,
    };
  }
  const accept = (tool.http.accept ?? []).map((t) => t.split(';')[0]!.trim().toLowerCase());
  const first =
    accept.find((t) => t === 'application/json' || t.endsWith('+json') || t === '*/*') ?? accept[0];
  if (
    first === undefined ||
    first === '*/*' ||
    first === 'application/json' ||
    first.endsWith('+json')
  ) {
    return {
      reply: json({}),
      replyConforms: true,
      replyNote: '{} (the tool declares no output schema)',
    };
  }
  const concrete = first.includes('*')
    ? first.replace('*', first.startsWith('image/') ? 'png' : 'plain')
    : first;
  if (concrete.startsWith('text/') || /[+/](xml|yaml|csv)$/.test(concrete)) {
    return {
      reply: { status: 200, headers: { 'content-type': concrete }, body: 'example text' },
      replyConforms: true,
      replyNote: concrete,
    };
  }
  const body = concrete.startsWith('image/') ? PNG_1x1 : Buffer.from('example bytes');
  return {
    reply: { status: 200, headers: { 'content-type': concrete }, body },
    replyConforms: true,
    replyNote: concrete,
  };
}

export interface ClientOutcome {
  kind: ClientKind;
  serverName?: string;
  listed?: ListedTool[];
  listError?: string;
  listMs?: number;
  /** Everything the server wrote to stderr during the session (after the call's log line, if any). */
  stderr?: string;
  call?: {
    result?: ToolCallResult;
    error?: string;
    requests: RecordedRequest[];
    ms: number;
  };
}

const CALL_TIMEOUT_MS = 30_000;
const CONNECT_TIMEOUT_MS = 30_000;

/** Starts the server with one client, lists its tools and (when a tool was chosen) calls it. */
export async function exerciseServer(
  entry: string,
  kind: ClientKind,
  plan: CallPlan,
  env: Record<string, string> = {},
): Promise<ClientOutcome> {
  const upstream = await startRecordingUpstream([
    {
      method: '*',
      path: /.*/,
      reply: plan.status === 'chosen' ? plan.choice.reply : { status: 200, body: '{}' },
    },
  ]);
  const outcome: ClientOutcome = { kind };
  try {
    const started = performance.now();
    let client;
    try {
      const connecting = connectClient(kind, {
        entry,
        env: { ...env, API_BASE_URL: upstream.url(UPSTREAM_BASE_PATH) },
      });
      const connected = await within(connecting, CONNECT_TIMEOUT_MS);
      if (connected === 'timeout') {
        void connecting.then((c) => c.close()).catch(() => undefined);
        throw new Error(
          `the server did not complete the MCP handshake within ${CONNECT_TIMEOUT_MS} ms`,
        );
      }
      client = connected;
    } catch (error) {
      outcome.listError = (error as Error).message;
      return outcome;
    }
    try {
      outcome.serverName = client.serverInfo()?.name;
      try {
        const listed = await within(client.listTools(), CALL_TIMEOUT_MS);
        if (listed === 'timeout')
          throw new Error(`tools/list did not answer within ${CALL_TIMEOUT_MS} ms`);
        outcome.listed = listed;
        outcome.listMs = Math.round(performance.now() - started);
      } catch (error) {
        outcome.listError = `${(error as Error).message}\n--- server stderr ---\n${client.stderr().slice(-4000)}`;
        return outcome;
      }
      if (plan.status !== 'chosen') return outcome;
      const callStarted = performance.now();
      upstream.clearRequests();
      try {
        const result = await within(
          client.callTool(plan.choice.tool.name, plan.choice.args),
          CALL_TIMEOUT_MS,
        );
        if (result === 'timeout')
          throw new Error(`tools/call did not answer within ${CALL_TIMEOUT_MS} ms`);
        outcome.call = {
          result,
          requests: [...upstream.requests],
          ms: Math.round(performance.now() - callStarted),
        };
      } catch (error) {
        outcome.call = {
          error: `${(error as Error).message}\n--- server stderr ---\n${client.stderr().slice(-4000)}`,
          requests: [...upstream.requests],
          ms: Math.round(performance.now() - callStarted),
        };
      }
      await client.waitForStderr(/"event":"tool_call"/, 2_000).catch(() => undefined);
      return outcome;
    } finally {
      outcome.stderr = client.stderr();
      await client.close().catch(() => undefined);
    }
  } finally {
    await upstream.stop();
  }
}

// ---------------------------------------------------------------------------------------------
// checks on the outcomes (each returns the problems; [] means it passed)

export function listProblems(outcome: ClientOutcome, planned: readonly ToolDefinition[]): string[] {
  if (outcome.listError !== undefined)
    return [`the server did not start or list its tools: ${outcome.listError}`];
  const listed = outcome.listed ?? [];
  const problems: string[] = [];
  if (!outcome.serverName) problems.push('initialize returned no serverInfo.name');
  if (listed.length !== planned.length)
    problems.push(`listed ${listed.length} tools, planned ${planned.length}`);
  const names = listed.map((t) => t.name);
  const plannedNames = planned.map((t) => t.name);
  const missing = plannedNames.filter((n) => !names.includes(n));
  const extra = names.filter((n) => !plannedNames.includes(n));
  if (missing.length) problems.push(`planned but not listed: ${missing.slice(0, 10).join(', ')}`);
  if (extra.length) problems.push(`listed but not planned: ${extra.slice(0, 10).join(', ')}`);
  if (new Set(names).size !== names.length) problems.push('duplicate tool names in tools/list');
  for (const tool of listed) {
    if (!/^[a-zA-Z0-9_-]{1,64}$/.test(tool.name))
      problems.push(`tool name ${JSON.stringify(tool.name)} is not client-safe`);
    const plan = planned.find((t) => t.name === tool.name);
    if (!plan) continue;
    if (!isDeepStrictEqual(tool.inputSchema, plan.inputSchema)) {
      problems.push(`${tool.name}: the listed inputSchema differs from the planned one`);
    }
    const plannedOutput = plan.output?.schema;
    if (!isDeepStrictEqual(tool.outputSchema, plannedOutput)) {
      problems.push(`${tool.name}: the listed outputSchema differs from the planned one`);
    }
  }
  return problems;
}

/** README: "Logs go to stderr as JSON lines" — every stderr line is a JSON object with an event. */
export function stderrProblems(outcome: ClientOutcome): string[] {
  if (outcome.stderr === undefined)
    return [`no server session (${outcome.listError ?? 'not started'})`];
  const bad = outcome.stderr
    .split('\n')
    .filter((line) => line.trim() !== '')
    .filter((line) => {
      try {
        const value = JSON.parse(line) as { event?: unknown };
        return typeof value !== 'object' || value === null || typeof value.event !== 'string';
      } catch {
        return true;
      }
    });
  return bad.length === 0
    ? []
    : [
        `${outcome.kind} session: ${bad.length} stderr line(s) are not JSON log events, e.g.:\n  ${[...new Set(bad)].slice(0, 3).join('\n  ')}`,
      ];
}

const CONTENT_TYPES = new Set(['text', 'image', 'audio', 'resource', 'resource_link']);

/** A well-formed CallToolResult for this tool, from a request that reached the upstream as expected. */
export function callProblems(
  outcome: ClientOutcome,
  choice: ToolChoice,
  credentials: Record<string, string> = {},
  /** Security schemes the document declares in a form the generator supports. */
  declaredSchemes: readonly string[] = [],
): string[] {
  const call = outcome.call;
  if (!call) return [`no call was made (${outcome.listError ?? 'listing failed'})`];
  const sent = `${choice.tool.name}(${JSON.stringify(choice.args).slice(0, 1000)})`;
  if (call.error !== undefined) return [`the client threw on ${sent}: ${call.error}`];
  const result = call.result!;
  const problems: string[] = [];
  const parsed = CallToolResultSchema.safeParse(result);
  if (!parsed.success)
    problems.push(`not a valid CallToolResult: ${parsed.error.message.slice(0, 1000)}`);
  if (!Array.isArray(result.content)) problems.push('content is not an array');
  for (const [i, block] of (Array.isArray(result.content) ? result.content : []).entries()) {
    const b = block as Record<string, unknown>;
    if (!CONTENT_TYPES.has(String(b.type)))
      problems.push(`content[${i}] has type ${JSON.stringify(b.type)}`);
    if (b.type === 'text' && typeof b.text !== 'string')
      problems.push(`content[${i}].text is not a string`);
    if (
      (b.type === 'image' || b.type === 'audio') &&
      (typeof b.data !== 'string' || typeof b.mimeType !== 'string')
    ) {
      problems.push(`content[${i}] (${String(b.type)}) needs string data and mimeType`);
    }
    if (b.type === 'resource') {
      const r = b.resource as Record<string, unknown> | undefined;
      if (
        typeof r?.uri !== 'string' ||
        (typeof r.text !== 'string' && typeof r.blob !== 'string')
      ) {
        problems.push(`content[${i}].resource needs a uri and text or blob`);
      }
    }
  }
  if (result.isError !== undefined && typeof result.isError !== 'boolean')
    problems.push('isError is not a boolean');
  const listedTool = outcome.listed?.find((t) => t.name === choice.tool.name);
  if (listedTool?.outputSchema && result.isError !== true) {
    if (
      typeof result.structuredContent !== 'object' ||
      result.structuredContent === null ||
      Array.isArray(result.structuredContent)
    ) {
      problems.push(
        'the tool declares an outputSchema and isError is not true, but structuredContent is missing',
      );
    } else {
      const validate = createClientAjv().compile(listedTool.outputSchema);
      if (!validate(result.structuredContent)) {
        problems.push(
          `structuredContent does not match the outputSchema: ${JSON.stringify(validate.errors).slice(0, 500)}`,
        );
      }
    }
  }
  const text = (Array.isArray(result.content) ? result.content : [])
    .map((b) => (b.type === 'text' ? b.text : `[${b.type}]`))
    .join('\n');
  // Every credential the document declares is configured, so a call is only refused when each way
  // to authorize it names a scheme that is not declared (or not supported): that call must be
  // refused with a message about credentials, never sent as if the operation were public.
  const unsatisfiable =
    needsCredentials(choice) &&
    (choice.tool.http.security ?? []).every((alternative) =>
      alternative.some((requirement) => !declaredSchemes.includes(requirement.scheme)),
    );
  if (unsatisfiable) {
    if (result.isError === true && call.requests.length === 0 && /credential/i.test(text)) {
      return problems;
    }
    const schemes = (choice.tool.http.security ?? [])
      .map((alternative) => alternative.map((r) => r.scheme).join(' + '))
      .join(' | ');
    problems.push(
      `the operation needs credentials of schemes the document does not declare (${schemes}): ` +
        `the call must be refused with an error, but ${call.requests.length} request(s) were sent ` +
        `(${call.requests.map((r) => `${r.method} ${r.path} cookie=${JSON.stringify(r.headers.cookie ?? '')} authorization=${JSON.stringify(r.headers.authorization ?? '')}`).join(', ')}) ` +
        `and the result was ${result.isError === true ? 'an error' : 'a success'}: ${text.slice(0, 300)}`,
    );
    return problems;
  }
  // The request reached the upstream as the tool describes it.
  const expectedPath = pathPattern(choice.tool.http.path);
  if (call.requests.length !== 1) {
    problems.push(`expected exactly one upstream request, got ${call.requests.length}`);
  }
  for (const request of call.requests.slice(0, 1)) {
    if (request.method !== choice.tool.http.method) {
      problems.push(`upstream got ${request.method}, the tool is ${choice.tool.http.method}`);
    }
    if (!expectedPath.test(request.path) && !expectedPath.test(safeDecode(request.path))) {
      problems.push(
        `upstream got path ${request.path}, expected ${UPSTREAM_BASE_PATH}${choice.tool.http.path}`,
      );
    }
  }
  if (call.requests[0]) {
    problems.push(...deliveryProblems(choice, call.requests[0]));
    problems.push(...credentialProblems(choice, call.requests[0], credentials));
  }
  // Valid arguments and an answer that matches the documented response: the call must succeed.
  if (result.isError === true && choice.replyConforms) {
    const request = call.requests[0];
    problems.push(
      `isError for valid arguments and a documented answer (${choice.replyNote}):\n` +
        `  call: ${sent}\n` +
        `  request: ${request ? `${request.method} ${request.path}${request.rawQuery ? `?${request.rawQuery}` : ''}` : 'none'}\n` +
        `  result: ${text.slice(0, 2000)}`,
    );
  }
  return problems;
}

/** Header parameters the runtime deliberately never sends (OpenAPI says to ignore some; the rest could reframe the request). */
const NEVER_SENT_HEADERS = new Set([
  'accept',
  'content-type',
  'cookie',
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'expect',
  'proxy-authorization',
  'proxy-connection',
]);

/** Every argument that was given reached the request under its wire name (values are not re-serialized here). */
function deliveryProblems(choice: ToolChoice, request: RecordedRequest): string[] {
  const problems: string[] = [];
  const queryKeys = request.query.map(([key]) => key);
  const cookieNames = (typeof request.headers.cookie === 'string' ? request.headers.cookie : '')
    .split(';')
    .map((pair) => pair.split('=')[0]!.trim());
  let bodyGiven = false;
  for (const binding of choice.tool.http.arguments) {
    const value = choice.args[binding.arg];
    if (value === undefined || value === null) continue;
    if (typeof value === 'object' && Object.keys(value).length === 0) continue; // [] and {} may be left out
    if (binding.in === 'body') {
      bodyGiven = true;
      continue;
    }
    const exploded =
      isPlainObject(value) &&
      binding.style === 'form' &&
      binding.explode &&
      binding.contentType === undefined;
    if (binding.in === 'query') {
      const expected = exploded ? Object.keys(value) : [binding.name];
      const found =
        binding.style === 'deepObject' && binding.contentType === undefined
          ? queryKeys.some((k) => k.startsWith(`${binding.name}[`))
          : expected.every((name) => queryKeys.includes(name));
      if (!found)
        problems.push(
          `argument ${binding.arg} (query ${binding.name}) is missing from the query string ?${request.rawQuery}`,
        );
    } else if (binding.in === 'header') {
      if (NEVER_SENT_HEADERS.has(binding.name.toLowerCase())) continue;
      if (request.headers[binding.name.toLowerCase()] === undefined) {
        problems.push(`argument ${binding.arg} (header ${binding.name}) was not sent`);
      }
    } else if (binding.in === 'cookie') {
      const expected = exploded ? Object.keys(value) : [binding.name];
      if (!expected.every((name) => cookieNames.includes(name))) {
        problems.push(
          `argument ${binding.arg} (cookie ${binding.name}) is missing from the Cookie header ${JSON.stringify(request.headers.cookie ?? '')}`,
        );
      }
    }
  }
  const method = choice.tool.http.method;
  if (bodyGiven && method !== 'GET' && method !== 'HEAD' && request.body === '') {
    problems.push('a body argument was given but the request has no body');
  }
  return problems;
}

/** An operation that needs credentials sends one of the configured ones (header, query or cookie). */
function credentialProblems(
  choice: ToolChoice,
  request: RecordedRequest,
  credentials: Record<string, string>,
): string[] {
  if (!needsCredentials(choice)) return [];
  const security = choice.tool.http.security ?? [];
  const seen: string[] = [request.rawQuery];
  for (const value of Object.values(request.headers))
    seen.push(...(Array.isArray(value) ? value : [String(value)]));
  const basic = /^Basic\s+(\S+)/i.exec(String(request.headers.authorization ?? ''));
  if (basic) seen.push(Buffer.from(basic[1]!, 'base64').toString('utf8'));
  const values = Object.values(credentials);
  if (values.some((value) => seen.some((text) => text.includes(value)))) return [];
  const schemes = security
    .map((alternative) => alternative.map((s) => s.scheme).join(' + '))
    .join(' | ');
  return [`the operation needs credentials (${schemes}); none of the configured ones was sent`];
}

/** The tool's operation requires credentials (it has security and no empty alternative). */
function needsCredentials(choice: ToolChoice): boolean {
  const security = choice.tool.http.security ?? [];
  return security.length > 0 && !security.some((alternative) => alternative.length === 0);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The wire path of a path template: `{params}` match one segment; a `#fragment` or `?query` in the key is not part of it. */
function pathPattern(template: string): RegExp {
  const path = template.split('#')[0]!.split('?')[0]!;
  const source = path
    .split(/(\{[^}]*\})/)
    .map((part) => (part.startsWith('{') ? '[^/]*' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${UPSTREAM_BASE_PATH}${source}$`);
}

function safeDecode(path: string): string {
  try {
    return decodeURI(path);
  } catch {
    return path;
  }
}

// ---------------------------------------------------------------------------------------------
// helpers

/** Runs `fn` over `items` with at most `limit` at a time; results keep the items' order. */
export async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** The environment for a nested npm (what npx/npm put into ours would redirect it here). */
function npmEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^npm_/i.test(key) || key === 'NODE_OPTIONS' || key.startsWith('VITEST')) continue;
    env[key] = value;
  }
  env.NO_UPDATE_NOTIFIER = '1';
  return env;
}

function runCapture(
  command: string,
  args: string[],
  cwd: string,
  timeoutMs: number,
): Promise<{ code: number | string; stdout: string; stderr: string }> {
  return new Promise((resolvePromise) => {
    execFile(
      command,
      args,
      {
        cwd,
        env: npmEnv(),
        timeout: timeoutMs,
        killSignal: 'SIGKILL',
        maxBuffer: 64 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        const code = error
          ? error.killed
            ? `killed after ${timeoutMs} ms`
            : (error.code ?? 'error')
          : 0;
        resolvePromise({ code, stdout, stderr });
      },
    );
  });
}

async function run(command: string, args: string[], cwd: string, timeoutMs: number): Promise<void> {
  const { code, stdout, stderr } = await runCapture(command, args, cwd, timeoutMs);
  if (code !== 0) {
    throw new Error(
      `\`${command} ${args.join(' ')}\` failed in ${cwd} (${code})\n--- stdout ---\n${stdout}\n--- stderr ---\n${stderr}`,
    );
  }
}
