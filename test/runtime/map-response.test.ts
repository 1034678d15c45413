import { describe, expect, it } from 'vitest';
import { failureResult, stripControlChars, toToolResult, type UpstreamSuccess } from '../../runtime/map-response.js';
import type { OutputBinding, ToolDefinition } from '../../runtime/types.js';

function tool(output?: OutputBinding): ToolDefinition {
  const def: ToolDefinition = {
    name: 'get_pet',
    description: 'Get a pet',
    annotations: {},
    inputSchema: { type: 'object' },
    http: { method: 'GET', path: '/pets/{petId}', arguments: [] },
  };
  if (output) def.output = output;
  return def;
}

const petOutput: OutputBinding = { schema: { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'] } };
const listOutput: OutputBinding = { schema: { type: 'object', properties: { items: { type: 'array' } } }, wrapKey: 'items' };

function res(
  status: number,
  contentType: string,
  body: string | Uint8Array,
  extra: Partial<UpstreamSuccess> = {},
): UpstreamSuccess {
  const bytes = typeof body === 'string' ? new TextEncoder().encode(body) : body;
  const headers = new Headers(contentType ? { 'content-type': contentType } : {});
  return { ok: true, status, statusText: extra.statusText ?? '', headers, contentType, body: bytes, truncated: false, ...extra };
}

const requireId = (value: unknown) =>
  typeof value === 'object' && value !== null && 'id' in value ? undefined : 'must have required property "id"';

function textOf(result: { content: Array<{ type: string; text?: string }> }): string {
  return result.content.map((c) => c.text ?? '').join('\n');
}

describe('toToolResult: 2xx JSON', () => {
  it('returns compact JSON text only when the tool has no output schema', () => {
    const result = toToolResult(tool(), res(200, 'application/json', '{ "id": 1,\n "name": "Rex" }'));
    expect(result).toEqual({ content: [{ type: 'text', text: '{"id":1,"name":"Rex"}' }] });
  });

  it('returns structuredContent and its JSON text when the tool has an output schema', () => {
    const result = toToolResult(tool(petOutput), res(200, 'application/json; charset=utf-8', '{"id":1}'), requireId);
    expect(result).toEqual({ content: [{ type: 'text', text: '{"id":1}' }], structuredContent: { id: 1 } });
  });

  it('accepts +json media types', () => {
    const result = toToolResult(tool(petOutput), res(200, 'application/vnd.api+json', '{"id":2}'));
    expect(result.structuredContent).toEqual({ id: 2 });
  });

  it('wraps under wrapKey', () => {
    const result = toToolResult(tool(listOutput), res(200, 'application/json', '[1,2]'));
    expect(result).toEqual({ content: [{ type: 'text', text: '{"items":[1,2]}' }], structuredContent: { items: [1, 2] } });
  });

  it('wraps non-object JSON under "result" when there is no wrapKey', () => {
    const result = toToolResult(tool({ schema: { type: 'object' } }), res(200, 'application/json', '"ok"'));
    expect(result.structuredContent).toEqual({ result: 'ok' });
  });

  it('sniffs JSON when the content type is missing', () => {
    expect(toToolResult(tool(petOutput), res(200, '', '{"id":3}')).structuredContent).toEqual({ id: 3 });
    expect(toToolResult(tool(), res(200, '', 'plain words'))).toEqual({ content: [{ type: 'text', text: 'plain words' }] });
  });

  it('reports an upstream that deviates from its own schema, without structuredContent', () => {
    const result = toToolResult(tool(petOutput), res(200, 'application/json', '{"name":"Rex"}'), requireId);
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toBeUndefined();
    expect(textOf(result)).toContain('did not match the documented output schema: must have required property "id"');
    expect(textOf(result)).toContain('{"name":"Rex"}');
  });
});

describe('toToolResult: 2xx malformed JSON', () => {
  it('returns the raw text with a note', () => {
    const result = toToolResult(tool(), res(200, 'application/json', '{"id": 1,'));
    expect(result.isError).toBeUndefined();
    expect(textOf(result)).toBe('{"id": 1,\n(upstream declared JSON but the body is not valid JSON)');
  });

  it('is an error when the tool declares output (no structuredContent is possible)', () => {
    const result = toToolResult(tool(petOutput), res(200, 'application/json', '<html>oops</html>'));
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toBeUndefined();
    expect(textOf(result)).toContain('The request succeeded (HTTP 200)');
    expect(textOf(result)).toContain('(upstream declared JSON but the body is not valid JSON)');
  });
});

describe('toToolResult: empty bodies', () => {
  it('describes 204 without output schema', () => {
    const result = toToolResult(tool(), res(204, '', '', { statusText: 'No Content' }));
    expect(result).toEqual({ content: [{ type: 'text', text: 'Request succeeded (HTTP 204 No Content).' }] });
  });

  it('fills in the reason phrase when the upstream sends none (HTTP/2)', () => {
    expect(textOf(toToolResult(tool(), res(205, '', '')))).toBe('Request succeeded (HTTP 205 Reset Content).');
  });

  it('describes an empty 200 body', () => {
    expect(textOf(toToolResult(tool(), res(200, 'application/json', '', { statusText: 'OK' })))).toBe(
      'Request succeeded (HTTP 200 OK) with an empty response body.',
    );
  });

  it('returns structuredContent {} when the output schema accepts an empty object', () => {
    const result = toToolResult(tool({ schema: { type: 'object' } }), res(204, '', ''), () => undefined);
    expect(result).toEqual({
      content: [{ type: 'text', text: 'Request succeeded (HTTP 204 No Content).' }],
      structuredContent: {},
    });
  });

  it('is an error that still says the request succeeded when the schema rejects {}', () => {
    const result = toToolResult(tool(petOutput), res(204, '', ''), requireId);
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toBeUndefined();
    expect(textOf(result)).toMatch(/^Request succeeded \(HTTP 204 No Content\)\..*must have required property "id".*Do not retry/s);
  });

  it('falls back to the schema\'s "required" list without a validator', () => {
    expect(toToolResult(tool(petOutput), res(204, '', '')).isError).toBe(true);
    expect(toToolResult(tool({ schema: { type: 'object' } }), res(204, '', '')).structuredContent).toEqual({});
  });
});

describe('toToolResult: non-JSON 2xx', () => {
  it('returns text/* as text, honouring the charset', () => {
    expect(toToolResult(tool(), res(200, 'text/plain', 'hello'))).toEqual({ content: [{ type: 'text', text: 'hello' }] });
    const latin1 = new Uint8Array([0x63, 0x61, 0x66, 0xe9]); // "café" in ISO-8859-1
    expect(textOf(toToolResult(tool(), res(200, 'text/plain; charset=iso-8859-1', latin1)))).toBe('café');
    expect(textOf(toToolResult(tool(), res(200, 'application/xml', '<a/>')))).toBe('<a/>');
  });

  it('returns image/* as base64 image content', () => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47]);
    expect(toToolResult(tool(), res(200, 'image/png', png))).toEqual({
      content: [{ type: 'image', data: 'iVBORw==', mimeType: 'image/png' }],
    });
  });

  it('returns audio/* as base64 audio content', () => {
    expect(toToolResult(tool(), res(200, 'audio/mpeg', new Uint8Array([1, 2, 3])))).toEqual({
      content: [{ type: 'audio', data: 'AQID', mimeType: 'audio/mpeg' }],
    });
  });

  it('returns other binary content as an embedded resource', () => {
    expect(toToolResult(tool(), res(200, 'application/pdf', new Uint8Array([0x25, 0x50, 0x44, 0x46])))).toEqual({
      content: [{ type: 'resource', resource: { uri: 'upstream://get_pet/response', mimeType: 'application/pdf', blob: 'JVBERg==' } }],
    });
  });

  it('treats a body without content type that is not UTF-8 as binary', () => {
    const result = toToolResult(tool(), res(200, '', new Uint8Array([0xff, 0xfe, 0x00])));
    expect(result.content[0]).toMatchObject({ type: 'resource', resource: { mimeType: 'application/octet-stream' } });
  });

  it('is an error (with the content kept) when the tool declares output', () => {
    const result = toToolResult(tool(petOutput), res(200, 'text/html', '<p>hi</p>'));
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('text/html');
    expect(result.content.at(-1)).toEqual({ type: 'text', text: '<p>hi</p>' });
  });
});

