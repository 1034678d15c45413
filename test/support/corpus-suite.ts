/**
 * Declares the vitest suite for a list of corpus documents: one `describe` per document with one
 * test per stage, so a failure names the document and the stage:
 *
 * - generate: in-process generate() + writeOutput(), or a clear SPEC_INVALID rejection (exit code
 *   1, JSON pointer) for a document listed in EXPECTED_REJECTIONS;
 * - build: strict tsc with the generated tsconfig.json;
 * - list-v1 / list-v2: the server starts on stdio and lists exactly the planned tools, with the
 *   planned schemas, to the v1 and v2 MCP clients;
 * - schemas: every listed input/output schema compiles with Ajv 2020 as MCP clients configure it,
 *   is valid 2020-12, has no OpenAPI/draft-04 leftovers and no duplicate enum values;
 * - call-v1 / call-v2: one tool answers a well-formed CallToolResult (see corpus.ts callProblems);
 * - stderr: the server wrote only JSON log lines to stderr during both sessions (README contract).
 *
 * The work runs once, batched, in `beforeAll` (see corpus.ts); the tests assert on its outcomes. A
 * summary table (pass rate per stage) is printed in `afterAll` and written to
 * `.tmp/corpus/_summary/<name>.json`; the last suite of a run also prints the whole-corpus table.
 *
 * Known generator/runtime bugs are listed per document and stage in the test file's
 * KNOWN_FAILURES; such a test runs as `it.fails`, so it starts failing the day the bug is fixed and
 * the entry must be removed. Any rejection not listed in EXPECTED_REJECTIONS fails.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import {
  CORPUS_TMP_ROOT,
  acquireLock,
  buildProjects,
  callProblems,
  chooseTool,
  dependencyKey,
  dummyCredentials,
  ensureSharedDeps,
  exerciseServer,
  generateDocument,
  linkSharedDeps,
  listProblems,
  mapLimit,
  stderrProblems,
  type BuildOutcome,
  type CallPlan,
  type ClientOutcome,
  type CorpusDocument,
  type GenerateOutcome,
} from './corpus.js';
import { REPO_ROOT } from './generated-project.js';
import { CLIENT_KINDS, type ClientKind } from './mcp-clients.js';
import { schemaProblems, type SchemaProblem } from './schema-checks.js';

export const STAGES = [
  'generate',
  'build',
  'list-v1',
  'list-v2',
  'schemas',
  'call-v1',
  'call-v2',
  'stderr',
] as const;
export type Stage = (typeof STAGES)[number];

/** docId → stage → why it fails (a real, reproduced generator/runtime bug). */
export type KnownFailures = Record<string, Partial<Record<Stage, string>>>;
/** docId → why the document is invalid (so rejecting it is right). */
export type ExpectedRejections = Record<string, string>;

export interface CorpusSuiteOptions {
  /** Names the summary, e.g. `oas-examples 3.0`. */
  name: string;
  documents: CorpusDocument[];
  knownFailures: KnownFailures;
  expectedRejections: ExpectedRejections;
  /** Servers exercised at once (each spawns a node process per client). */
  concurrency?: number;
  /** Concurrent `tsc -b` processes. */
  buildConcurrency?: number;
  /** Time limit of the whole beforeAll pipeline. */
  timeoutMs?: number;
}

export interface DocumentState {
  doc: CorpusDocument;
  generate?: GenerateOutcome;
  build?: BuildOutcome;
  plan?: CallPlan;
  clients: Partial<Record<ClientKind, ClientOutcome>>;
  /** Dummy values for the credentials the project's .env.example lists. */
  credentials: Record<string, string>;
  schemas?: { source: 'listed' | 'planned'; problems: SchemaProblem[]; count: number };
}

export interface Timings {
  generateMs: number;
  installMs: number;
  buildMs: number;
  runMs: number;
}

export interface CorpusSuite {
  state(docId: string): DocumentState;
  timings(): Timings;
}

type Evaluation =
  { problems: string[] } | { blocked: string; status: 'blocked' | 'rejected' | 'no-tool' };

