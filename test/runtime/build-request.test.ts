import { describe, expect, it } from 'vitest';
import { ArgumentError, DEFAULT_ACCEPT, buildRequest } from '../../runtime/build-request.js';
import type { ArgumentBinding, HttpBinding } from '../../runtime/types.js';

const BASE = 'http://api.test/v1';

function path(arg: string, extra: Partial<ArgumentBinding> = {}): ArgumentBinding {
  return { arg, in: 'path', name: arg, style: 'simple', explode: false, ...extra } as ArgumentBinding;
}
function query(arg: string, extra: Partial<ArgumentBinding> = {}): ArgumentBinding {
  return { arg, in: 'query', name: arg, style: 'form', explode: true, ...extra } as ArgumentBinding;
}
function header(arg: string, name: string): ArgumentBinding {
  return { arg, in: 'header', name, style: 'simple', explode: false };
}
function cookie(arg: string, name: string): ArgumentBinding {
  return { arg, in: 'cookie', name, style: 'form', explode: true };
}

const getPet: HttpBinding = {
  method: 'GET',
  path: '/pets/{petId}',
  arguments: [path('petId'), query('fields', { explode: false })],
};

function argumentError(fn: () => unknown): ArgumentError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ArgumentError);
    return error as ArgumentError;
  }
  throw new Error('expected an ArgumentError');
}

describe('buildRequest: URL', () => {
  it.each([
    ['http://api.test/v1', 'http://api.test/v1/pets/7'],
    ['http://api.test/v1/', 'http://api.test/v1/pets/7'],
    ['http://api.test/v1//', 'http://api.test/v1/pets/7'],
    ['http://api.test', 'http://api.test/pets/7'],
    ['http://api.test/', 'http://api.test/pets/7'],
    ['https://api.test:8443/a/b/', 'https://api.test:8443/a/b/pets/7'],
  ])('joins base %s without double slashes', (base, want) => {
    expect(buildRequest(getPet, { petId: 7 }, base).url).toBe(want);
  });

  it('keeps the query already on the base URL and appends parameters', () => {
    expect(buildRequest(getPet, { petId: 7, fields: ['a', 'b'] }, 'http://api.test/v1?api_key=k1').url).toBe(
      'http://api.test/v1/pets/7?api_key=k1&fields=a,b',
    );
    expect(buildRequest(getPet, { petId: 7 }, 'http://api.test/v1/?api_key=k1#frag').url).toBe(
      'http://api.test/v1/pets/7?api_key=k1',
    );
  });

  it('omits the query when there are no query values', () => {
    expect(buildRequest(getPet, { petId: 7, fields: undefined }, BASE).url).toBe('http://api.test/v1/pets/7');
  });

  it('substitutes every template variable, with its style', () => {
    const http: HttpBinding = {
      method: 'GET',
      path: '/a/{x}/b/{y}{z}',
      arguments: [path('x'), path('y', { style: 'label' }), path('z', { style: 'matrix', explode: true })],
    };
    expect(buildRequest(http, { x: 'one', y: ['p', 'q'], z: { k: 'v' } }, BASE).url).toBe(
      'http://api.test/v1/a/one/b/.p,q;k=v',
    );
  });

  it('reports a missing path value as an ArgumentError naming the argument', () => {
    const e = argumentError(() => buildRequest(getPet, {}, BASE));
    expect(e.argument).toBe('petId');
    expect(e.message).toMatch(/"petId"/);
    expect(() => buildRequest(getPet, { petId: null }, BASE)).toThrow(ArgumentError);
  });

  it('rejects an empty path value', () => {
    expect(() => buildRequest(getPet, { petId: '' }, BASE)).toThrow(ArgumentError);
  });

  it('treats a template variable without binding as a definition error, not an argument error', () => {
    const http: HttpBinding = { method: 'GET', path: '/pets/{petId}/{other}', arguments: [path('petId')] };
    expect(() => buildRequest(http, { petId: 1 }, BASE)).toThrow(/no argument binding/);
    expect(() => buildRequest(http, { petId: 1 }, BASE)).not.toThrow(ArgumentError);
  });
});

