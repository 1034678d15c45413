import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const BIN = resolve('bin/mcp-gen.js');

export interface CliRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the built CLI (npm test builds dist/ first) as a user would. Asynchronous, so a test can
 * serve the spec over HTTP from its own process meanwhile.
 */
export function runCli(args: string[], cwd = process.cwd()): Promise<CliRun> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd, timeout: 60_000 });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (status) => resolvePromise({ status, stdout, stderr }));
  });
}

export function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'mcp-gen-cli-'));
}
