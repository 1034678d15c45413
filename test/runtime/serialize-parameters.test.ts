import { describe, expect, it } from 'vitest';
import {
  ArgumentError,
  encodeReserved,
  encodeStrict,
  serializeCookieParameter,
  serializeHeaderParameter,
  serializePathParameter,
  serializeQueryParameter,
} from '../../runtime/serialize-parameters.js';
import type { ParameterStyle } from '../../runtime/types.js';

// The values of the OpenAPI 3.1.2 "Style Examples" table.
const string = 'blue';
const array = ['blue', 'black', 'brown'];
const object = { R: 100, G: 200, B: 150 };

type Row = { style: ParameterStyle; explode: boolean; value: unknown; want: string };

describe('path parameters (OpenAPI 3.1.2 style table)', () => {
  const rows: Row[] = [
    { style: 'matrix', explode: false, value: string, want: ';color=blue' },
    { style: 'matrix', explode: false, value: array, want: ';color=blue,black,brown' },
    { style: 'matrix', explode: false, value: object, want: ';color=R,100,G,200,B,150' },
    { style: 'matrix', explode: true, value: string, want: ';color=blue' },
    { style: 'matrix', explode: true, value: array, want: ';color=blue;color=black;color=brown' },
    { style: 'matrix', explode: true, value: object, want: ';R=100;G=200;B=150' },
    { style: 'label', explode: false, value: string, want: '.blue' },
    { style: 'label', explode: false, value: array, want: '.blue,black,brown' },
    { style: 'label', explode: false, value: object, want: '.R,100,G,200,B,150' },
    { style: 'label', explode: true, value: string, want: '.blue' },
    { style: 'label', explode: true, value: array, want: '.blue.black.brown' },
    { style: 'label', explode: true, value: object, want: '.R=100.G=200.B=150' },
    { style: 'simple', explode: false, value: string, want: 'blue' },
    { style: 'simple', explode: false, value: array, want: 'blue,black,brown' },
    { style: 'simple', explode: false, value: object, want: 'R,100,G,200,B,150' },
    { style: 'simple', explode: true, value: string, want: 'blue' },
    { style: 'simple', explode: true, value: array, want: 'blue,black,brown' },
    { style: 'simple', explode: true, value: object, want: 'R=100,G=200,B=150' },
    // The table's "undefined" column (an empty list) and the empty string.
    { style: 'matrix', explode: false, value: [], want: ';color' },
    { style: 'matrix', explode: true, value: [], want: ';color' },
    { style: 'label', explode: false, value: [], want: '.' },
    { style: 'simple', explode: false, value: [], want: '' },
    { style: 'matrix', explode: false, value: '', want: ';color' },
    { style: 'label', explode: false, value: '', want: '.' },
    { style: 'simple', explode: false, value: '', want: '' },
  ];
  it.each(rows)('$style explode=$explode $value -> $want', ({ style, explode, value, want }) => {
    expect(serializePathParameter('color', value, style, explode)).toBe(want);
  });

  it.each([
    ['../admin', '..%2Fadmin'],
    ['a/b?c#d', 'a%2Fb%3Fc%23d'],
    ['a b', 'a%20b'],
    ["it's (x)*!", 'it%27s%20%28x%29%2A%21'],
    ['é', '%C3%A9'],
    ['%2e%2e', '%252e%252e'],
    ['\uD800', '%EF%BF%BD'], // lone surrogate -> U+FFFD instead of a URIError
  ])('percent-encodes %j as %j', (value, want) => {
    expect(serializePathParameter('id', value, 'simple', false)).toBe(want);
  });

  it('encodes delimiters inside array items and object keys', () => {
    expect(serializePathParameter('id', ['a,b', 'c;d'], 'simple', false)).toBe('a%2Cb,c%3Bd');
    expect(serializePathParameter('id', { 'k=1': 'v.2' }, 'matrix', true)).toBe(';k%3D1=v.2');
  });

  it('stringifies booleans and numbers, JSON-stringifies nested values', () => {
    expect(serializePathParameter('id', true, 'simple', false)).toBe('true');
    expect(serializePathParameter('id', 42.5, 'label', false)).toBe('.42.5');
    expect(serializePathParameter('id', [{ a: 1 }], 'simple', false)).toBe(encodeStrict('{"a":1}'));
  });
});