describe('buildRequest: path traversal and host changes', () => {
  // Raw %2e forms are refused too, in case the upstream decodes twice.
  it.each(['.', '..', '%2e', '%2E%2e', '.%2e'])('rejects the path value %j', (value) => {
    const e = argumentError(() => buildRequest(getPet, { petId: value }, BASE));
    expect(e.argument).toBe('petId');
  });

  it.each([
    ['label style producing ".."', { style: 'label' as const }, '.'],
    ['label style producing "."', { style: 'label' as const }, ''],
    ['array producing ".."', {}, ['..']],
  ])('rejects %s', (_name, extra, value) => {
    const http: HttpBinding = { method: 'GET', path: '/pets/{petId}', arguments: [path('petId', extra)] };
    expect(() => buildRequest(http, { petId: value }, BASE)).toThrow(ArgumentError);
  });

  it.each([
    ['../admin', 'http://api.test/v1/pets/..%2Fadmin'],
    ['../../admin', 'http://api.test/v1/pets/..%2F..%2Fadmin'],
    ['%2e%2e/x', 'http://api.test/v1/pets/%252e%252e%2Fx'],
    ['..\\admin', 'http://api.test/v1/pets/..%5Cadmin'],
    ['...', 'http://api.test/v1/pets/...'],
    ['a?admin=1#x', 'http://api.test/v1/pets/a%3Fadmin%3D1%23x'],
  ])('encodes %j so it stays one segment below the base path', (value, want) => {
    const req = buildRequest(getPet, { petId: value }, BASE);
    expect(req.url).toBe(want);
    expect(new URL(req.url).pathname.startsWith('/v1/pets/')).toBe(true);
  });

  it.each(['//evil.test/x', 'http://evil.test/', '@evil.test', 'evil.test:80', '\\\\evil.test'])(
    'a path value %j cannot change the host',
    (value) => {
      for (const template of ['/{p}', '{p}', '/x/{p}']) {
        const http: HttpBinding = { method: 'GET', path: template, arguments: [path('p')] };
        const url = new URL(buildRequest(http, { p: value }, BASE).url);
        expect(url.origin).toBe('http://api.test');
        expect(url.pathname.startsWith('/v1/')).toBe(true);
      }
    },
  );

  it('a query value cannot change the host or add parameters', () => {
    const url = new URL(buildRequest(getPet, { petId: 1, fields: 'x&admin=true#@evil.test' }, BASE).url);
    expect(url.origin).toBe('http://api.test');
    expect([...url.searchParams.keys()]).toEqual(['fields']);
    expect(url.searchParams.get('fields')).toBe('x&admin=true#@evil.test');
  });

  it('rejects a template that itself escapes the base path', () => {
    const http: HttpBinding = { method: 'GET', path: '/../admin/{p}', arguments: [path('p')] };
    expect(() => buildRequest(http, { p: 'x' }, BASE)).toThrow(ArgumentError);
  });
});

describe('buildRequest: headers and cookies', () => {
  it('sends the default Accept, or the operation media types', () => {
    expect(buildRequest(getPet, { petId: 1 }, BASE).headers['Accept']).toBe(DEFAULT_ACCEPT);
    expect(
      buildRequest({ ...getPet, accept: ['application/json', 'application/problem+json'] }, { petId: 1 }, BASE).headers[
        'Accept'
      ],
    ).toBe('application/json, application/problem+json');
  });

  it('sets header parameters, leaving out absent ones', () => {
    const http: HttpBinding = {
      method: 'GET',
      path: '/x',
      arguments: [header('requestId', 'X-Request-Id'), header('tags', 'X-Tags'), header('absent', 'X-Absent')],
    };
    const req = buildRequest(http, { requestId: 'abc def', tags: ['a', 'b'] }, BASE);
    expect(req.headers).toEqual({ Accept: DEFAULT_ACCEPT, 'X-Request-Id': 'abc def', 'X-Tags': 'a,b' });
  });

  it('rejects header values with CR or LF (header injection)', () => {
    const http: HttpBinding = { method: 'GET', path: '/x', arguments: [header('requestId', 'X-Request-Id')] };
    const e = argumentError(() => buildRequest(http, { requestId: 'a\r\nHost: evil.test' }, BASE));
    expect(e.message).toMatch(/"requestId"/);
  });

  it('never lets a header parameter set Host, framing headers, Accept or Content-Type', () => {
    const http: HttpBinding = {
      method: 'GET',
      path: '/x',
      arguments: [header('h', 'Host'), header('cl', 'Content-Length'), header('ct', 'Content-Type'), header('a', 'Accept')],
    };
    const req = buildRequest(http, { h: 'evil.test', cl: '0', ct: 'text/evil', a: 'text/evil' }, BASE);
    expect(req.headers).toEqual({ Accept: DEFAULT_ACCEPT });
  });

  it('joins cookie parameters into one Cookie header', () => {
    const http: HttpBinding = {
      method: 'GET',
      path: '/x',
      arguments: [cookie('session', 'sid'), cookie('theme', 'theme'), cookie('absent', 'absent')],
    };
    expect(buildRequest(http, { session: 'a b;c', theme: 'dark' }, BASE).headers['Cookie']).toBe(
      'sid=a%20b%3Bc; theme=dark',
    );
    expect(buildRequest(http, {}, BASE).headers['Cookie']).toBeUndefined();
  });
});

