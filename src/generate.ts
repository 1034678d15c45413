import type { ToolDefinition } from '../runtime/types.js';
import { emitProject, type GeneratedFile } from './emit/emit-project.js';
import { projectView } from './emit/view-model.js';
import { loadAssets } from './load/assets.js';
import { loadSpec, type LoadedSpec } from './load/load-spec.js';
import { packageName } from './tools/naming.js';
import { planTools, type PlanOptions } from './tools/plan-tools.js';
import { formatFiles } from './write/format.js';
import { buildManifest } from './write/manifest.js';

export interface GenerateOptions extends PlanOptions {
  /** Server/package name; derived from the API title when absent. */
  name?: string;
}

export interface Generated {
  spec: LoadedSpec;
  tools: ToolDefinition[];
  /** Formatted files, manifest included, sorted by path. */
  files: GeneratedFile[];
}

/** The whole pipeline, short of writing: load → model → tools → emit → format. */
export async function generate(source: string, options: GenerateOptions = {}): Promise<Generated> {
  const spec = await loadSpec(source);
  const tools = planTools(spec.model, options);
  const name = options.name ?? packageName(spec.model.title);
  const files = await formatFiles(emitProject(projectView(spec.model, tools, { name }), loadAssets()));
  return { spec, tools, files: [...files, buildManifest(files)] };
}
