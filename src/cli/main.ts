import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { formatDiagnostic, McpGenError } from '../diagnostics.js';
import { generate } from '../generate.js';
import { packageRoot } from '../load/assets.js';
import { writeOutput } from '../write/write-output.js';
import { formatToolPlan } from './tool-plan-table.js';
import { CommanderExit, parseArgs } from './parse-args.js';

/** Runs the CLI and returns the exit code: 0 success, 1 a problem with the spec or output, 2 usage. */
export async function main(argv: string[]): Promise<number> {
  try {
    const config = parseArgs(argv, generatorVersion());
    const started = performance.now();
    const result = await generate(config.spec, { name: config.name, preferMediaTypes: config.preferMediaTypes });
    if (config.dryRun) {
      process.stdout.write(formatToolPlan(result.tools));
      return 0;
    }
    const outDir = config.outDir as string;
    const plan = writeOutput(outDir, result.files, config.force);
    const ms = Math.round(performance.now() - started);
    process.stderr.write(
      `mcp-gen: ${result.tools.length} tools from ${result.spec.model.title} (OpenAPI ${result.spec.version}) → ${outDir}\n` +
        `  ${plan.write.length} written, ${plan.unchanged} unchanged, ${plan.remove.length} removed in ${ms} ms\n` +
        `  next: cd ${outDir} && npm install && npm run build && node dist/index.js\n`,
    );
    return 0;
  } catch (error) {
    if (error instanceof CommanderExit) return error.exitCode;
    if (error instanceof McpGenError) {
      process.stderr.write(`mcp-gen: ${formatDiagnostic(error.diagnostic)}\n`);
      return error.exitCode;
    }
    // A bug in mcp-gen, not in the user's input: say so, with the detail needed to report it.
    process.stderr.write(`mcp-gen: internal error: ${(error as Error).message ?? String(error)}\n`);
    if (process.env.MCP_GEN_DEBUG) process.stderr.write(`${(error as Error).stack}\n`);
    return 1;
  }
}

function generatorVersion(): string {
  return (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version;
}