export function defineCorpusSuite(options: CorpusSuiteOptions): CorpusSuite {
  const { documents, knownFailures, expectedRejections } = options;
  const ids = new Set(documents.map((d) => d.id));
  for (const [id, stages] of Object.entries(knownFailures)) {
    if (!ids.has(id))
      throw new Error(`KNOWN_FAILURES names ${id}, which is not a document of this suite`);
    for (const stage of Object.keys(stages)) {
      if (!(STAGES as readonly string[]).includes(stage))
        throw new Error(`KNOWN_FAILURES[${id}] names unknown stage ${stage}`);
    }
  }
  for (const id of Object.keys(expectedRejections)) {
    if (!ids.has(id))
      throw new Error(`EXPECTED_REJECTIONS names ${id}, which is not a document of this suite`);
  }

  const states = new Map<string, DocumentState>(
    documents.map((doc) => [doc.id, { doc, clients: {}, credentials: {} }]),
  );
  const timings: Timings = { generateMs: 0, installMs: 0, buildMs: 0, runMs: 0 };
  let pipelineError: Error | undefined;

  let release: (() => Promise<void>) | undefined;
  beforeAll(
    async () => {
      try {
        // Another run of this suite (e.g. someone's `npm test`) would regenerate these projects mid-build.
        release = await acquireLock(
          `suite-${options.name.replace(/[^a-z0-9.-]+/gi, '-')}`,
          900_000,
        );
        await runPipeline(options, states, timings);
      } catch (error) {
        pipelineError = error as Error;
        throw error;
      }
    },
    (options.timeoutMs ?? 600_000) + 900_000,
  );

  const state = (id: string): DocumentState => {
    if (pipelineError) throw new Error(`the corpus pipeline failed: ${pipelineError.message}`);
    return states.get(id)!;
  };

  const evaluate = (id: string, stage: Stage): Evaluation => {
    const s = state(id);
    const gen = s.generate;
    if (stage === 'generate') {
      if (!gen) return { problems: ['not generated (pipeline did not reach it)'] };
      const rejection = expectedRejections[id];
      if (gen.status === 'generated') {
        return {
          problems: rejection
            ? [`expected a SPEC_INVALID rejection (${rejection}), but it generated`]
            : [],
        };
      }
      if (gen.status === 'rejected') {
        return { problems: rejection ? [] : [`a valid document was rejected:\n${gen.message}`] };
      }
      return { problems: [`generation crashed:\n${gen.error}`] };
    }
    if (!gen || gen.status !== 'generated') {
      return gen?.status === 'rejected'
        ? { blocked: 'rejected as an invalid spec', status: 'rejected' }
        : { blocked: 'generation failed', status: 'blocked' };
    }
    const planned = gen.generated.tools;
    switch (stage) {
      case 'build':
        return { problems: s.build ? s.build.errors : ['not built'] };
      case 'schemas':
        return {
          problems: (s.schemas?.problems ?? []).map((p) => `${p.tool} ${p.where}: ${p.problem}`),
        };
      case 'list-v1':
      case 'list-v2': {
        if (!s.build?.entry)
          return { blocked: 'the build wrote no dist/index.js', status: 'blocked' };
        const outcome = s.clients[stage === 'list-v1' ? 'v1' : 'v2'];
        return { problems: outcome ? listProblems(outcome, planned) : ['not started'] };
      }
      case 'call-v1':
      case 'call-v2': {
        if (!s.build?.entry)
          return { blocked: 'the build wrote no dist/index.js', status: 'blocked' };
        if (s.plan?.status !== 'chosen') {
          const why = s.plan?.reasons.length ? s.plan.reasons.join('\n') : 'it has no tools';
          return {
            blocked: `no tool whose required arguments can be synthesized: ${why}`,
            status: 'no-tool',
          };
        }
        const outcome = s.clients[stage === 'call-v1' ? 'v1' : 'v2'];
        if (!outcome?.listed)
          return { blocked: 'the server did not list its tools', status: 'blocked' };
        const declared = Object.keys(gen.generated.spec.model.securitySchemes ?? {});
        return { problems: callProblems(outcome, s.plan.choice, s.credentials, declared) };
      }
      case 'stderr': {
        if (!s.build?.entry)
          return { blocked: 'the build wrote no dist/index.js', status: 'blocked' };
        return {
          problems: CLIENT_KINDS.flatMap((kind) =>
            s.clients[kind] ? stderrProblems(s.clients[kind]) : [`${kind}: not started`],
          ),
        };
      }
    }
  };

  const status = (id: string, stage: Stage): Status => {
    const e = evaluate(id, stage);
    if ('blocked' in e) return e.status;
    const known = knownFailures[id]?.[stage] !== undefined;
    if (
      e.problems.length === 0 &&
      stage === 'generate' &&
      state(id).generate?.status === 'rejected'
    )
      return 'rejected';
    if (e.problems.length === 0) return known ? 'fixed' : 'pass';
    return known ? 'known' : 'fail';
  };

  const TITLES: Record<Stage, string> = {
    generate: 'generates (or is rejected with a clear SPEC_INVALID diagnostic)',
    build: 'builds with strict tsc (the generated tsconfig)',
    'list-v1': 'starts and lists every planned tool (v1 client)',
    'list-v2': 'starts and lists every planned tool (v2 client)',
    schemas: 'every input/output schema compiles with Ajv 2020 (client mode) and is clean',
    'call-v1': 'answers a tool call with a well-formed result (v1 client)',
    'call-v2': 'answers a tool call with a well-formed result (v2 client)',
    stderr: 'writes only JSON log lines to stderr (both client sessions)',
  };

  describe.each(documents.map((doc) => [doc.id, doc] as const))('%s', (_id, doc) => {
    for (const stage of STAGES) {
      const known = knownFailures[doc.id]?.[stage];
      const body = async (ctx: TestContext) => {
        const e = evaluate(doc.id, stage);
        if ('blocked' in e) {
          ctx.skip(`${e.status}: ${e.blocked}`);
          return;
        }
        if (stage === 'call-v1' || stage === 'call-v2') {
          const s = state(doc.id);
          if (s.plan?.status === 'chosen') await ctx.annotate(`called ${s.plan.choice.tool.name}`);
        }
        expect(e.problems, `${doc.id} ${stage}:\n${e.problems.join('\n\n')}`).toEqual([]);
      };
      if (known) it.fails(`${TITLES[stage]} [KNOWN FAILURE: ${known}]`, body);
      else it(TITLES[stage], body);
    }
  });

  afterAll(async () => {
    await release?.();
    if (pipelineError) return;
    const perDocument: DocumentSummary[] = documents.map((doc) => {
      const s = states.get(doc.id)!;
      const gen = s.generate;
      return {
        id: doc.id,
        tools: gen?.status === 'generated' ? gen.generated.tools.length : null,
        generateMs: gen?.ms ?? null,
        call:
          s.plan?.status === 'chosen'
            ? {
                tool: s.plan.choice.tool.name,
                args: s.plan.choice.args,
                argsNote: s.plan.choice.argsNote,
                reply: s.plan.choice.replyNote,
              }
            : { none: s.plan?.reasons ?? [] },
        results: Object.fromEntries(
          CLIENT_KINDS.map((kind) => {
            const call = s.clients[kind]?.call;
            const first = call?.result?.content?.[0];
            return [
              kind,
              call === undefined
                ? null
                : call.error !== undefined
                  ? { threw: call.error.slice(0, 300) }
                  : {
                      isError: call.result?.isError ?? false,
                      first:
                        first?.type === 'text' ? String(first.text).slice(0, 200) : first?.type,
                      request: call.requests.map((r) =>
                        `${r.method} ${r.path}${r.rawQuery ? `?${r.rawQuery}` : ''}`.slice(0, 300),
                      ),
                    },
            ];
          }),
        ),
        stages: Object.fromEntries(STAGES.map((stage) => [stage, status(doc.id, stage)])) as Record<
          Stage,
          Status
        >,
      };
    });
    const summary: SuiteSummary = { name: options.name, runId: RUN_ID, timings, perDocument };
    const dir = join(CORPUS_TMP_ROOT, '_summary');
    await mkdir(dir, { recursive: true });
    await writeFile(
      join(dir, `${options.name.replace(/[^a-z0-9.-]+/gi, '-')}.json`),
      JSON.stringify(summary, null, 2),
    );
    const t = timings;
    console.log(
      formatSummary(`${options.name} (${documents.length} documents)`, perDocument, [
        `timings: generate ${t.generateMs} ms, shared install ${t.installMs} ms, build ${t.buildMs} ms, start/list/call ${t.runMs} ms`,
      ]),
    );
    // The last corpus file of a run also prints the table for the whole corpus.
    const all = (await readdir(dir))
      .filter((f) => f.endsWith('.json'))
      .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as SuiteSummary)
      .filter((other) => other.runId === RUN_ID);
    const suiteFiles = readdirSync(join(REPO_ROOT, 'test', 'corpus')).filter((f) =>
      f.endsWith('.test.ts'),
    ).length;
    if (all.length >= suiteFiles && all.length > 1) {
      const docs = all.flatMap((other) => other.perDocument);
      console.log(
        formatSummary(
          `whole corpus: ${all.map((o) => o.name).join(' + ')} (${docs.length} documents)`,
          docs,
          [],
        ),
      );
    }
  });

  return { state, timings: () => timings };
}

