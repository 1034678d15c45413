import { describe, expect, it } from 'vitest';
import { annotationsFor } from '../../src/tools/annotations.js';
import type { HttpMethod } from '../../src/model/api-model.js';

describe('annotationsFor', () => {
  it.each<[HttpMethod, { readOnlyHint: boolean; destructiveHint?: boolean; idempotentHint?: boolean }]>([
    ['GET', { readOnlyHint: true }],
    ['HEAD', { readOnlyHint: true }],
    ['OPTIONS', { readOnlyHint: true }],
    ['TRACE', { readOnlyHint: true }],
    ['DELETE', { readOnlyHint: false, destructiveHint: true, idempotentHint: true }],
    ['PUT', { readOnlyHint: false, destructiveHint: false, idempotentHint: true }],
    ['POST', { readOnlyHint: false, destructiveHint: false, idempotentHint: false }],
    ['PATCH', { readOnlyHint: false, destructiveHint: false, idempotentHint: false }],
  ])('%s → %o, open world', (method, want) => {
    expect(annotationsFor(method, undefined)).toStrictEqual({ ...want, openWorldHint: true });
  });

  it('adds the title when there is one', () => {
    expect(annotationsFor('GET', 'List pets')).toStrictEqual({ title: 'List pets', readOnlyHint: true, openWorldHint: true });
    expect(annotationsFor('GET', '')).not.toHaveProperty('title');
  });
});
