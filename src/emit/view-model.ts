import type { ServerInfo, ServerTemplate, ToolDefinition } from '../../runtime/types.js';
import type { ApiModel } from '../model/api-model.js';
import { credentialVariables, toSchemeDef } from '../tools/security.js';
import { toServerTemplate } from '../tools/server-templates.js';
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
  serverRows: { index: number; url: string; description: string }[];
  credentialRows: { env: string; meaning: string }[];
  variableRows: { env: string; default: string; values: string; description: string }[];
  versions: typeof GENERATED_DEPENDENCY_VERSIONS;
}

export function projectView(model: ApiModel, tools: ToolDefinition[], options: ProjectOptions): ProjectView {
  const schemes = Object.fromEntries(Object.entries(model.securitySchemes).map(([name, s]) => [name, toSchemeDef(name, s)]));
  return {
    serverName: options.name,
    packageName: options.name,
    binName: options.name,
    title: oneLine(model.title),
    version: oneLine(model.version),
    description: firstParagraph(model.description),
    baseUrl: oneLine(model.baseUrl),
    serverInfo: {
      name: options.name,
      version: model.version,
      defaultBaseUrl: model.baseUrl,
      ...(model.servers.length > 0 ? { servers: model.servers.map(toServerTemplate) } : {}),
      ...(Object.keys(schemes).length > 0 ? { securitySchemes: schemes } : {}),
    },
    credentialRows: Object.values(schemes).flatMap(credentialVariables),
    serverRows: model.servers.map((s, index) => ({ index, url: oneLine(s.url), description: oneLine(s.description ?? '') })),
    variableRows: uniqueVariables(model.servers.map(toServerTemplate)),
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
  return oneLine((text ?? '').trim().split(/\n\s*\n/)[0] ?? '');
}

/**
 * Spec text printed into line-based files (comments, .env, Markdown) must stay on its line: a
 * newline in a title or URL would otherwise start a line of code or a new variable.
 */
function oneLine(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f\u2028\u2029]+/g, ' ').trim();
}

function markdownCell(text: string): string {
  return oneLine(text).replace(/\|/g, '\\|').replace(/\s+/g, ' ');
}

/** Server variables for the README, once per environment variable. */
function uniqueVariables(servers: ServerTemplate[]): ProjectView['variableRows'] {
  const rows = new Map<string, ProjectView['variableRows'][number]>();
  for (const variable of servers.flatMap((s) => s.variables ?? [])) {
    if (rows.has(variable.env)) continue;
    rows.set(variable.env, {
      env: variable.env,
      default: markdownCell(variable.default),
      values: markdownCell(variable.enum?.join(', ') ?? ''),
      description: markdownCell(variable.description ?? ''),
    });
  }
  return [...rows.values()];
}