async function runPipeline(
  options: CorpusSuiteOptions,
  states: Map<string, DocumentState>,
  timings: Timings,
): Promise<void> {
  // 1. generate, one document at a time (in-process, CPU-bound)
  let started = performance.now();
  for (const s of states.values()) s.generate = await generateDocument(s.doc);
  timings.generateMs = Math.round(performance.now() - started);

  const generated = [...states.values()].filter((s) => s.generate?.status === 'generated');
  const dirOf = (s: DocumentState) =>
    (s.generate as Extract<GenerateOutcome, { status: 'generated' }>).dir;
  if (generated.length === 0) return;

  // 2. one shared install; every project must declare exactly the same dependencies
  started = performance.now();
  const key = dependencyKey(dirOf(generated[0]!));
  const modules = await ensureSharedDeps(key);
  timings.installMs = Math.round(performance.now() - started);
  const buildable: DocumentState[] = [];
  for (const s of generated) {
    const own = dependencyKey(dirOf(s));
    if (own !== key) {
      s.build = {
        ok: false,
        errors: [
          `its package.json dependencies differ from the shared install:\n${own}\nvs\n${key}`,
        ],
      };
      continue;
    }
    await linkSharedDeps(dirOf(s), modules);
    buildable.push(s);
  }

  // 3. build, in a few tsc -b processes
  started = performance.now();
  const built = await buildProjects(buildable.map(dirOf), modules, options.buildConcurrency ?? 2);
  for (const s of buildable) s.build = built.get(dirOf(s));
  timings.buildMs = Math.round(performance.now() - started);

  // 4. choose a tool to call; start with both clients; list; call; check the schemas
  started = performance.now();
  for (const s of generated)
    s.plan = chooseTool(
      (s.generate as Extract<GenerateOutcome, { status: 'generated' }>).generated.tools,
    );
  await mapLimit(generated, options.concurrency ?? 3, async (s) => {
    const entry = s.build?.entry;
    if (entry) {
      s.credentials = dummyCredentials(dirOf(s));
      for (const kind of CLIENT_KINDS) {
        s.clients[kind] = await exerciseServer(entry, kind, s.plan!, s.credentials);
      }
    }
    const listed = s.clients.v2?.listed ?? s.clients.v1?.listed;
    const tools =
      listed ??
      (s.generate as Extract<GenerateOutcome, { status: 'generated' }>).generated.tools.map(
        (t) => ({
          name: t.name,
          inputSchema: t.inputSchema,
          ...(t.output ? { outputSchema: t.output.schema } : {}),
        }),
      );
    s.schemas = {
      source: listed ? 'listed' : 'planned',
      problems: schemaProblems(tools),
      count: tools.length,
    };
  });
  timings.runMs = Math.round(performance.now() - started);
}

