import * as prettier from 'prettier';
import type { GeneratedFile } from '../emit/emit-project.js';

/**
 * Pinned so the same input always formats to the same bytes, whatever config the user has around.
 * The repo's .prettierrc.json is the same (a test checks), so runtime/ sources, kept formatted with
 * it, are copied without another formatting pass.
 */
export const PRETTIER_OPTIONS: prettier.Options = {
  printWidth: 100,
  singleQuote: true,
  trailingComma: 'all',
  endOfLine: 'lf',
};

const PARSER_BY_EXTENSION: Record<string, string> = {
  ts: 'typescript',
  json: 'json',
  md: 'markdown',
};

/** Formats every file prettier has a parser for; others are returned as they are. */
export async function formatFiles(files: GeneratedFile[]): Promise<GeneratedFile[]> {
  return Promise.all(
    files.map(async (file) => {
      const parser = PARSER_BY_EXTENSION[file.path.split('.').pop() ?? ''];
      if (!parser || file.canonical) return { path: file.path, content: file.content };
      return { path: file.path, content: await prettier.format(file.content, { ...PRETTIER_OPTIONS, parser }) };
    }),
  );
}
