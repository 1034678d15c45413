/**
 * GitHub's REST API description (@octokit/openapi, api.github.com.json: 1,223 operations) end to
 * end: generate, build with strict tsc, start and list with the v1 and v2 MCP clients,
 * Ajv-compile every input and output schema, and answer one tool call. Also measures what a big
 * API costs: generation time, build time, and the byte size of the tools/list response.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, expect, it } from 'vitest';
import { githubDocument } from '../support/corpus.js';
import {
  defineCorpusSuite,
  type ExpectedRejections,
  type KnownFailures,
} from '../support/corpus-suite.js';

const GITHUB_OPERATIONS = 1_223;

/** Real, reproduced generator/runtime bugs; each entry's test runs as it.fails. */
const KNOWN_FAILURES: KnownFailures = {};

const EXPECTED_REJECTIONS: ExpectedRejections = {};

const doc = githubDocument();
const suite = defineCorpusSuite({
  name: 'github',
  documents: [doc],
  knownFailures: KNOWN_FAILURES,
  expectedRejections: EXPECTED_REJECTIONS,
  concurrency: 1,
  buildConcurrency: 1,
});

const stats: Record<string, string> = {};

function generated() {
  const outcome = suite.state(doc.id).generate;
  if (outcome?.status !== 'generated')
    throw new Error(`github did not generate: ${JSON.stringify(outcome).slice(0, 2000)}`);
  return outcome;
}

it(`github: one tool per operation (${GITHUB_OPERATIONS})`, () => {
  const spec = JSON.parse(readFileSync(doc.file, 'utf8')) as {
    paths: Record<string, Record<string, unknown>>;
  };
  const methods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
  const operations = Object.values(spec.paths).reduce(
    (n, item) => n + methods.filter((m) => m in item).length,
    0,
  );
  expect(operations).toBe(GITHUB_OPERATIONS);
  const { generated: g, ms } = generated();
  expect(g.tools).toHaveLength(GITHUB_OPERATIONS);
  expect(new Set(g.tools.map((t) => t.name)).size).toBe(GITHUB_OPERATIONS);
  stats['generation (generate() + writeOutput)'] = `${ms} ms`;
  stats['tools.json'] =
    `${(readFileSync(`${generated().dir}/src/tools.json`).byteLength / 1e6).toFixed(1)} MB`;
  stats['build (tsc -b, one project)'] = `${suite.timings().buildMs} ms`;
  const schemas = suite.state(doc.id).schemas;
  stats['schemas compiled with Ajv'] =
    `${g.tools.length + g.tools.filter((t) => t.output).length} (${schemas?.source})`;
});

it('github: tools/list over raw stdio, timed and measured', async () => {
  const entry = suite.state(doc.id).build?.entry;
  if (!entry) throw new Error('github: the build wrote no dist/index.js');
  const server = new RawStdioServer(entry);
  try {
    const started = performance.now();
    const init = await server.request(1, 'initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'corpus', version: '0' },
    });
    expect(init.message).toHaveProperty('result.serverInfo');
    const ready = performance.now();
    server.notify('notifications/initialized');
    const listing = await server.request(2, 'tools/list', {});
    const listed = performance.now();
    const tools = (listing.message.result as { tools: unknown[] }).tools;
    expect(tools).toHaveLength(GITHUB_OPERATIONS);
    stats['start to initialize response'] = `${Math.round(ready - started)} ms`;
    stats['tools/list response'] =
      `${(listing.bytes / 1e6).toFixed(2)} MB (${listing.bytes} bytes, one JSON-RPC line) in ${Math.round(listed - ready)} ms`;
  } finally {
    await server.kill();
  }
});

/** A server on stdio, read line by line (each line parsed once, so a 7 MB answer is cheap to wait for). */
class RawStdioServer {
  private readonly child: ChildProcessWithoutNullStreams;
  private buffered = '';
  private readonly lines: string[] = [];
  private wake: (() => void) | undefined;
  private stderr = '';

  constructor(entry: string) {
    this.child = spawn(process.execPath, [entry], {
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        API_BASE_URL: 'http://127.0.0.1:9/',
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child.stdout.setEncoding('utf8');
    this.child.stderr.setEncoding('utf8');
    this.child.stderr.on('data', (chunk: string) => (this.stderr += chunk));
    this.child.stdout.on('data', (chunk: string) => {
      this.buffered += chunk;
      let newline: number;
      while ((newline = this.buffered.indexOf('\n')) !== -1) {
        this.lines.push(this.buffered.slice(0, newline));
        this.buffered = this.buffered.slice(newline + 1);
      }
      this.wake?.();
    });
  }

  notify(method: string): void {
    this.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method })}\n`);
  }

  async request(
    id: number,
    method: string,
    params: unknown,
  ): Promise<{ message: Record<string, unknown>; bytes: number }> {
    this.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    const deadline = Date.now() + 30_000;
    for (;;) {
      while (this.lines.length > 0) {
        const line = this.lines.shift()!;
        const message = JSON.parse(line) as Record<string, unknown>;
        if (message.id === id) return { message, bytes: Buffer.byteLength(line) };
      }
      if (Date.now() > deadline)
        throw new Error(`no answer to ${method} within 30 s; stderr:\n${this.stderr}`);
      await new Promise<void>((resolvePromise) => {
        const timer = setTimeout(resolvePromise, 1_000);
        this.wake = () => {
          clearTimeout(timer);
          resolvePromise();
        };
      });
    }
  }

  async kill(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((resolvePromise) => this.child.once('exit', resolvePromise));
    this.child.kill('SIGKILL');
    await exited;
  }
}

afterAll(() => {
  const v1 = suite.state(doc.id).clients.v1?.listMs;
  const v2 = suite.state(doc.id).clients.v2?.listMs;
  stats['start + list with the v1 / v2 client'] = `${v1 ?? '-'} ms / ${v2 ?? '-'} ms`;
  console.log(
    ['github stats:', ...Object.entries(stats).map(([k, v]) => `  ${k}: ${v}`)].join('\n'),
  );
});
