import type { ServerTemplate } from '../../runtime/types.js';
import type { ApiServer } from '../model/api-model.js';
import { serverVariableEnv } from './naming.js';

/** A spec server as the runtime reads it: each variable with the environment variable that sets it. */
export function toServerTemplate(server: ApiServer): ServerTemplate {
  return {
    url: server.url,
    ...(server.description ? { description: server.description } : {}),
    ...(server.variables.length > 0
      ? {
          variables: server.variables.map((v) => ({
            name: v.name,
            env: serverVariableEnv(v.name),
            default: v.default,
            ...(v.enum ? { enum: v.enum } : {}),
            ...(v.description ? { description: v.description } : {}),
          })),
        }
      : {}),
  };
}