describe('buildRequest: body', () => {
  const createPet: HttpBinding = {
    method: 'POST',
    path: '/pets',
    arguments: [
      { arg: 'name', in: 'body', name: 'name' },
      { arg: 'tag', in: 'body', name: 'tag' },
      { arg: 'owner', in: 'body', name: 'owner' },
    ],
  };

  it('builds a JSON object from the body fields present', () => {
    const req = buildRequest(createPet, { name: 'Rex', owner: { id: 1 }, unrelated: 1 }, BASE);
    expect(JSON.parse(req.body as string)).toEqual({ name: 'Rex', owner: { id: 1 } });
    expect(req.headers['Content-Type']).toBe('application/json');
  });

  it('sends no body and no Content-Type when no body argument is present', () => {
    const req = buildRequest(createPet, {}, BASE);
    expect(req.body).toBeUndefined();
    expect(req.headers['Content-Type']).toBeUndefined();
  });

  it('sends a whole-body argument as is', () => {
    const http: HttpBinding = { method: 'PUT', path: '/list', arguments: [{ arg: 'items', in: 'body' }] };
    expect(buildRequest(http, { items: [1, 2] }, BASE).body).toBe('[1,2]');
    expect(buildRequest(http, { items: null }, BASE).body).toBe('null');
  });

  it('merges named fields into a whole-body object', () => {
    const http: HttpBinding = {
      method: 'POST',
      path: '/x',
      arguments: [{ arg: 'body', in: 'body' }, { arg: 'extra', in: 'body', name: 'extra' }],
    };
    expect(JSON.parse(buildRequest(http, { body: { a: 1 }, extra: 2 }, BASE).body!)).toEqual({ a: 1, extra: 2 });
    expect(() => buildRequest(http, { body: [1], extra: 2 }, BASE)).toThrow(ArgumentError);
  });

  it('uses the declared +json media type as Content-Type', () => {
    const req = buildRequest({ ...createPet, bodyMediaType: 'application/merge-patch+json' }, { name: 'Rex' }, BASE);
    expect(req.headers['Content-Type']).toBe('application/merge-patch+json');
    expect(req.body).toBe('{"name":"Rex"}');
  });

  it('form-encodes application/x-www-form-urlencoded bodies like form-style query parameters', () => {
    const req = buildRequest(
      { method: 'POST', path: '/pets', arguments: [{ arg: 'body', in: 'body' }], bodyMediaType: 'application/x-www-form-urlencoded', bodyEncoding: 'form' },
      { body: { name: 'Rex & Co', tag: 3, colors: ['red', 'tan'], owner: { id: 1 } } },
      BASE,
    );
    expect(req.headers['Content-Type']).toBe('application/x-www-form-urlencoded');
    // Without an Encoding Object: arrays repeat the key, objects are sent as JSON (OAS 3.1.2 §4.8.15.2).
    expect(req.body).toBe(`name=Rex%20%26%20Co&tag=3&colors=red&colors=tan&owner=${encodeURIComponent('{"id":1}')}`);
    expect([...new URLSearchParams(req.body as string)]).toEqual([
      ['name', 'Rex & Co'],
      ['tag', '3'],
      ['colors', 'red'],
      ['colors', 'tan'],
      ['owner', '{"id":1}'],
    ]);
  });

  it('honours a field Encoding Object (deepObject) in a form body', () => {
    const req = buildRequest(
      {
        ...createPet,
        bodyMediaType: 'application/x-www-form-urlencoded',
        bodyEncoding: 'form',
        fieldEncodings: { owner: { style: 'deepObject', explode: true } },
      },
      { owner: { id: 1 } },
      BASE,
    );
    expect(req.body).toBe('owner%5Bid%5D=1');
  });

  it('sends text/plain bodies as strings', () => {
    const http: HttpBinding = { method: 'POST', path: '/note', bodyMediaType: 'text/plain', bodyEncoding: 'text', arguments: [{ arg: 'text', in: 'body' }] };
    expect(buildRequest(http, { text: 'hello\nworld' }, BASE)).toMatchObject({
      body: 'hello\nworld',
      headers: { 'Content-Type': 'text/plain' },
    });
    expect(buildRequest(http, { text: 42 }, BASE).body).toBe('42');
  });

  it('never attaches a body to GET', () => {
    const http: HttpBinding = { method: 'GET', path: '/x', arguments: [{ arg: 'b', in: 'body' }] };
    expect(buildRequest(http, { b: { a: 1 } }, BASE).body).toBeUndefined();
  });
});

describe('buildRequest: parameters described with content', () => {
  it('sends a JSON-content query parameter as one JSON string, percent-encoded', () => {
    const http: HttpBinding = {
      method: 'GET',
      path: '/search',
      arguments: [{ arg: 'filter', in: 'query', name: 'filter', style: 'form', explode: true, contentType: 'application/json' }],
    };
    const req = buildRequest(http, { filter: { tag: 'a b', max: 3 } }, 'http://127.0.0.1:1/api');
    expect(new URL(req.url).searchParams.get('filter')).toBe('{"tag":"a b","max":3}');
    expect(req.url).toContain('filter=%7B%22tag%22%3A%22a%20b%22%2C%22max%22%3A3%7D');
  });
});
