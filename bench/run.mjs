#!/usr/bin/env node
// Side-by-side benchmark: mcp-gen vs openapi-mcp-generator@4.0.1 on a small and a large spec.
//
//   node bench/run.mjs [--runs N] [--only small|github]
//
// Per tool and spec: generation wall time and peak RSS, output size and file count, npm install
// (once, timed separately), `npm run build` time and result, and for successful builds the MCP
// stdio server's time from spawn to the initialize response plus tools/list latency, size and tool
// count. Times are medians over the runs; the runs alternate between the tools so drift in machine
// load affects both alike. Writes a markdown table to stdout and everything to
// bench/results/latest.json.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { killGroup, probeMcpServer } from './lib/stdio-rpc.mjs';

const BENCH = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(BENCH, '..');
const OUT = path.join(BENCH, '.out');
const PEERS = path.join(BENCH, '.peers');
const RESULTS = path.join(BENCH, 'results');

const PEER_PACKAGE = 'openapi-mcp-generator';
const PEER_VERSION = '4.0.1';
const PROTOCOL_VERSION = '2025-11-25';
const NPM_INSTALL_ARGS = ['install', '--prefer-offline', '--no-audit', '--no-fund'];

const TIMEOUT = {
  generate: 5 * 60_000,
  install: 10 * 60_000,
  build: 10 * 60_000,
  server: 2 * 60_000,
  peerInstall: 5 * 60_000,
};

const SPECS = {
  small: { file: path.join(ROOT, 'fixtures/openapi-3.0/petstore.yaml'), defaultRuns: 3 },
  github: { file: path.join(ROOT, 'node_modules/@octokit/openapi/generated/api.github.com.json'), defaultRuns: 3 },
};

// ---------------------------------------------------------------------------------------------
// Arguments

function parseArgs(argv) {
  const opts = { runs: undefined, only: undefined };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const [flag, inline] = arg.startsWith('--') && arg.includes('=') ? arg.split(/=(.*)/s) : [arg, undefined];
    const value = () => inline ?? argv[++i];
    if (flag === '--runs') {
      const n = Number(value());
      if (!Number.isInteger(n) || n < 1) usage(`--runs needs a positive integer`);
      opts.runs = n;
    } else if (flag === '--only') {
      const v = value();
      if (!(v in SPECS)) usage(`--only must be one of: ${Object.keys(SPECS).join(', ')}`);
      opts.only = v;
    } else if (flag === '-h' || flag === '--help') {
      usage();
    } else {
      usage(`unknown argument: ${arg}`);
    }
  }
  return opts;
}

function usage(problem) {
  const text = `usage: node bench/run.mjs [--runs N] [--only ${Object.keys(SPECS).join('|')}]
  --runs N   runs per tool and spec (default: ${Object.entries(SPECS)
    .map(([k, s]) => `${s.defaultRuns} for ${k}`)
    .join(', ')})
  --only X   benchmark one spec only`;
  if (problem) {
    console.error(`${problem}\n${text}`);
    process.exit(2);
  }
  console.log(text);
  process.exit(0);
}

// ---------------------------------------------------------------------------------------------
// Processes

const TIME_BIN = ['/usr/bin/time', '/bin/time'].find((p) => existsSync(p) && isGnuTime(p));

function isGnuTime(p) {
  const r = spawnSync(p, ['-f', '%M', '-o', '/dev/null', 'true'], { stdio: 'ignore' });
  return r.status === 0;
}

/**
 * Spawns a command in its own process group and waits for it, with a timeout that kills the whole
 * group. Resolves (never rejects) with { code, signal, ms, stdout, stderr, timedOut, error, maxRssKb }.
 */
