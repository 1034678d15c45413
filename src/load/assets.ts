import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The generator's own files that go into every project: Handlebars templates and the runtime sources. */
export interface Assets {
  /** Template path relative to templates/ (e.g. `src/index.ts.hbs`) → source. */
  templates: Record<string, string>;
  /** Runtime file name (e.g. `server.ts`) → source, copied verbatim. */
  runtime: Record<string, string>;
}

/** The package root: the nearest folder above this module that holds templates/ (src/ or dist/ alike). */
export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'templates', 'src'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('mcp-gen is installed incompletely: templates/ not found');
    dir = parent;
  }
  return dir;
}

let cached: Assets | undefined;

export function loadAssets(): Assets {
  if (cached) return cached;
  const root = packageRoot();
  cached = {
    templates: readTree(join(root, 'templates'), (f) => f.endsWith('.hbs')),
    runtime: readTree(join(root, 'runtime'), (f) => f.endsWith('.ts') && !f.endsWith('.test.ts')),
  };
  return cached;
}

function readTree(dir: string, keep: (file: string) => boolean): Record<string, string> {
  const out: Record<string, string> = {};
  const entries = readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && keep(e.name))
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1).split('\\').join('/'))
    .sort();
  for (const rel of entries) out[rel] = readFileSync(join(dir, rel), 'utf8');
  return out;
}
