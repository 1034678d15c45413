import { describe, expect, it } from 'vitest';
import { toolDescription, toolTitle } from '../../src/tools/describe.js';
import type { ApiOperation } from '../../src/model/api-model.js';
import { operation, response } from './model-factory.js';

describe('toolTitle', () => {
  it.each<[string | undefined, string | undefined]>([
    ['List pets', 'List pets'],
    ['  List\n   all   pets ', 'List all pets'],
    ['   ', undefined],
    [undefined, undefined],
  ])('summary %j → %j', (summary, want) => {
    expect(toolTitle(operation('GET', '/pets', { summary }))).toBe(want);
  });
});

describe('toolDescription', () => {
  it.each<[string, Partial<ApiOperation>, string]>([
    ['summary only, gets a period', { summary: 'List pets' }, 'List pets.'],
    ['summary keeps its own punctuation', { summary: 'Is it alive?' }, 'Is it alive?'],
    [
      'summary and description',
      { summary: 'List pets', description: 'Pages through\nall pets.' },
      'List pets.\n\nPages through\nall pets.',
    ],
    ['description equal to summary is not repeated', { summary: 'List pets', description: ' List pets ' }, 'List pets.'],
    ['description only', { description: 'Lists every pet.' }, 'Lists every pet.'],
    ['neither: says what it calls', {}, 'Calls GET /pets.'],
    [
      'returns from the success response',
      { summary: 'List pets', responses: [response('404', undefined, { description: 'Not found' }), response('200', undefined, { description: 'A page of pets' })] },
      'List pets.\n\nReturns: A page of pets.',
    ],
    [
      'returns: a lone default response describes success',
      { summary: 'List pets', responses: [response('default', undefined, { description: 'Pets' })] },
      'List pets.\n\nReturns: Pets.',
    ],
    [
      'returns: nothing from error responses',
      { summary: 'List pets', responses: [response('400', undefined, { description: 'Bad' }), response('default', undefined, { description: 'Error' })] },
      'List pets.',
    ],
    [
      'deprecated goes first',
      { summary: 'Old list', deprecated: true, responses: [response('200', undefined, { description: 'Pets.' })] },
      'Deprecated.\n\nOld list.\n\nReturns: Pets.',
    ],
  ])('%s', (_, extra, want) => {
    expect(toolDescription(operation('GET', '/pets', extra))).toBe(want);
  });

  it('cuts long text to 1500 characters, ending with an ellipsis', () => {
    const long = toolDescription(operation('GET', '/pets', { summary: 'Short', description: 'word '.repeat(1000) }));
    expect(long.length).toBeLessThanOrEqual(1500);
    expect(long.endsWith('…')).toBe(true);
    expect(long.startsWith('Short.\n\nword word')).toBe(true);
    expect(long).not.toMatch(/\s…$/);
  });

  it('leaves text of exactly 1500 characters alone', () => {
    const text = `${'x'.repeat(1499)}.`;
    expect(toolDescription(operation('GET', '/pets', { description: text }))).toBe(text);
  });
});
