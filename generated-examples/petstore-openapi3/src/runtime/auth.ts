/**
 * Upstream authentication. Credentials come only from environment variables named in ServerInfo;
 * they are added to the outgoing request and never appear in results or logs (see secretValues).
 * The MCP client's own credentials are never involved: requests are built from tool arguments only.
 */
import type { UpstreamRequest } from './build-request.js';
import type { SecurityAlternative, SecuritySchemeDef } from './types.js';

type Env = Record<string, string | undefined>;

/** A credential problem (missing, refused, token endpoint unreachable): a clear error, never a secret. */
export class MissingCredentialError extends Error {}

/** Everything a scheme needs from the environment, or the names of what is missing. */
function missingVariables(def: SecuritySchemeDef, env: Env): string[] {
  const has = (name: string) => (env[name]?.trim() ?? '') !== '';
  switch (def.type) {
    case 'apiKey':
    case 'bearer':
      return has(def.env) ? [] : [def.env];
    case 'basic':
      return [def.usernameEnv, def.passwordEnv].filter((n) => !has(n));
    case 'clientCredentials':
      if (has(def.env)) return [];
      return [def.clientIdEnv, def.clientSecretEnv].filter((n) => !has(n));
  }
}

/** Fetches and caches OAuth 2 access tokens (client credentials), refreshing them before expiry. */
export class TokenSource {
  private readonly tokens = new Map<string, { token: string; expiresAt: number }>();
  private readonly endpoints = new Map<string, string>();

  constructor(private readonly fetchImpl: typeof fetch = fetch) {}

  async token(
    def: Extract<SecuritySchemeDef, { type: 'clientCredentials' }>,
    scopes: string[],
    env: Env,
    signal?: AbortSignal,
  ): Promise<string> {
    const ready = env[def.env]?.trim();
    if (ready) return ready;
    const scope = (env[def.scopesEnv]?.trim() || scopes.join(' ')).trim();
    const key = `${def.tokenUrl ?? def.discoveryUrl}|${scope}`;
    const cached = this.tokens.get(key);
    if (cached && cached.expiresAt > Date.now()) return cached.token;

    const tokenUrl = def.tokenUrl ?? (await this.discover(def.discoveryUrl ?? '', signal));
    const body = new URLSearchParams({ grant_type: 'client_credentials' });
    if (scope) body.set('scope', scope);
    const id = env[def.clientIdEnv] ?? '';
    const secret = env[def.clientSecretEnv] ?? '';
    // RFC 6749 §2.3.1: client credentials in HTTP Basic, each form-encoded first.
    const basic = Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString(
      'base64',
    );
    const response = await this.reach(tokenUrl, 'token endpoint', {
      method: 'POST',
      headers: {
        Authorization: `Basic ${basic}`,
        'Content-Type': 'application/x-www-form-urlencoded',
        Accept: 'application/json',
      },
      body: body.toString(),
      signal,
    });
    const json = (await response.json().catch(() => ({}))) as {
      access_token?: unknown;
      expires_in?: unknown;
      error?: unknown;
    };
    if (!response.ok || typeof json.access_token !== 'string') {
      const reason = typeof json.error === 'string' ? json.error : `HTTP ${response.status}`;
      throw new MissingCredentialError(
        `The token endpoint refused the client credentials in ${def.clientIdEnv}/${def.clientSecretEnv} (${reason}).`,
      );
    }
    // Refresh a little early so a token never expires in flight; no expires_in: keep it for an hour.
    const lifetime = typeof json.expires_in === 'number' ? json.expires_in : 3600;
    this.tokens.set(key, {
      token: json.access_token,
      expiresAt: Date.now() + Math.max(0, lifetime - 30) * 1000,
    });
    return json.access_token;
  }

  /** Tokens fetched so far (also ones since dropped), so results can be scrubbed of them. */
  fetchedTokens(): string[] {
    return [...this.tokens.values()].map((t) => t.token).concat(this.retired);
  }

  /** Forgets cached tokens, e.g. after the API rejected one; they stay known for redaction. */
  invalidate(): void {
    for (const t of this.tokens.values()) this.retired.push(t.token);
    this.retired.splice(0, Math.max(0, this.retired.length - 20));
    this.tokens.clear();
  }

  private readonly retired: string[] = [];

  /** fetch, with a failure to connect reported as a credential problem rather than a server bug. */
  private async reach(url: string, what: string, init: RequestInit): Promise<Response> {
    try {
      return await this.fetchImpl(url, init);
    } catch (error) {
      const reason =
        (error as Error)?.name === 'TimeoutError' || (error as Error)?.name === 'AbortError'
          ? 'timed out or was cancelled'
          : 'could not be reached';
      let origin = url;
      try {
        origin = new URL(url).origin;
      } catch {
        // keep the text as given
      }
      throw new MissingCredentialError(
        `The ${what} at ${origin} ${reason}, so no access token could be obtained.`,
      );
    }
  }