function run(command, args, { cwd, env = process.env, timeoutMs, measureRss = false } = {}) {
  let rssFile;
  if (measureRss && TIME_BIN) {
    rssFile = path.join(os.tmpdir(), `mcp-gen-bench-rss-${process.pid}-${Math.random().toString(36).slice(2)}`);
    args = ['-f', '%M', '-o', rssFile, command, ...args];
    command = TIME_BIN;
  }
  return new Promise((resolve) => {
    const started = performance.now();
    let ms;
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    let spawnError;
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const cap = (s, chunk) => (s.length < 4 * 1024 * 1024 ? s + chunk.toString('utf8') : s);
    child.stdout.on('data', (c) => (stdout = cap(stdout, c)));
    child.stderr.on('data', (c) => (stderr = cap(stderr, c)));
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child, 'SIGTERM');
      setTimeout(() => killGroup(child, 'SIGKILL'), 5_000).unref();
    }, timeoutMs ?? 10 * 60_000);
    child.on('exit', () => (ms = performance.now() - started));
    child.on('error', (error) => (spawnError = error));
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      ms ??= performance.now() - started;
      let maxRssKb;
      if (rssFile) {
        try {
          // GNU time writes "Command exited with non-zero status N" before the format on failure.
          const lines = readFileSync(rssFile, 'utf8').trim().split('\n');
          const n = Number(lines[lines.length - 1]);
          if (Number.isFinite(n) && n > 0) maxRssKb = n;
        } catch {
          /* no RSS */
        }
        rmSync(rssFile, { force: true });
      }
      resolve({ code, signal, ms, stdout, stderr, timedOut, error: spawnError, maxRssKb });
    });
  });
}

/** A one-line reason for a failed run(). */
function failureReason(r, what) {
  if (r.error) return `${what}: ${r.error.message}`;
  if (r.timedOut) return `${what}: timed out after ${Math.round(r.ms / 1000)} s`;
  const text = `${r.stderr}\n${r.stdout}`;
  const tsError = text.split('\n').find((l) => /error TS\d+/.test(l));
  if (tsError) return tsError.trim();
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !/^npm (warn|notice)/i.test(l) && !/complete log of this run/i.test(l));
  const errLine = lines.find((l) => /error/i.test(l)) ?? lines[lines.length - 1] ?? '';
  return `${what} exited ${r.signal ?? r.code}${errLine ? `: ${errLine}` : ''}`.slice(0, 400);
}

const npmBin = process.platform === 'win32' ? 'npm.cmd' : 'npm';

// ---------------------------------------------------------------------------------------------
// Tools under test

function ensurePeer() {
  const pkgFile = path.join(PEERS, 'node_modules', PEER_PACKAGE, 'package.json');
  const installed = () => {
    try {
      return JSON.parse(readFileSync(pkgFile, 'utf8')).version === PEER_VERSION;
    } catch {
      return false;
    }
  };
  if (installed()) return undefined;
  log(`installing ${PEER_PACKAGE}@${PEER_VERSION} into ${path.relative(ROOT, PEERS)} ...`);
  mkdirSync(PEERS, { recursive: true });
  const r = spawnSync(
    npmBin,
    ['install', '--prefix', PEERS, '--save-exact', '--no-audit', '--no-fund', `${PEER_PACKAGE}@${PEER_VERSION}`],
    { encoding: 'utf8', timeout: TIMEOUT.peerInstall },
  );
  if (r.status !== 0 || !installed()) {
    const lines = `${r.stderr ?? ''}\n${r.stdout ?? ''}`
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !/^npm warn/i.test(l) && !/complete log of this run/i.test(l));
    const line = lines.find((l) => /error/i.test(l)) ?? lines.pop();
    return `npm install of ${PEER_PACKAGE}@${PEER_VERSION} failed${r.error ? `: ${r.error.message}` : line ? `: ${line}` : ''}`;
  }
  return undefined;
}

function peerBinPath() {
  const dir = path.join(PEERS, 'node_modules', PEER_PACKAGE);
  const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));
  const bin = typeof pkg.bin === 'string' ? pkg.bin : pkg.bin[PEER_PACKAGE] ?? Object.values(pkg.bin)[0];
  return path.join(dir, bin);
}

function mcpGenVersion() {
  return JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version;
}

const TOOLS = [
  {
    id: 'mcp-gen',
    label: `mcp-gen ${mcpGenVersion()}`,
    check: () =>
      existsSync(path.join(ROOT, 'dist/src/cli/main.js'))
        ? undefined
        : 'dist/src/cli/main.js missing: build mcp-gen first (npx tsc -p .)',
    args: (spec, out) => [path.join(ROOT, 'bin/mcp-gen.js'), spec, '-o', out],
  },
  {
    id: 'peer',
    label: `${PEER_PACKAGE} ${PEER_VERSION}`,
    check: ensurePeer,
    args: (spec, out) => [peerBinPath(), '--input', spec, '--output', out, '--transport', 'stdio'],
  },
];

// ---------------------------------------------------------------------------------------------
// Measurements

const BUILD_OUTPUT_DIRS = new Set(['node_modules', 'dist', 'build']);

