import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ArgumentError, buildRequest } from '../../runtime/build-request.js';
import type { HttpBinding } from '../../runtime/types.js';

/**
 * Property: whatever a model sends, the request stays on the configured origin and below the base
 * path, headers carry no CR/LF, and the only exception is an ArgumentError the model can act on.
 */
const BASE = 'https://api.example.test/v1';

const http: HttpBinding = {
  method: 'POST',
  path: '/pets/{petId}/photos/{photoId}',
  arguments: [
    { arg: 'petId', in: 'path', name: 'petId', style: 'simple', explode: false },
    { arg: 'photoId', in: 'path', name: 'photoId', style: 'label', explode: true },
    { arg: 'q', in: 'query', name: 'q', style: 'form', explode: true },
    { arg: 'raw', in: 'query', name: 'raw', style: 'form', explode: false, allowReserved: true },
    { arg: 'filter', in: 'query', name: 'filter', style: 'deepObject', explode: true },
    { arg: 'trace', in: 'header', name: 'X-Trace', style: 'simple', explode: false },
    { arg: 'session', in: 'cookie', name: 'session', style: 'form', explode: true },
    { arg: 'body', in: 'body' },
  ],
  bodyMediaType: 'application/json',
  bodyEncoding: 'json',
};

/** Strings built from the pieces attacks are made of, plus arbitrary unicode and huge values. */
const hostileString = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme', maxLength: 50 }),
  fc.constantFrom(
    '..', '.', '../admin', '..%2fadmin', '%2e%2e', '/etc/passwd', 'http://evil.test/', '//evil.test/x',
    '@evil.test', '\\\\evil.test', 'a\r\nX-Injected: 1', '\n', '\u0000', '?x=1#frag', '#', '%', '%zz',
    'javascript:alert(1)', ' ', '',
  ),
  fc.array(fc.constantFrom('..', '/', '\\', '%', '.', '@', ':', '?', '#', '\r', '\n', 'a', 'evil.test'), { maxLength: 30 }).map((a) => a.join('')),
  fc.nat({ max: 200_000 }).map((n) => 'x'.repeat(n)),
);

const hostileValue = fc.oneof(
  hostileString,
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(hostileString, { maxLength: 5 }),
  fc.dictionary(hostileString, hostileString, { maxKeys: 4 }),
);

describe('hostile arguments (fast-check)', () => {
  it('never leave the base URL, never inject header lines, and only ever fail with ArgumentError', () => {
    fc.assert(
      fc.property(
        fc.record(
          { petId: hostileValue, photoId: hostileValue, q: hostileValue, raw: hostileValue, filter: hostileValue, trace: hostileValue, session: hostileValue, body: hostileValue },
          { requiredKeys: [] },
        ),
        (args) => {
          let request;
          try {
            request = buildRequest(http, args, BASE);
          } catch (error) {
            expect(error).toBeInstanceOf(ArgumentError);
            return;
          }
          const url = new URL(request.url);
          expect(url.origin).toBe('https://api.example.test');
          expect(url.pathname.startsWith('/v1/pets/')).toBe(true);
          // Each path parameter stays one segment: /v1/pets/<one>/photos/<one>
          expect(url.pathname.split('/')).toHaveLength(6);
          expect(url.pathname.split('/')[4]).toBe('photos');
          for (const value of Object.values(request.headers)) expect(value).not.toMatch(/[\r\n\0]/);
        },
      ),
      { numRuns: 2000 },
    );
  });
});
