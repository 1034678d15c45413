import type { ApiSecurityScheme, SecurityRequirement } from '../model/api-model.js';
import { asArray, asRecord, optionalString, type Doc } from './spec-shape.js';

/** OpenAPI 3 `components.securitySchemes` or Swagger 2 `securityDefinitions` → the model's schemes. */
export function toSecuritySchemes(schemes: Doc, swagger2: boolean): Record<string, ApiSecurityScheme> {
  const out: Record<string, ApiSecurityScheme> = {};
  for (const [name, value] of Object.entries(schemes)) {
    const scheme = swagger2 ? swagger2Scheme(asRecord(value)) : openApi3Scheme(asRecord(value));
    if (scheme) out[name] = scheme;
  }
  return out;
}

function openApi3Scheme(s: Doc): ApiSecurityScheme | undefined {
  const description = optionalString(s.description);
  const docs = description ? { description } : {};
  switch (s.type) {
    case 'apiKey':
      return { type: 'apiKey', in: apiKeyLocation(s.in), name: String(s.name ?? ''), ...docs };
    case 'http':
      return { type: 'http', scheme: String(s.scheme ?? 'bearer').toLowerCase(), ...docs };
    case 'oauth2': {
      const tokenUrl = optionalString(asRecord(asRecord(s.flows).clientCredentials).tokenUrl);
      return { type: 'oauth2', ...(tokenUrl ? { clientCredentialsTokenUrl: tokenUrl } : {}), ...docs };
    }
    case 'openIdConnect':
      return { type: 'openIdConnect', openIdConnectUrl: String(s.openIdConnectUrl ?? ''), ...docs };
    default:
      return undefined; // mutualTLS and unknown types: nothing a server can send for the user
  }
}

function swagger2Scheme(s: Doc): ApiSecurityScheme | undefined {
  const description = optionalString(s.description);
  const docs = description ? { description } : {};
  switch (s.type) {
    case 'basic':
      return { type: 'http', scheme: 'basic', ...docs };
    case 'apiKey':
      return { type: 'apiKey', in: apiKeyLocation(s.in), name: String(s.name ?? ''), ...docs };
    case 'oauth2': {
      // Swagger 2's "application" flow is OAuth 2 client credentials.
      const tokenUrl = s.flow === 'application' ? optionalString(s.tokenUrl) : undefined;
      return { type: 'oauth2', ...(tokenUrl ? { clientCredentialsTokenUrl: tokenUrl } : {}), ...docs };
    }
    default:
      return undefined;
  }
}

function apiKeyLocation(value: unknown): 'header' | 'query' | 'cookie' {
  return value === 'query' || value === 'cookie' ? value : 'header';
}

/**
 * A security requirement list. A scheme the server cannot apply (mutualTLS, unknown types) stays in
 * its alternative, which the runtime then cannot satisfy: dropping it would send the call without
 * credentials as if the operation were public.
 */
export function toSecurity(value: unknown): SecurityRequirement[] | undefined {
  if (!Array.isArray(value)) return undefined;
  return asArray(value).map((alternative) =>
    Object.entries(asRecord(alternative)).map(([scheme, scopes]) => ({ scheme, scopes: asArray(scopes).map(String) })),
  );
}