/** Identifies one vitest run: the fork workers of a run share their parent (the vitest process). */
const RUN_ID = `${process.ppid}`;

type Status = 'pass' | 'fail' | 'known' | 'fixed' | 'rejected' | 'blocked' | 'no-tool';
const STATUSES: Status[] = ['pass', 'fail', 'known', 'fixed', 'rejected', 'blocked', 'no-tool'];

interface DocumentSummary {
  id: string;
  tools: number | null;
  generateMs: number | null;
  call: unknown;
  results?: unknown;
  stages: Record<Stage, Status>;
}

interface SuiteSummary {
  name: string;
  runId: string;
  timings: Timings;
  perDocument: DocumentSummary[];
}

/** A document as a whole: the worst of its stages (a rejected document counts as rejected). */
function overall(stages: Record<Stage, Status>): Status {
  const values = Object.values(stages);
  for (const s of ['rejected', 'fail', 'fixed', 'known', 'blocked', 'no-tool'] as const)
    if (values.includes(s)) return s;
  return 'pass';
}

export function formatSummary(title: string, docs: DocumentSummary[], notes: string[]): string {
  const rows: Array<[string, Record<Status, number>]> = [
    ...STAGES.map(
      (stage) =>
        [stage, count(docs.map((d) => d.stages[stage]))] as [string, Record<Status, number>],
    ),
    ['all stages', count(docs.map((d) => overall(d.stages)))],
  ];
  const header = ['stage', ...STATUSES, 'total', 'pass rate'];
  const lines = rows.map(([stage, counts]) => [
    stage,
    ...STATUSES.map((s) => String(counts[s])),
    String(docs.length),
    `${((100 * counts.pass) / Math.max(1, docs.length)).toFixed(1)}%`,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const fmt = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [
    `corpus summary: ${title}`,
    fmt(header),
    fmt(widths.map((w) => '-'.repeat(w))),
    ...lines.map(fmt),
    ...notes,
    'known = listed in KNOWN_FAILURES and still failing; fixed = listed but passing (that test fails: remove the entry);',
    'rejected = refused as an invalid spec (EXPECTED_REJECTIONS); no-tool = no tool whose required arguments can be synthesized;',
    'blocked = an earlier stage left nothing to test. pass rate = pass / total.',
  ].join('\n');
}

function count(statuses: Status[]): Record<Status, number> {
  const counts = Object.fromEntries(STATUSES.map((s) => [s, 0])) as Record<Status, number>;
  for (const s of statuses) counts[s] += 1;
  return counts;
}