describe('toToolResult: non-2xx', () => {
  it('reports status, operation and the trimmed body', () => {
    const result = toToolResult(tool(petOutput), res(404, 'text/plain', '  no such pet \n', { statusText: 'Not Found' }));
    expect(result).toEqual({ content: [{ type: 'text', text: 'HTTP 404 Not Found from GET /pets/{petId}\nno such pet' }], isError: true });
  });

  it('compacts JSON error bodies', () => {
    const result = toToolResult(tool(), res(400, 'application/problem+json', '{\n  "title": "Bad"\n}', { statusText: 'Bad Request' }));
    expect(textOf(result)).toBe('HTTP 400 Bad Request from GET /pets/{petId}\n{"title":"Bad"}');
  });

  it('cuts long bodies to about 2000 characters', () => {
    const result = toToolResult(tool(), res(500, 'text/html', 'x'.repeat(5000)));
    const text = textOf(result);
    expect(text).toContain('x'.repeat(2000) + '… (3000 more characters)');
    expect(text).not.toContain('x'.repeat(2001));
  });

  it('describes binary error bodies instead of dumping them', () => {
    expect(textOf(toToolResult(tool(), res(502, 'image/png', new Uint8Array(10))))).toBe(
      'HTTP 502 from GET /pets/{petId}\n(10 bytes of image/png)',
    );
  });

  it('mentions Retry-After and unfollowed redirects', () => {
    const limited = res(429, 'text/plain', 'slow down');
    limited.headers.set('retry-after', '30');
    expect(textOf(toToolResult(tool(), limited))).toBe('HTTP 429 from GET /pets/{petId}\nRetry-After: 30\nslow down');
    expect(textOf(toToolResult(tool(), res(302, '', '')))).toContain('redirect not followed');
  });
});