describe('query parameters (OpenAPI 3.1.2 style table)', () => {
  const rows: Row[] = [
    { style: 'form', explode: false, value: string, want: 'color=blue' },
    { style: 'form', explode: false, value: array, want: 'color=blue,black,brown' },
    { style: 'form', explode: false, value: object, want: 'color=R,100,G,200,B,150' },
    { style: 'form', explode: true, value: string, want: 'color=blue' },
    { style: 'form', explode: true, value: array, want: 'color=blue&color=black&color=brown' },
    { style: 'form', explode: true, value: object, want: 'R=100&G=200&B=150' },
    { style: 'spaceDelimited', explode: false, value: array, want: 'color=blue%20black%20brown' },
    { style: 'spaceDelimited', explode: false, value: object, want: 'color=R%20100%20G%20200%20B%20150' },
    { style: 'pipeDelimited', explode: false, value: array, want: 'color=blue%7Cblack%7Cbrown' },
    { style: 'pipeDelimited', explode: false, value: object, want: 'color=R%7C100%7CG%7C200%7CB%7C150' },
    { style: 'deepObject', explode: true, value: object, want: 'color%5BR%5D=100&color%5BG%5D=200&color%5BB%5D=150' },
    // Swagger 2.0 collectionFormat tsv.
    { style: 'tabDelimited', explode: false, value: array, want: 'color=blue%09black%09brown' },
    { style: 'tabDelimited', explode: false, value: object, want: 'color=R%09100%09G%09200%09B%09150' },
    // Combinations the spec leaves undefined fall back to form.
    { style: 'spaceDelimited', explode: true, value: array, want: 'color=blue&color=black&color=brown' },
    { style: 'pipeDelimited', explode: false, value: string, want: 'color=blue' },
    { style: 'deepObject', explode: false, value: object, want: 'color%5BR%5D=100&color%5BG%5D=200&color%5BB%5D=150' },
    { style: 'deepObject', explode: true, value: string, want: 'color=blue' },
    // Empty string is a value; it is not undefined.
    { style: 'form', explode: true, value: '', want: 'color=' },
  ];
  it.each(rows)('$style explode=$explode $value -> $want', ({ style, explode, value, want }) => {
    expect(serializeQueryParameter('color', value, style, explode).join('&')).toBe(want);
  });

  it.each([undefined, null, [], {}, [null]])('skips undefined value %j', (value) => {
    expect(serializeQueryParameter('color', value, 'form', true)).toEqual([]);
    expect(serializeQueryParameter('color', value, 'form', false)).toEqual([]);
  });

  it('skips null items and properties', () => {
    expect(serializeQueryParameter('c', ['a', null, 'b'], 'form', false)).toEqual(['c=a,b']);
    expect(serializeQueryParameter('c', { a: 1, b: null }, 'deepObject', true)).toEqual(['c%5Ba%5D=1']);
  });

  it('percent-encodes names and values strictly', () => {
    expect(serializeQueryParameter('q', 'a b&c=d/e?f#g+h', 'form', true)).toEqual([
      'q=a%20b%26c%3Dd%2Fe%3Ff%23g%2Bh',
    ]);
    expect(serializeQueryParameter('filter[name]', 'x', 'form', true)).toEqual(['filter%5Bname%5D=x']);
  });

  it('allowReserved keeps reserved characters but still encodes #[]&=+ and stray %', () => {
    expect(serializeQueryParameter('p', "a/b?c:d@e!$'()*,;", 'form', true, true)).toEqual([
      "p=a/b?c:d@e!$'()*,;",
    ]);
    expect(serializeQueryParameter('p', 'x[0]#y&z=1+2', 'form', true, true)).toEqual([
      'p=x%5B0%5D%23y%26z%3D1%2B2',
    ]);
    expect(serializeQueryParameter('p', '100%2B and 5% ', 'form', true, true)).toEqual(['p=100%2B%20and%205%25%20']);
    expect(encodeReserved('é')).toBe('%C3%A9');
  });

  it('stringifies primitives and JSON-stringifies nested values', () => {
    expect(serializeQueryParameter('n', 0, 'form', true)).toEqual(['n=0']);
    expect(serializeQueryParameter('b', false, 'form', true)).toEqual(['b=false']);
    expect(serializeQueryParameter('o', { a: { b: 1 } }, 'deepObject', true)).toEqual([
      `o%5Ba%5D=${encodeStrict('{"b":1}')}`,
    ]);
    expect(serializeQueryParameter('a', [[1, 2]], 'form', true)).toEqual([`a=${encodeStrict('[1,2]')}`]);
  });
});