  private async discover(url: string, signal?: AbortSignal): Promise<string> {
    const known = this.endpoints.get(url);
    if (known) return known;
    const response = await this.reach(url, 'OpenID Connect discovery', {
      headers: { Accept: 'application/json' },
      signal,
    });
    const json = (await response.json().catch(() => ({}))) as { token_endpoint?: unknown };
    if (!response.ok || typeof json.token_endpoint !== 'string') {
      throw new MissingCredentialError(
        `OpenID Connect discovery at ${new URL(url).origin} gave no token endpoint.`,
      );
    }
    this.endpoints.set(url, json.token_endpoint);
    return json.token_endpoint;
  }
}

/**
 * Adds the credentials of the first alternative whose variables are all set. An empty alternative
 * (optional security) needs nothing. With none satisfiable, the error names what to set.
 */
export async function authorize(
  request: UpstreamRequest,
  alternatives: readonly SecurityAlternative[] | undefined,
  schemes: Readonly<Record<string, SecuritySchemeDef>>,
  env: Env,
  tokens: TokenSource,
  signal?: AbortSignal,
): Promise<UpstreamRequest> {
  if (!alternatives || alternatives.length === 0) return request;
  const satisfiable = (alt: SecurityAlternative) =>
    alt.every((r) => {
      const def = schemes[r.scheme];
      return def !== undefined && missingVariables(def, env).length === 0;
    });
  // Credentials that are set are sent even when security is optional ({}), whatever the order.
  const usable =
    alternatives.find((alt) => alt.length > 0 && satisfiable(alt)) ??
    alternatives.find((alt) => alt.length === 0);
  if (!usable) {
    const options = alternatives
      .filter((alt) => alt.length > 0)
      .map((alt) =>
        alt
          .flatMap((r) => {
            const def = schemes[r.scheme];
            return def
              ? missingVariables(def, env)
              : [`credentials of the "${r.scheme}" scheme (not supported by this server)`];
          })
          .join(' and '),
      );
    throw new MissingCredentialError(
      `This operation needs credentials: set ${[...new Set(options)].join(', or ')} in the server's environment.`,
    );
  }
  let out: UpstreamRequest = { ...request, headers: { ...request.headers } };
  for (const requirement of usable) {
    const def = schemes[requirement.scheme] as SecuritySchemeDef;
    out = await applyScheme(out, def, requirement.scopes, env, tokens, signal);
  }
  return out;
}

async function applyScheme(
  request: UpstreamRequest,
  def: SecuritySchemeDef,
  scopes: string[],
  env: Env,
  tokens: TokenSource,
  signal?: AbortSignal,
): Promise<UpstreamRequest> {
  const headers = request.headers;
  switch (def.type) {
    case 'apiKey': {
      const value = clean(env[def.env]);
      if (def.in === 'header') headers[def.name] = value;
      else if (def.in === 'cookie')
        headers.Cookie = [headers.Cookie, `${def.name}=${encodeURIComponent(value)}`]
          .filter(Boolean)
          .join('; ');
      else {
        // Appended as text: URLSearchParams would re-encode the query the runtime already built.
        const pair = `${encodeURIComponent(def.name)}=${encodeURIComponent(value)}`;
        const [base, hash] = request.url.split('#', 2) as [string, string | undefined];
        const url = `${base}${base.includes('?') ? '&' : '?'}${pair}${hash !== undefined ? `#${hash}` : ''}`;
        return { ...request, url };
      }
      return request;
    }
    case 'bearer':
      headers.Authorization = `Bearer ${clean(env[def.env])}`;
      return request;
    case 'basic':
      headers.Authorization = `Basic ${Buffer.from(`${clean(env[def.usernameEnv])}:${clean(env[def.passwordEnv])}`).toString('base64')}`;
      return request;
    case 'clientCredentials':
      headers.Authorization = `Bearer ${clean(await tokens.token(def, scopes, env, signal))}`;
      return request;
  }
}

/** Credentials go into headers: a CR or LF in one would split the request. */
function clean(value: string | undefined): string {
  return (value ?? '').trim().replace(/[\r\n]/g, '');
}

/** The credential values in the environment, so results can be scrubbed of any the API echoes back. */
export function secretValues(
  schemes: Readonly<Record<string, SecuritySchemeDef>>,
  env: Env,
): string[] {
  const values: string[] = [];
  for (const d of Object.values(schemes)) {
    const names =
      d.type === 'basic'
        ? [d.passwordEnv]
        : d.type === 'clientCredentials'
          ? [d.env, d.clientSecretEnv]
          : [d.env];
    values.push(...names.map((n) => clean(env[n])));
    // An echoed Authorization header shows the Basic credentials base64-encoded.
    if (d.type === 'basic' && clean(env[d.passwordEnv])) {
      const pair = `${clean(env[d.usernameEnv])}:${clean(env[d.passwordEnv])}`;
      values.push(Buffer.from(pair).toString('base64'));
    }
  }
  return values.filter((v) => v.length >= 4);
}

/**
 * Replaces every occurrence of a secret with [redacted]: as it is, and in the encodings an API may
 * echo it in (percent-encoded, form-encoded, escaped inside JSON text).
 */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    const forms = new Set([
      secret,
      encodeURIComponent(secret),
      new URLSearchParams({ s: secret }).toString().slice(2),
      JSON.stringify(secret).slice(1, -1),
    ]);
    for (const form of [...forms].sort((a, b) => b.length - a.length)) {
      out = out.split(form).join('[redacted]');
    }
  }
  return out;
}