/** Generated files, excluding node_modules and build output; sizes and per-file content hashes. */
function outputStats(dir) {
  let bytes = 0;
  let files = 0;
  const fileHashes = {};
  const walk = (rel) => {
    const entries = readdirSync(path.join(dir, rel), { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name));
    for (const e of entries) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) {
        if (!rel && BUILD_OUTPUT_DIRS.has(e.name)) continue;
        walk(r);
      } else if (e.isFile()) {
        const content = readFileSync(path.join(dir, r));
        bytes += content.length;
        files += 1;
        fileHashes[r] = createHash('sha256').update(content).digest('hex');
      }
    }
  };
  walk('');
  return { bytes, files, fileHashes };
}

/** The server entry: package.json "main" (dist/index.js for mcp-gen, build/index.js for the peer). */
function serverEntry(projectDir) {
  try {
    const main = JSON.parse(readFileSync(path.join(projectDir, 'package.json'), 'utf8')).main;
    if (main) return main;
  } catch {
    /* fall through */
  }
  return ['dist/index.js', 'build/index.js'].find((p) => existsSync(path.join(projectDir, p))) ?? 'dist/index.js';
}

/** Paths whose content (or presence) differs between any run and run 1. */
function filesDiffering(runs) {
  if (runs.length < 2) return [];
  const paths = new Set(runs.flatMap((r) => Object.keys(r)));
  return [...paths].filter((p) => runs.some((r) => r[p] !== runs[0][p])).sort();
}

/** Warning-like lines a generator printed (first run only), deduplicated, at most 10. */
function generatorWarnings(text) {
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => /\b(warn(ing)?|fail(ed|ure)?|error|cycle)\b/i.test(l) && !/^npm (warn|notice)/i.test(l));
  return [...new Set(lines)].slice(0, 10).map((l) => l.slice(0, 300));
}