describe('header parameters (style simple)', () => {
  it.each([
    [false, string, 'blue'],
    [false, array, 'blue,black,brown'],
    [false, object, 'R,100,G,200,B,150'],
    [true, string, 'blue'],
    [true, array, 'blue,black,brown'],
    [true, object, 'R=100,G=200,B=150'],
  ])('explode=%s %j -> %s', (explode, value, want) => {
    expect(serializeHeaderParameter('X-Color', value, explode)).toBe(want);
  });

  it('does not percent-encode header values', () => {
    expect(serializeHeaderParameter('X-Q', 'a b/c?d "é"', false)).toBe('a b/c?d "é"');
  });

  it('leaves out undefined values', () => {
    expect(serializeHeaderParameter('X-Q', undefined, false)).toBeUndefined();
    expect(serializeHeaderParameter('X-Q', null, false)).toBeUndefined();
    expect(serializeHeaderParameter('X-Q', [], false)).toBeUndefined();
  });

  it.each(['a\r\nX-Injected: 1', 'a\nb', 'a\rb', 'a\0b'])('rejects %j with an ArgumentError naming the argument', (value) => {
    expect(() => serializeHeaderParameter('X-Q', value, false, 'requestId')).toThrow(ArgumentError);
    expect(() => serializeHeaderParameter('X-Q', value, false, 'requestId')).toThrow(/"requestId"/);
  });

  it('rejects line breaks hidden in arrays and objects', () => {
    expect(() => serializeHeaderParameter('X-Q', ['a', 'b\nc'], false)).toThrow(ArgumentError);
    expect(() => serializeHeaderParameter('X-Q', { 'k\r': 'v' }, true)).toThrow(ArgumentError);
  });

  it('rejects characters fetch cannot send in a header', () => {
    expect(() => serializeHeaderParameter('X-Q', '日本', false)).toThrow(ArgumentError);
  });
});

describe('cookie parameters (style form)', () => {
  it.each([
    [false, string, ['color=blue']],
    [false, array, ['color=blue,black,brown']],
    [false, object, ['color=R,100,G,200,B,150']],
    [true, string, ['color=blue']],
    [true, array, ['color=blue', 'color=black', 'color=brown']],
    [true, object, ['R=100', 'G=200', 'B=150']],
  ])('explode=%s %j -> %j', (explode, value, want) => {
    expect(serializeCookieParameter('color', value, explode)).toEqual(want);
  });

  it('percent-encodes characters that would break the Cookie header', () => {
    expect(serializeCookieParameter('s', 'a; b=c, "d"\r\n', false)).toEqual(['s=a%3B%20b%3Dc%2C%20%22d%22%0D%0A']);
  });

  it('leaves out undefined values', () => {
    expect(serializeCookieParameter('s', undefined, false)).toEqual([]);
  });
});
