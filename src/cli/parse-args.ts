import { Command, CommanderError } from 'commander';
import { McpGenError } from '../diagnostics.js';

export interface CliConfig {
  spec: string;
  outDir?: string;
  name?: string;
  force: boolean;
  dryRun: boolean;
  preferMediaTypes: string[];
}

/** What `npm` accepts as a package name; the server name doubles as one. */
const NPM_NAME = /^(?:@[a-z0-9-~][a-z0-9-._~]*\/)?[a-z0-9-~][a-z0-9-._~]*$/;

/** argv (without node and script) → config. Pure apart from commander printing --help/--version. */
export function parseArgs(argv: string[], version: string): CliConfig {
  const program = new Command('mcp-gen')
    .description('Generate a typed, buildable MCP tool server from an OpenAPI 2.0/3.0/3.1 spec.')
    .version(version, '-v, --version')
    .argument('<spec>', 'OpenAPI/Swagger file path or http(s) URL, YAML or JSON')
    .option('-o, --output <dir>', 'folder to write the server project to')
    .option('-n, --name <name>', 'server and npm package name (default: from the API title)')
    .option('-f, --force', 'overwrite files in the output folder that mcp-gen did not write', false)
    .option('--dry-run', 'print the tool plan (name, method, path, hints) and write nothing', false)
    .option(
      '--prefer-media-type <type>',
      'request body media type to use when an operation accepts several (repeatable; default order: JSON, form, multipart, text)',
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    )
    .exitOverride()
    .configureOutput({ writeErr: (text) => process.stderr.write(text) })
    .showHelpAfterError('(run mcp-gen --help for usage)');
  try {
    program.parse(argv, { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) throw new CommanderExit(error.exitCode === 0 ? 0 : 2);
    throw error;
  }
  const opts = program.opts<{ output?: string; name?: string; force: boolean; dryRun: boolean; preferMediaType: string[] }>();
  const spec = program.args[0] as string;
  if (!opts.dryRun && !opts.output) throw usage('missing --output <dir> (or use --dry-run)');
  if (opts.name !== undefined && !NPM_NAME.test(opts.name)) {
    throw usage(`--name "${opts.name}" is not a valid npm package name (lowercase letters, digits, - . _ ~)`);
  }
  return {
    spec,
    outDir: opts.output,
    name: opts.name,
    force: opts.force,
    dryRun: opts.dryRun,
    preferMediaTypes: opts.preferMediaType,
  };
}

/** Commander already printed what it had to say (help, version, or a usage error). */
export class CommanderExit extends Error {
  constructor(readonly exitCode: 0 | 2) {
    super('commander exit');
  }
}

function usage(message: string): McpGenError {
  return new McpGenError({ code: 'USAGE', severity: 'error', message, help: 'run mcp-gen --help for usage' }, 2);
}