function median(values) {
  const v = values.filter((x) => typeof x === 'number' && Number.isFinite(x)).sort((a, b) => a - b);
  if (v.length === 0) return undefined;
  const mid = Math.floor(v.length / 2);
  return v.length % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

function log(message) {
  process.stderr.write(`[bench] ${message}\n`);
}

/** Benchmarks every tool on one spec; runs alternate between the tools. */
async function benchSpec(specKey, runs, toolProblems) {
  const spec = SPECS[specKey];
  const specOut = path.join(OUT, specKey);
  const state = Object.fromEntries(
    TOOLS.map((t) => [
      t.id,
      {
        failed: toolProblems[t.id],
        generate: [],
        build: [],
        server: [],
        output: undefined,
        hashes: [],
        install: undefined,
        buildError: undefined,
        serverError: undefined,
      },
    ]),
  );

  // 1. Generation, N times each, each run into a fresh folder; run 1's folder is kept as the project.
  for (let i = 1; i <= runs; i++) {
    for (const tool of TOOLS) {
      const s = state[tool.id];
      if (s.failed) continue;
      const out = path.join(specOut, `${tool.id}-run${i}`);
      rmSync(out, { recursive: true, force: true });
      log(`${specKey}: ${tool.id} generate (run ${i}/${runs})`);
      const r = await run(process.execPath, tool.args(spec.file, out), {
        cwd: specOut,
        timeoutMs: TIMEOUT.generate,
        measureRss: true,
      });
      if (r.code !== 0 || r.timedOut || r.error) {
        s.failed = failureReason(r, 'generation');
        continue;
      }
      if (!existsSync(path.join(out, 'package.json'))) {
        s.failed = 'generation: no package.json in the output folder';
        continue;
      }
      const stats = outputStats(out);
      s.generate.push({ ms: r.ms, maxRssKb: r.maxRssKb });
      s.hashes.push(stats.fileHashes);
      if (i === 1) s.warnings = generatorWarnings(`${r.stderr}\n${r.stdout}`);
      if (i === 1) {
        s.output = { bytes: stats.bytes, files: stats.files };
        s.projectDir = out;
      } else {
        rmSync(out, { recursive: true, force: true });
      }
    }
  }

  // 2. npm install once per output (timed, reported separately), then N builds.
  for (const tool of TOOLS) {
    const s = state[tool.id];
    if (s.failed) continue;
    log(`${specKey}: ${tool.id} npm install`);
    const r = await run(npmBin, NPM_INSTALL_ARGS, { cwd: s.projectDir, timeoutMs: TIMEOUT.install });
    if (r.code !== 0 || r.timedOut || r.error) s.failed = failureReason(r, 'npm install');
    else s.install = { ms: r.ms };
  }
  for (let i = 1; i <= runs; i++) {
    for (const tool of TOOLS) {
      const s = state[tool.id];
      if (s.failed || s.buildError) continue;
      for (const d of ['dist', 'build']) rmSync(path.join(s.projectDir, d), { recursive: true, force: true });
      for (const f of readdirSync(s.projectDir).filter((f) => f.endsWith('.tsbuildinfo'))) {
        rmSync(path.join(s.projectDir, f), { force: true });
      }
      log(`${specKey}: ${tool.id} npm run build (run ${i}/${runs})`);
      const r = await run(npmBin, ['run', 'build'], { cwd: s.projectDir, timeoutMs: TIMEOUT.build, measureRss: true });
      s.build.push({ ms: r.ms, ok: r.code === 0 && !r.timedOut && !r.error, maxRssKb: r.maxRssKb });
      // A build that fails once fails every time: don't spend N × the time on it.
      if (!s.build[s.build.length - 1].ok) s.buildError = failureReason(r, 'build');
    }
  }

  // 3. Server start-up and tools/list, N times, for successful builds.
  for (let i = 1; i <= runs; i++) {
    for (const tool of TOOLS) {
      const s = state[tool.id];
      if (s.failed || s.buildError || s.serverError || s.build.length === 0) continue;
      const entry = serverEntry(s.projectDir);
      if (!existsSync(path.join(s.projectDir, entry))) {
        s.serverError = `entry ${entry} missing after build`;
        continue;
      }
      log(`${specKey}: ${tool.id} server start-up + tools/list (run ${i}/${runs})`);
      try {
        const p = await probeMcpServer(entry, {
          cwd: s.projectDir,
          env: { ...process.env, NODE_ENV: 'production' },
          protocolVersion: PROTOCOL_VERSION,
          timeoutMs: TIMEOUT.server,
        });
        s.server.push(p);
      } catch (error) {
        s.serverError = error.message.slice(0, 400);
      }
    }
  }

  // 4. Summaries.
  const tools = {};
  for (const tool of TOOLS) {
    const s = state[tool.id];
    const lastServer = s.server[s.server.length - 1];
    tools[tool.id] = {
      label: tool.label,
      failed: s.failed ?? null,
      generate: {
        runs: s.generate.length,
        medianMs: median(s.generate.map((g) => g.ms)) ?? null,
        medianMaxRssKb: median(s.generate.map((g) => g.maxRssKb)) ?? null,
        samplesMs: s.generate.map((g) => round(g.ms)),
        outputIdenticalAcrossRuns: s.hashes.length > 1 ? filesDiffering(s.hashes).length === 0 : null,
        filesDifferingAcrossRuns: filesDiffering(s.hashes),
        warnings: s.warnings ?? [],
      },
      output: s.output ?? null,
      install: s.install ? { ms: s.install.ms } : null,
      build: {
        runs: s.build.length,
        ok: s.build.length > 0 ? s.build.every((b) => b.ok) : null,
        medianMs: median(s.build.map((b) => b.ms)) ?? null,
        medianMaxRssKb: median(s.build.map((b) => b.maxRssKb)) ?? null,
        samplesMs: s.build.map((b) => round(b.ms)),
        error: s.buildError ?? null,
      },
      server: {
        runs: s.server.length,
        error: s.serverError ?? null,
        initializeMedianMs: median(s.server.map((p) => p.initializeMs)) ?? null,
        toolsListMedianMs: median(s.server.map((p) => p.toolsListMs)) ?? null,
        toolsListBytes: lastServer?.toolsListBytes ?? null,
        toolCount: lastServer?.toolCount ?? null,
        pages: lastServer?.pages ?? null,
        protocolVersion: lastServer?.protocolVersion ?? null,
        initializeSamplesMs: s.server.map((p) => round(p.initializeMs)),
        toolsListSamplesMs: s.server.map((p) => round(p.toolsListMs)),
      },
    };
  }
  return { spec: path.relative(ROOT, spec.file), runs, tools };
}

// ---------------------------------------------------------------------------------------------
// Report

function round(x, digits = 1) {
  if (typeof x !== 'number' || !Number.isFinite(x)) return x;
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

const fmt = {
  ms: (x) => (x == null ? '–' : x >= 10_000 ? `${(x / 1000).toFixed(1)} s` : x >= 1000 ? `${(x / 1000).toFixed(2)} s` : `${x.toFixed(x < 10 ? 1 : 0)} ms`),
  bytes: (x) =>
    x == null ? '–' : x >= 1024 * 1024 ? `${(x / 1024 / 1024).toFixed(2)} MiB` : x >= 1024 ? `${(x / 1024).toFixed(1)} KiB` : `${x} B`,
  kb: (x) => (x == null ? '–' : `${(x / 1024).toFixed(0)} MiB`),
  int: (x) => (x == null ? '–' : x.toLocaleString('en-US')),
};

function ratio(peer, mine) {
  if (typeof peer !== 'number' || typeof mine !== 'number' || !mine) return '–';
  const r = peer / mine;
  return `${r >= 10 ? r.toFixed(0) : r.toFixed(2)}×`;
}

function table(result) {
  const a = result.tools['mcp-gen'];
  const b = result.tools.peer;
  const esc = (s) => String(s).replace(/\|/g, '\\|').replace(/\s+/g, ' ');
  // A failure is printed once, in the first row it leaves empty; later empty rows show '–'.
  const printed = new Set();
  const once = (t, text) => {
    if (printed.has(t)) return '–';
    printed.add(t);
    return text;
  };
  const emptyCell = (t, stage) => {
    if (t.failed) return once(t, `failed: ${esc(t.failed)}`);
    if (stage === 'server' && t.build.ok === false) return 'skipped (build failed)';
    if (stage === 'server' && t.server.error) return once(t, `failed: ${esc(t.server.error)}`);
    return '–';
  };
  // Each row: label, stage, getter, formatter, whether a ratio makes sense.
  const rows = [
    ['generation wall time', 'gen', (t) => t.generate.medianMs, fmt.ms, true],
    ['generation peak RSS', 'gen', (t) => t.generate.medianMaxRssKb, fmt.kb, true],
    ['output size (source, no node_modules/dist/build)', 'gen', (t) => t.output?.bytes, fmt.bytes, true],
    ['output file count', 'gen', (t) => t.output?.files, fmt.int, false],
    ['`npm install` (once, not in build time)', 'install', (t) => t.install?.ms, fmt.ms, true],
    [
      '`npm run build` time',
      'build',
      (t) => t.build.medianMs,
      (x, t) => (t.build.ok === false ? `${fmt.ms(x)} (until it failed)` : fmt.ms(x)),
      true,
    ],
    [
      'build result',
      'build',
      (t) => (t.build.ok == null ? undefined : t.build.ok ? 'ok' : `failed: ${esc(t.build.error)}`),
      (x) => x ?? '–',
      false,
    ],
    ['build peak RSS', 'build', (t) => t.build.medianMaxRssKb, fmt.kb, true],
    ['spawn → initialize response', 'server', (t) => t.server.initializeMedianMs, fmt.ms, true],
    ['tools/list latency', 'server', (t) => t.server.toolsListMedianMs, fmt.ms, true],
    ['tools/list response size', 'server', (t) => t.server.toolsListBytes, fmt.bytes, true],
    ['tools listed', 'server', (t) => t.server.toolCount, fmt.int, false],
  ];
  const lines = [
    `### ${result.key}: \`${result.spec}\``,
    '',
    `runs: generation ${a.generate.runs || b.generate.runs || 0}, build ${Math.max(a.build.runs, b.build.runs)}, server ${Math.max(
      a.server.runs,
      b.server.runs,
    )} (medians; a failing build is not repeated)`,
    '',
    `| metric | ${a.label} | ${b.label} | ratio peer / mcp-gen |`,
    '|---|---:|---:|---:|',
  ];
  for (const [label, stage, get, format, withRatio] of rows) {
    const value = (t) => {
      const v = get(t);
      return v === undefined || v === null ? undefined : v;
    };
    const cell = (t) => {
      const v = value(t);
      return v === undefined ? emptyCell(t, stage) : format(v, t);
    };
    // No ratio against a build that failed: a time to failure is not comparable to a success.
    const comparable = (t) => !(stage === 'build' && t.build.ok === false);
    const va = comparable(a) ? value(a) : undefined;
    const vb = comparable(b) ? value(b) : undefined;
    lines.push(`| ${label} | ${cell(a)} | ${cell(b)} | ${withRatio ? ratio(vb, va) : ''} |`);
  }
  return lines.join('\n');
}

// ---------------------------------------------------------------------------------------------
// Main

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const started = performance.now();
  const loadAtStart = os.loadavg().map((x) => round(x, 2));
  const specKeys = opts.only ? [opts.only] : Object.keys(SPECS);

  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(OUT, { recursive: true });

  const toolProblems = {};
  for (const tool of TOOLS) {
    try {
      toolProblems[tool.id] = tool.check();
    } catch (error) {
      toolProblems[tool.id] = error.message;
    }
    if (toolProblems[tool.id]) log(`${tool.id}: ${toolProblems[tool.id]}`);
  }
  for (const key of specKeys) {
    if (!existsSync(SPECS[key].file)) {
      for (const t of TOOLS) toolProblems[`${key}:${t.id}`] = `spec not found: ${SPECS[key].file}`;
    }
  }

  const results = {};
  for (const key of specKeys) {
    mkdirSync(path.join(OUT, key), { recursive: true });
    const runs = opts.runs ?? SPECS[key].defaultRuns;
    const problems = Object.fromEntries(TOOLS.map((t) => [t.id, toolProblems[`${key}:${t.id}`] ?? toolProblems[t.id]]));
    const specStarted = performance.now();
    results[key] = { key, ...(await benchSpec(key, runs, problems)), wallMs: round(performance.now() - specStarted, 0) };
    log(`${key}: done in ${(results[key].wallMs / 1000).toFixed(0)} s`);
  }

  const totalMs = performance.now() - started;
  const report = {
    generatedAt: new Date().toISOString(),
    environment: {
      node: process.version,
      platform: `${process.platform} ${os.release()} ${process.arch}`,
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model ?? null,
      memTotalMiB: Math.round(os.totalmem() / 1024 / 1024),
      npm: spawnSync(npmBin, ['--version'], { encoding: 'utf8' }).stdout?.trim() ?? null,
      rssVia: TIME_BIN ?? null,
      loadAverageAtStart: loadAtStart,
      loadAverageAtEnd: os.loadavg().map((x) => round(x, 2)),
    },
    tools: Object.fromEntries(TOOLS.map((t) => [t.id, t.label])),
    protocolVersion: PROTOCOL_VERSION,
    notes: [
      'Times are medians; runs alternate between the tools.',
      'npm install runs once per output (--prefer-offline --no-audit --no-fund) and is not part of the build time.',
      'Output size counts every generated file except node_modules/, dist/ and build/.',
      'spawn → initialize response includes Node.js start-up; tools/list is sent after notifications/initialized.',
    ],
    totalWallMs: round(totalMs, 0),
    results,
  };
  mkdirSync(RESULTS, { recursive: true });
  writeFileSync(path.join(RESULTS, 'latest.json'), `${JSON.stringify(report, null, 2)}\n`);

  const out = [
    `## mcp-gen vs ${PEER_PACKAGE}@${PEER_VERSION}`,
    '',
    `Node ${process.version}, ${report.environment.cpus} CPUs (${report.environment.cpuModel ?? 'unknown'}), ${report.environment.platform}. ` +
      `Load average at start ${loadAtStart.join(' / ')}. Peak RSS via ${TIME_BIN ?? '(GNU time not found: skipped)'}. ` +
      'npm install is timed once per output and is not included in the build time.',
    '',
  ];
  for (const key of specKeys) out.push(table(results[key]), '');
  const notes = [];
  for (const key of specKeys) {
    for (const [id, t] of Object.entries(results[key].tools)) {
      if (t.generate.outputIdenticalAcrossRuns === false) {
        notes.push(`- ${key}: ${t.label} output differed between runs in: ${t.generate.filesDifferingAcrossRuns.join(', ')}`);
      }
      if (t.generate.warnings.length) {
        notes.push(`- ${key}: ${t.label} printed ${t.generate.warnings.length} warning-like line(s) while generating, e.g. \`${t.generate.warnings[0].slice(0, 160)}\``);
      }
    }
  }
  if (notes.length) out.push('Notes:', ...notes, '');
  out.push(`Total wall time ${(totalMs / 1000).toFixed(0)} s. JSON: ${path.relative(process.cwd(), path.join(RESULTS, 'latest.json'))}`);
  console.log(out.join('\n'));
}

main().catch((error) => {
  console.error(error?.stack ?? String(error));
  process.exitCode = 1;
});
