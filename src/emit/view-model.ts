import type { ServerInfo, ToolDefinition } from '../../runtime/types.js';
import type { ApiModel } from '../model/api-model.js';
import { GENERATED_DEPENDENCY_VERSIONS } from './dependency-versions.js';

export interface ProjectOptions {
  /** Server and package name. */
  name: string;
}

/** Everything the templates print, computed here so templates only lay it out. */
export interface ProjectView {
  serverName: string;
  packageName: string;
  binName: string;
  title: string;
  version: string;
  description: string;
  baseUrl: string;
  serverInfo: ServerInfo;
  tools: ToolDefinition[];
  toolRows: { name: string; method: string; path: string; hints: string; summary: string }[];
  versions: typeof GENERATED_DEPENDENCY_VERSIONS;
}

export function projectView(model: ApiModel, tools: ToolDefinition[], options: ProjectOptions): ProjectView {
  return {
    serverName: options.name,
    packageName: options.name,
    binName: options.name,
    title: model.title,
    version: model.version,
    description: firstParagraph(model.description),
    baseUrl: model.baseUrl,
    serverInfo: { name: options.name, version: model.version, defaultBaseUrl: model.baseUrl },
    tools,
    toolRows: tools.map((t) => ({
      name: t.name,
      method: t.http.method,
      path: markdownCell(t.http.path),
      hints: hints(t),
      summary: markdownCell(t.title ?? t.description.split('\n')[0] ?? ''),
    })),
    versions: GENERATED_DEPENDENCY_VERSIONS,
  };
}

export function hints(tool: ToolDefinition): string {
  const a = tool.annotations;
  const words = [
    a.readOnlyHint ? 'read-only' : undefined,
    a.destructiveHint ? 'destructive' : undefined,
    a.idempotentHint ? 'idempotent' : undefined,
  ].filter(Boolean);
  return words.join(', ') || 'writes';
}

function firstParagraph(text: string | undefined): string {
  return (text ?? '').trim().split(/\n\s*\n/)[0]?.replace(/\s+/g, ' ') ?? '';
}

function markdownCell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\s+/g, ' ').trim();
}
