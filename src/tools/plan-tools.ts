import type { ToolDefinition } from '../../runtime/types.js';
import type { ApiModel } from '../model/api-model.js';
import { annotationsFor } from './annotations.js';
import { toolDescription, toolTitle } from './describe.js';
import { buildToolInput, type InputOptions } from './input-schema.js';
import { assignToolNames } from './naming.js';
import { buildToolOutput, successResponses } from './output-schema.js';
import { toServerTemplate } from './server-templates.js';

export type PlanOptions = InputOptions;

/** One tool per operation, in the spec's order. Pure: the same model always gives the same plan. */
export function planTools(model: ApiModel, options: PlanOptions = {}): ToolDefinition[] {
  const names = assignToolNames(model.operations);
  return model.operations.map((op, i) => {
    const title = toolTitle(op);
    const input = buildToolInput(op, model.schemaNames, options);
    const output = buildToolOutput(op, model.schemaNames);
    const accept = [...new Set(successResponses(op).flatMap((r) => r.contents.map((c) => c.mediaType)))];
    return {
      name: names[i] ?? op.method,
      ...(title ? { title } : {}),
      description: toolDescription(op),
      annotations: annotationsFor(op.method, title),
      inputSchema: input.schema,
      ...(output ? { output } : {}),
      http: {
        method: op.method,
        path: op.path,
        arguments: input.bindings,
        ...(input.body
          ? {
              bodyMediaType: input.body.mediaType,
              bodyEncoding: input.body.encoding,
              ...(input.body.fileFields ? { fileFields: input.body.fileFields } : {}),
              ...(input.body.fieldEncodings ? { fieldEncodings: input.body.fieldEncodings } : {}),
            }
          : {}),
        ...(accept.length > 0 ? { accept } : {}),
        ...(op.server ? { server: toServerTemplate(op.server) } : {}),
        ...(op.security && op.security.length > 0 ? { security: op.security } : {}),
      },
    };
  });
}
