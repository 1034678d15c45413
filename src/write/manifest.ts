import { createHash } from 'node:crypto';
import type { GeneratedFile } from '../emit/emit-project.js';

/** Lists what mcp-gen wrote, so regeneration knows which files are its own. */
export const MANIFEST_PATH = '.mcp-gen/manifest.json';

export interface Manifest {
  generator: 'mcp-gen';
  /** Output path → sha256 of the content written. */
  files: Record<string, string>;
}

export function sha256(content: string): string {
  return createHash('sha256').update(content).digest('hex');
}

export function buildManifest(files: GeneratedFile[]): GeneratedFile {
  const manifest: Manifest = {
    generator: 'mcp-gen',
    files: Object.fromEntries(files.map((f) => [f.path, sha256(f.content)])),
  };
  return { path: MANIFEST_PATH, content: `${JSON.stringify(manifest, null, 2)}\n` };
}

export function parseManifest(text: string | undefined): Manifest | undefined {
  if (text === undefined) return undefined;
  try {
    const value = JSON.parse(text) as Partial<Manifest>;
    return value.generator === 'mcp-gen' && value.files && typeof value.files === 'object' ? (value as Manifest) : undefined;
  } catch {
    return undefined;
  }
}
