/**
 * Outside judges: the MCP conformance suite (`@modelcontextprotocol/conformance`, server scenarios)
 * and the MCP Inspector CLI, both run with Node 22 (installed with npm under `.tmp/`, see
 * node22-tools.ts), against generated servers over Streamable HTTP (and stdio for the Inspector).
 *
 * The suite's scenarios are written against its reference "everything" server: most call tools
 * with fixed names (`test_simple_text`, ...) or need prompts, resources, logging, sampling or
 * elicitation. So it runs twice:
 * - against the petstore server: the protocol-level scenarios must pass, and every other scenario
 *   must fail for its stated reason only (an unknown tool name or method), never for a transport
 *   problem;
 * - against fixtures/conformance/tools.yaml, an API whose operations carry the suite's tool names
 *   and answer with the content each scenario checks for: the tool-call scenarios must pass.
 * The scenario table is written to .tmp/conformance-results.md.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepareProject, REPO_ROOT, type PreparedProject } from '../support/generated-project.js';
import { startHttpServer, stopAllHttpServers, type HttpServerProcess } from '../support/http-server.js';
import {
  CONFORMANCE_VERSION,
  ensureNode22Tools,
  INSPECTOR_VERSION,
  node22ToolsInstalled,
  NODE22_VERSION,
  registryProblem,
  runNode22,
  type Node22Tools,
} from '../support/node22-tools.js';
import { delayed, json, startRecordingUpstream, text, type RecordingUpstream, type Route } from '../support/recording-upstream.js';

// The registry is needed only when the tools are not installed yet.
const unreachable = node22ToolsInstalled() ? undefined : await registryProblem();
if (unreachable) console.warn(`conformance.test.ts skipped: the npm registry is unreachable (${unreachable})`);

type Status = 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
interface Check {
  id: string;
  status: Status;
  errorMessage?: string;
}
/** Scenario name → its checks. */
type Results = Map<string, Check[]>;

/** Protocol-level scenarios every generated server must pass (warnings allowed, see the report). */
const PROTOCOL = ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection', 'server-sse-multiple-streams', 'server-sse-polling'];

/** Tool-call scenarios, run against the conformance fixture whose operations carry their tool names. */
const TOOL_CALLS = [
  'tools-call-simple-text',
  'tools-call-image',
  'tools-call-audio',
  'tools-call-embedded-resource',
  'tools-call-error',
  'tools-call-with-progress',
];

/** Scenarios that do not apply to a generated tools-only server, with the failure they must show. */
const NOT_APPLICABLE: Record<string, { why: string; fails: RegExp }> = {
  'logging-set-level': { why: 'no logging capability: logs are JSON lines on stderr (MCP logging is deprecated in 2026-07-28)', fails: /Method not found/ },
  'tools-call-with-logging': { why: 'needs logging/setLevel and log notifications (as above)', fails: /Method not found/ },
  'completion-complete': { why: 'no prompts or resource templates to complete', fails: /Method not found/ },
  'tools-call-mixed-content': { why: 'an API response has one content type, so a result has one kind of content', fails: /Tool test_multiple_content_types not found/ },
  'tools-call-sampling': { why: 'the server never asks the client to sample', fails: /Tool test_sampling not found/ },
  'tools-call-elicitation': { why: 'the server never asks the user for input', fails: /Tool test_elicitation not found/ },
  'elicitation-sep1034-defaults': { why: 'no elicitation (as above)', fails: /Tool test_elicitation_sep1034_defaults not found/ },
  'elicitation-sep1330-enums': { why: 'no elicitation (as above)', fails: /Tool test_elicitation_sep1330_enums not found/ },
  'json-schema-2020-12': {
    why: 'needs a tool named json_schema_2020_12_tool whose input schema declares $schema; generated input schemas are 2020-12 but do not declare it',
    fails: /json_schema_2020_12_tool' not found/,
  },
  'resources-list': { why: 'tools-only server: no resources', fails: /Method not found/ },
  'resources-read-text': { why: 'no resources', fails: /Method not found/ },
  'resources-read-binary': { why: 'no resources', fails: /Method not found/ },
  'resources-templates-read': { why: 'no resources', fails: /Method not found/ },
  'resources-subscribe': { why: 'no resources', fails: /Method not found/ },
  'resources-unsubscribe': { why: 'no resources', fails: /Method not found/ },
  'prompts-list': { why: 'tools-only server: no prompts', fails: /Method not found/ },
  'prompts-get-simple': { why: 'no prompts', fails: /Method not found/ },
  'prompts-get-with-args': { why: 'no prompts', fails: /Method not found/ },
  'prompts-get-embedded-resource': { why: 'no prompts', fails: /Method not found/ },
  'prompts-get-with-image': { why: 'no prompts', fails: /Method not found/ },
};

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);
/** 44-byte header of an empty 8 kHz mono PCM WAV file. */
const WAV = Buffer.from('UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQAAAAA=', 'base64');
const PDF = Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n');

