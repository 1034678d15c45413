import type { SecuritySchemeDef } from '../../runtime/types.js';
import type { ApiSecurityScheme } from '../model/api-model.js';
import { credentialEnv } from './naming.js';

/**
 * A spec security scheme as the runtime applies it. Interactive OAuth 2 flows (authorization code,
 * implicit, password) cannot run inside a server, so they take an access token the user provides.
 */
export function toSchemeDef(name: string, scheme: ApiSecurityScheme): SecuritySchemeDef {
  const env = credentialEnv(name);
  switch (scheme.type) {
    case 'apiKey':
      return { type: 'apiKey', in: scheme.in, name: scheme.name, env };
    case 'http':
      return scheme.scheme === 'basic'
        ? { type: 'basic', usernameEnv: `${env}_USERNAME`, passwordEnv: `${env}_PASSWORD` }
        : { type: 'bearer', env };
    case 'oauth2':
      return scheme.clientCredentialsTokenUrl ? clientCredentials(env, { tokenUrl: scheme.clientCredentialsTokenUrl }) : { type: 'bearer', env };
    case 'openIdConnect':
      return clientCredentials(env, { discoveryUrl: scheme.openIdConnectUrl });
  }
}

function clientCredentials(env: string, source: { tokenUrl?: string; discoveryUrl?: string }): SecuritySchemeDef {
  return {
    type: 'clientCredentials',
    ...source,
    env,
    clientIdEnv: `${env}_CLIENT_ID`,
    clientSecretEnv: `${env}_CLIENT_SECRET`,
    scopesEnv: `${env}_SCOPES`,
  };
}

/** Every environment variable a scheme reads, with what it holds, for the README and .env.example. */
export function credentialVariables(def: SecuritySchemeDef): { env: string; meaning: string }[] {
  switch (def.type) {
    case 'apiKey':
      return [{ env: def.env, meaning: `API key, sent in the ${def.in} \`${def.name}\`` }];
    case 'bearer':
      return [{ env: def.env, meaning: 'Access token, sent as `Authorization: Bearer`' }];
    case 'basic':
      return [
        { env: def.usernameEnv, meaning: 'User name for HTTP Basic authentication' },
        { env: def.passwordEnv, meaning: 'Password for HTTP Basic authentication' },
      ];
    case 'clientCredentials':
      return [
        { env: def.clientIdEnv, meaning: 'OAuth 2 client ID (client credentials grant)' },
        { env: def.clientSecretEnv, meaning: 'OAuth 2 client secret' },
        { env: def.scopesEnv, meaning: 'Scopes to request, space-separated (default: those the operation needs)' },
        { env: def.env, meaning: 'A ready access token, used instead of the client credentials' },
      ];
  }
}
