import Handlebars from 'handlebars';
import type { Assets } from '../load/assets.js';
import type { ProjectView } from './view-model.js';

/** One file of the generated project, before formatting. */
export interface GeneratedFile {
  path: string;
  content: string;
  /**
   * Already in canonical form (JSON.stringify with 2-space indent), so the formatter skips it.
   * Used for the tool table, where prettier would spend seconds on megabytes of data for GitHub's spec.
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
    files.push({ path: `src/runtime/${name}`, content: source });
  }
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
