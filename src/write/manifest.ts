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

/**
 * Reads a manifest from the output folder. Its paths decide what gets replaced and deleted, so any
 * entry that is not a plain relative path inside the folder is dropped: an edited or planted
 * manifest must never make mcp-gen touch files elsewhere.
 */
export function parseManifest(text: string | undefined): Manifest | undefined {
  if (text === undefined) return undefined;
  let value: Partial<Manifest>;
  try {
    value = JSON.parse(text) as Partial<Manifest>;
  } catch {
    return undefined;
  }
  if (!value || value.generator !== 'mcp-gen' || !value.files || typeof value.files !== 'object') return undefined;
  const files = Object.entries(value.files).filter(
    (entry): entry is [string, string] => isInsideFolder(entry[0]) && typeof entry[1] === 'string',
  );
  return { generator: 'mcp-gen', files: Object.fromEntries(files) };
}

export function isInsideFolder(path: string): boolean {
  if (path === '' || path.startsWith('/') || path.includes('\\') || /^[a-zA-Z]:/.test(path)) return false;
  return path.split('/').every((segment) => segment !== '' && segment !== '.' && segment !== '..');
}
