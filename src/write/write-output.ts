import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { McpGenError } from '../diagnostics.js';
import type { GeneratedFile } from '../emit/emit-project.js';
import { MANIFEST_PATH, parseManifest } from './manifest.js';
import { planWrites, type WritePlan } from './plan-writes.js';

/** The only place mcp-gen writes to disk. Refuses, writing nothing, when it would overwrite user files. */
export function writeOutput(outDir: string, files: GeneratedFile[], force: boolean): WritePlan {
  const root = resolve(outDir);
  const plan = planWrites(files, readExisting(root, files), force);
  if (plan.conflicts.length > 0) {
    throw new McpGenError({
      code: 'OUTPUT_CONFLICT',
      severity: 'error',
      file: outDir,
      message: `refusing to overwrite files mcp-gen did not write (or that were edited since):\n  ${plan.conflicts.join('\n  ')}`,
      help: 'move those files away, choose another output folder, or pass --force to overwrite them',
    });
  }
  for (const path of plan.remove) rmSync(join(root, path), { force: true });
  for (const file of plan.write) {
    const target = join(root, file.path);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, file.content);
  }
  return plan;
}

function readExisting(root: string, files: GeneratedFile[]) {
  const read = (path: string) => {
    try {
      return readFileSync(join(root, path), 'utf8');
    } catch {
      return undefined;
    }
  };
  const manifestText = read(MANIFEST_PATH);
  const owned = Object.keys(parseManifest(manifestText)?.files ?? {});
  const contents = new Map<string, string>();
  for (const path of new Set([...files.map((f) => f.path), MANIFEST_PATH, ...owned])) {
    const text = read(path);
    if (text !== undefined) contents.set(path, text);
  }
  const nonEmpty = existsSync(root) && readdirSync(root).length > 0;
  return { files: contents, nonEmpty };
}