function conformanceRoutes(): Route[] {
  const binary = (body: Buffer, type: string) => ({ status: 200, headers: { 'content-type': type }, body });
  return [
    { method: 'GET', path: '/conformance/simple-text', reply: text('Hello from the conformance upstream.') },
    { method: 'GET', path: '/conformance/image', reply: binary(PNG, 'image/png') },
    { method: 'GET', path: '/conformance/audio', reply: binary(WAV, 'audio/wav') },
    { method: 'GET', path: '/conformance/document', reply: binary(PDF, 'application/pdf') },
    { method: 'GET', path: '/conformance/error', reply: json({ message: 'upstream failure on purpose' }, 500) },
    // Slow enough for at least three of the server's progress ticks (every MCP_PROGRESS_INTERVAL_MS).
    { method: 'GET', path: '/conformance/slow', reply: delayed(1_200, json({ done: true })) },
  ];
}

const PETS = [{ id: 1, name: 'Rex', tag: 'dog' }];
const INVENTORY = { available: 7, pending: 0, sold: 12 };

function petstoreRoutes(): Route[] {
  return [
    { method: 'GET', path: '/v1/pets', reply: json(PETS) },
    { method: 'GET', path: '/v1/store/inventory', reply: json(INVENTORY) },
  ];
}

/** Reads `<dir>/server-<scenario>-<timestamp>/checks.json` for every scenario the suite ran. */
function readResults(dir: string): Results {
  const results: Results = new Map();
  for (const entry of readdirSync(dir)) {
    const match = /^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.exec(entry);
    if (!match) continue;
    results.set(match[1]!, JSON.parse(readFileSync(join(dir, entry, 'checks.json'), 'utf8')) as Check[]);
  }
  return results;
}

function failures(checks: Check[] | undefined): Check[] {
  return (checks ?? []).filter((c) => c.status === 'FAILURE');
}

function verdict(checks: Check[] | undefined): string {
  if (!checks) return 'not run';
  const count = (status: Status) => checks.filter((c) => c.status === status).length;
  const fail = count('FAILURE');
  const warn = count('WARNING');
  return fail > 0 ? `FAIL (${fail})` : warn > 0 ? `pass, ${warn} warning${warn > 1 ? 's' : ''}` : 'pass';
}

