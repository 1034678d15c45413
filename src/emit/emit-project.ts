import Handlebars from 'handlebars';
import type { Assets } from '../load/assets.js';
import type { ProjectView } from './view-model.js';

/** One file of the generated project, before formatting. */
export interface GeneratedFile {
  path: string;
  content: string;
  /**
   * Already in its final form, so the formatter skips it: the tool table (JSON.stringify with a
   * 2-space indent; prettier would spend seconds on GitHub's megabytes) and the runtime sources.
   */
  canonical?: boolean;
}

/** Template file → output path; names that npm or git would treat specially are renamed here. */
const OUTPUT_PATH: Record<string, string> = {
  'env.example.hbs': '.env.example',
  'gitignore.hbs': '.gitignore',
};

/** Renders the templates and adds the runtime sources. Pure: assets and view in, files out. */
export function emitProject(view: ProjectView, assets: Assets): GeneratedFile[] {
  const hbs = Handlebars.create();
  // Schemas and strings are emitted as JSON data, never spliced into code as raw text.
  hbs.registerHelper('json', (value: unknown) => JSON.stringify(value));
  const files: GeneratedFile[] = [];
  for (const [templatePath, source] of Object.entries(assets.templates)) {
    const render = hbs.compile(source, { strict: true, noEscape: true });
    const path = OUTPUT_PATH[templatePath] ?? templatePath.replace(/\.hbs$/, '');
    files.push({ path, content: render(view) });
  }
  files.push({ path: 'src/tools.json', content: `${JSON.stringify(view.tools, null, 2)}\n`, canonical: true });
  for (const [name, source] of Object.entries(assets.runtime)) {
    // Kept prettier-formatted in this repo (test/golden/runtime-format.test.ts), so not formatted again.
    files.push({ path: `src/runtime/${name}`, content: source, canonical: true });
  }
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