describe('toToolResult: truncation and control characters', () => {
  it('notes truncation and never parses a truncated JSON body', () => {
    const result = toToolResult(tool(), res(200, 'application/json', '{"id":1}', { truncated: true }));
    expect(result.structuredContent).toBeUndefined();
    expect(textOf(result)).toBe('{"id":1}\n(response truncated at 8 bytes)');
    const withOutput = toToolResult(tool(petOutput), res(200, 'application/json', '{"id":1}', { truncated: true }), requireId);
    expect(withOutput.isError).toBe(true);
    expect(withOutput.structuredContent).toBeUndefined();
    expect(textOf(withOutput)).toContain('(response truncated at 8 bytes)');
  });

  it('notes truncation of text and of error bodies', () => {
    expect(textOf(toToolResult(tool(), res(200, 'text/plain', 'abc', { truncated: true })))).toBe('abc\n(response truncated at 3 bytes)');
    expect(textOf(toToolResult(tool(), res(500, 'text/plain', 'abc', { truncated: true })))).toContain('(response truncated at 3 bytes)');
  });

  it('does not return a truncated (corrupt) image', () => {
    const result = toToolResult(tool(), res(200, 'image/png', new Uint8Array(4), { truncated: true }));
    expect(result.content).toEqual([{ type: 'text', text: expect.stringContaining('truncated') }]);
  });

  it('strips ASCII control characters except newline and tab from all text', () => {
    expect(textOf(toToolResult(tool(), res(200, 'text/plain', 'a\u0000b\u001b[31mc\r\n\td\u007f')))).toBe('ab[31mc\n\td');
    expect(textOf(toToolResult(tool(), res(500, 'text/plain', 'bad\u0007 thing')))).toContain('bad thing');
    expect(textOf(toToolResult(tool(), res(200, 'application/json', '{"id": 1,\u0001')))).not.toContain('\u0001');
    expect(stripControlChars('x\u0008y\nz\tw')).toBe('xy\nz\tw');
  });
});

describe('failureResult', () => {
  it('is an error result with the message as text', () => {
    expect(failureResult('Upstream request timed out after 100 ms')).toEqual({
      content: [{ type: 'text', text: 'Upstream request timed out after 100 ms' }],
      isError: true,
    });
    expect(failureResult('a\u0000b')).toEqual({ content: [{ type: 'text', text: 'ab' }], isError: true });
  });
});

describe('toToolResult: response headers a model can act on', () => {
  const tool: ToolDefinition = {
    name: 'createThing',
    description: 'Create',
    annotations: {},
    inputSchema: { type: 'object' },
    http: { method: 'POST', path: '/things', arguments: [] },
  };
  const response = (status: number, headers: Record<string, string>) => ({
    ok: true as const,
    status,
    statusText: '',
    headers: new Headers(headers),
    contentType: 'application/json',
    body: new TextEncoder().encode('{"id":1}'),
    truncated: false,
  });

  it('surfaces Location, Link and rate-limit headers as a separate text block, never cookies', () => {
    const result = toToolResult(
      tool,
      response(201, {
        Location: '/things/1',
        Link: '<https://api.example.com/things?page=2>; rel="next"',
        'X-RateLimit-Remaining': '41',
        'Set-Cookie': 'session=secret',
        'X-Internal': 'nope',
      }),
    );
    expect(result.content[0]).toEqual({ type: 'text', text: '{"id":1}' });
    const headers = result.content[1];
    expect(headers?.type).toBe('text');
    const lines = (headers as { text: string }).text.split('\n');
    expect(lines).toEqual([
      'Response headers:',
      'link: <https://api.example.com/things?page=2>; rel="next"',
      'location: /things/1',
      'x-ratelimit-remaining: 41',
    ]);
  });

  it('adds nothing when no such header is present', () => {
    expect(toToolResult(tool, response(200, { 'Content-Type': 'application/json' })).content).toHaveLength(1);
  });
});