describe.skipIf(unreachable !== undefined)('with Node 22 tools', () => {
  let tools: Node22Tools;
  let upstream: RecordingUpstream;
  let petstore: PreparedProject;
  let conformanceProject: PreparedProject;
  let work: string;

  beforeAll(async () => {
    work = await mkdtemp(join(REPO_ROOT, '.tmp', 'conformance-'));
    upstream = await startRecordingUpstream([...petstoreRoutes(), ...conformanceRoutes()]);
    [tools, petstore, conformanceProject] = await Promise.all([
      ensureNode22Tools(),
      prepareProject('fixtures/petstore.yaml'),
      prepareProject('fixtures/conformance/tools.yaml'),
    ]);
  });

  afterAll(async () => {
    await stopAllHttpServers();
    await upstream?.stop();
    await petstore?.dispose();
    await conformanceProject?.dispose();
    if (work) await rm(work, { recursive: true, force: true });
  });

  it(`runs Node ${NODE22_VERSION}`, async () => {
    const run = await runNode22(tools, '-e', ['process.stdout.write(process.version)']);
    expect(run.stdout).toBe(`v${NODE22_VERSION}`);
  });

  describe(`MCP conformance suite ${CONFORMANCE_VERSION}, server scenarios over HTTP`, () => {
    let petstoreServer: HttpServerProcess;
    let toolsServer: HttpServerProcess;
    let onPetstore: Results;
    let onTools: Results;
    let scenarios: string[];

    async function suite(server: HttpServerProcess, name: string): Promise<Results> {
      const out = join(work, name);
      // `localhost`: the dns-rebinding scenario only applies to servers addressed as localhost.
      const run = await runNode22(tools, tools.conformance, ['server', '--url', `http://localhost:${server.port}/mcp`, '--suite', 'all', '-o', out], {
        timeoutMs: 120_000,
      });
      const results = readResults(out);
      if (results.size === 0) throw new Error(`the conformance suite produced no results (exit ${run.code})\n${run.stdout}\n${run.stderr}`);
      return results;
    }

    beforeAll(async () => {
      [petstoreServer, toolsServer] = await Promise.all([
        startHttpServer(petstore.entry, { env: { API_BASE_URL: upstream.url('/v1') } }),
        startHttpServer(conformanceProject.entry, {
          env: { API_BASE_URL: upstream.url('/conformance'), MCP_PROGRESS_INTERVAL_MS: '200' },
        }),
      ]);
      const listed = await runNode22(tools, tools.conformance, ['list', '--server']);
      scenarios = [...listed.stdout.matchAll(/^\s+- (\S+)/gm)].map((m) => m[1]!);
      // One after the other: both servers share this machine's two cores with the suite.
      onPetstore = await suite(petstoreServer, 'petstore');
      onTools = await suite(toolsServer, 'tools');
      await writeFile(join(REPO_ROOT, '.tmp', 'conformance-results.md'), report(scenarios, onPetstore, onTools));
    });

    it('every scenario of the suite is accounted for here (protocol, tool call, or not applicable)', () => {
      expect(scenarios.length).toBeGreaterThan(20);
      const known = new Set([...PROTOCOL, ...TOOL_CALLS, ...Object.keys(NOT_APPLICABLE)]);
      expect(scenarios.filter((s) => !known.has(s))).toEqual([]);
      expect([...onPetstore.keys()].sort()).toEqual([...scenarios].sort());
    });

    it.each(PROTOCOL)('%s passes against the petstore server', (scenario) => {
      const checks = onPetstore.get(scenario);
      expect(checks, `${scenario} did not run`).toBeDefined();
      expect(failures(checks), JSON.stringify(checks, null, 2)).toEqual([]);
    });

    it.each(PROTOCOL)('%s passes against the conformance-tools server too', (scenario) => {
      expect(failures(onTools.get(scenario)), JSON.stringify(onTools.get(scenario), null, 2)).toEqual([]);
    });

    it('dns-rebinding-protection really ran both of its checks', () => {
      expect(onPetstore.get('dns-rebinding-protection')?.map((c) => `${c.id}: ${c.status}`).sort()).toEqual([
        'localhost-host-rebinding-rejected: SUCCESS',
        'localhost-host-valid-accepted: SUCCESS',
      ]);
    });

    it.each(TOOL_CALLS)('%s passes against the server generated from fixtures/conformance/tools.yaml', (scenario) => {
      const checks = onTools.get(scenario);
      expect(checks?.length, `${scenario} did not run`).toBeGreaterThan(0);
      expect(checks!.every((c) => c.status === 'SUCCESS'), JSON.stringify(checks, null, 2)).toBe(true);
    });

    it.each(TOOL_CALLS)('%s fails against petstore only because petstore has no tool of that name', (scenario) => {
      for (const check of failures(onPetstore.get(scenario))) expect(check.errorMessage).toMatch(/Tool test_\w+ not found/);
    });

    const notApplicable = Object.entries(NOT_APPLICABLE).map(([scenario, { why, fails }]) => [scenario, why, fails] as const);
    it.each(notApplicable)('%s is not applicable (%s) and fails only for that reason', (scenario, _why, fails) => {
      for (const results of [onPetstore, onTools]) {
        const failed = failures(results.get(scenario));
        expect(failed.length, `${scenario} passed: move it out of NOT_APPLICABLE`).toBeGreaterThan(0);
        for (const check of failed) expect(check.errorMessage, JSON.stringify(check)).toMatch(fails);
      }
    });
  });

  describe(`MCP Inspector CLI ${INSPECTOR_VERSION}`, () => {
    let home: string;

    beforeAll(async () => {
      // The Inspector keeps a catalog and storage under HOME; keep them out of the real one.
      home = await mkdtemp(join(work, 'home-'));
    });

    async function inspector(args: string[]): Promise<unknown> {
      const run = await runNode22(tools, tools.inspector, ['--cli', ...args], {
        env: { HOME: home, MCP_CATALOG_PATH: join(home, 'mcp.json') },
        timeoutMs: 60_000,
      });
      expect(run.code, `inspector ${args.join(' ')}\n${run.stdout}\n${run.stderr}`).toBe(0);
      return JSON.parse(run.stdout);
    }

    const petNames = () => petstore.generated.tools.map((t) => t.name).sort();

    it('over stdio: tools/list and tools/call (the server runs on this Node, spawned by the Inspector)', async () => {
      const server = ['-e', `API_BASE_URL=${upstream.url('/v1')}`, process.execPath, petstore.entry];
      const listed = (await inspector([...server, '--method', 'tools/list'])) as { tools: Array<{ name: string }> };
      expect(listed.tools.map((t) => t.name).sort()).toEqual(petNames());

      upstream.clearRequests();
      const called = (await inspector([...server, '--method', 'tools/call', '--tool-name', 'listPets', '--tool-arg', 'limit=2', 'status=sold'])) as {
        structuredContent?: unknown;
        isError?: boolean;
      };
      expect(called.isError).toBeFalsy();
      expect(called.structuredContent).toEqual({ result: PETS });
      expect(upstream.requests.map((r) => `${r.method} ${r.path}?${r.rawQuery}`)).toEqual(['GET /v1/pets?limit=2&status=sold']);
    });

    it('over HTTP: tools/list and tools/call', async () => {
      const server = await startHttpServer(petstore.entry, { env: { API_BASE_URL: upstream.url('/v1') } });
      try {
        const target = [server.url, '--transport', 'http'];
        const listed = (await inspector([...target, '--method', 'tools/list'])) as { tools: Array<{ name: string }> };
        expect(listed.tools.map((t) => t.name).sort()).toEqual(petNames());
        const called = (await inspector([...target, '--method', 'tools/call', '--tool-name', 'getInventory'])) as { structuredContent?: unknown };
        expect(called.structuredContent).toEqual(INVENTORY);
      } finally {
        await server.stop();
      }
    });

    it('over HTTP with MCP_AUTH_TOKEN: works with --header, refused without', async () => {
      const token = 'inspector-e2e-token-9d1f';
      const server = await startHttpServer(petstore.entry, { env: { API_BASE_URL: upstream.url('/v1'), MCP_AUTH_TOKEN: token } });
      try {
        const target = [server.url, '--transport', 'http'];
        const called = (await inspector([...target, '--header', `Authorization: Bearer ${token}`, '--method', 'tools/call', '--tool-name', 'getInventory'])) as {
          structuredContent?: unknown;
        };
        expect(called.structuredContent).toEqual(INVENTORY);
        const refused = await runNode22(tools, tools.inspector, ['--cli', ...target, '--method', 'tools/list'], {
          env: { HOME: home, MCP_CATALOG_PATH: join(home, 'mcp.json') },
          timeoutMs: 60_000,
        });
        // The Inspector answers the 401 challenge by starting OAuth, which needs a terminal.
        expect(refused.code).not.toBe(0);
        expect(`${refused.stdout}${refused.stderr}`).toMatch(/401|Unauthorized|invalid_token|auth_required/i);
      } finally {
        await server.stop();
      }
    });
  });
});

function report(scenarios: string[], onPetstore: Results, onTools: Results): string {
  const kind = (s: string) =>
    PROTOCOL.includes(s) ? 'protocol' : TOOL_CALLS.includes(s) ? 'tool call' : NOT_APPLICABLE[s] ? `n/a: ${NOT_APPLICABLE[s]!.why}` : 'unclassified';
  const lines = [
    `# MCP conformance ${CONFORMANCE_VERSION} against generated servers over Streamable HTTP`,
    '',
    '| Scenario | Kind | petstore | conformance tools | Notes |',
    '| --- | --- | --- | --- | --- |',
  ];
  for (const s of scenarios) {
    const notes = [...(onPetstore.get(s) ?? []), ...(onTools.get(s) ?? [])]
      .filter((c) => c.status === 'WARNING' || c.status === 'FAILURE')
      .map((c) => (c.errorMessage ?? c.id).slice(0, 90));
    lines.push(`| ${s} | ${kind(s)} | ${verdict(onPetstore.get(s))} | ${verdict(onTools.get(s))} | ${[...new Set(notes)].join('; ')} |`);
  }
  return `${lines.join('\n')}\n`;
}
