import { describe, expect, it } from 'vitest';
import {
  TOOL_NAME_PATTERN,
  argumentName,
  assignToolNames,
  defName,
  packageName,
  preferredToolName,
  screamingSnake,
  shortHash,
} from '../../src/tools/naming.js';

const ARGUMENT_NAME_PATTERN = /^[a-zA-Z0-9_.-]{1,64}$/;

type Op = { operationId?: string; method: string; path: string };
const op = (operationId: string | undefined, method = 'GET', path = '/x'): Op => ({ operationId, method, path });

describe('preferredToolName', () => {
  it.each([
    // given operationId, want
    ['listPets', 'listPets'],
    ['list pets', 'list_pets'],
    ['pets.list', 'pets_list'],
    ['pets/list', 'pets_list'],
    ['pets::list', 'pets_list'],
    ['get-pet_by-id', 'get-pet_by-id'],
    ['créerCafé', 'creerCafe'],
    ['Ärger.über', 'Arger_uber'],
    ['  spaced  out  ', 'spaced_out'],
    ['__private__', 'private'],
    ['a..b//c', 'a_b_c'],
  ])('sanitizes operationId %j → %j', (given, want) => {
    const name = preferredToolName(given, 'GET', '/ignored');
    expect(name).toBe(want);
    expect(name).toMatch(TOOL_NAME_PATTERN);
  });

  it.each([
    ['GET', '/pets', 'get_pets'],
    ['GET', '/pets/{petId}', 'get_pets_petId'],
    ['DELETE', '/pets/{petId}/photos/{photoId}', 'delete_pets_petId_photos_photoId'],
    ['POST', '/', 'post'],
    ['PUT', '/v1.2/items', 'put_v1_2_items'],
  ])('falls back to method_path: %s %s → %j', (method, path, want) => {
    expect(preferredToolName(undefined, method, path)).toBe(want);
  });

  it('falls back to the method when nothing of the operationId survives sanitizing', () => {
    expect(preferredToolName('日本語', 'PATCH', '/x')).toBe('patch');
    expect(preferredToolName('...', 'GET', '/x')).toBe('get');
  });
});

describe('assignToolNames', () => {
  it('keeps distinct names as they are', () => {
    expect(assignToolNames([op('listPets'), op('getPet', 'GET', '/pets/{id}'), op(undefined, 'POST', '/pets')])).toEqual([
      'listPets',
      'getPet',
      'post_pets',
    ]);
  });

  it('suffixes colliding names (case-insensitively) with a hash of method and path', () => {
    const ops = [op('getPet', 'GET', '/a'), op('GetPet', 'GET', '/b'), op('other', 'GET', '/c')];
    const names = assignToolNames(ops);
    expect(names[0]).toBe(`getPet_${shortHash('GET /a')}`);
    expect(names[1]).toBe(`GetPet_${shortHash('GET /b')}`);
    expect(names[2]).toBe('other');
    for (const name of names) expect(name).toMatch(TOOL_NAME_PATTERN);
    expect(new Set(names.map((n) => n.toLowerCase())).size).toBe(names.length);
  });

  it('suffixes names that only collide after sanitizing', () => {
    const names = assignToolNames([op('list.pets', 'GET', '/a'), op('list pets', 'GET', '/b')]);
    expect(names[0]).toMatch(/^list_pets_[0-9a-f]{6}$/);
    expect(names[1]).toMatch(/^list_pets_[0-9a-f]{6}$/);
    expect(names[0]).not.toBe(names[1]);
  });

  it('suffixes an operationId that collides with another operation’s method_path fallback', () => {
    const names = assignToolNames([op('get_pets', 'GET', '/animals'), op(undefined, 'GET', '/pets')]);
    expect(names).toEqual([`get_pets_${shortHash('GET /animals')}`, `get_pets_${shortHash('GET /pets')}`]);
  });

  it('gives each operation the same name whatever the order of the operations', () => {
    const ops = [
      op('getPet', 'GET', '/a'),
      op('GETPET', 'POST', '/a'),
      op('getpet', 'GET', '/b'),
      op('unique'),
      op(undefined, 'GET', '/pets'),
      op('x'.repeat(80), 'GET', '/long'),
    ];
    const byOp = (list: Op[]) => {
      const names = assignToolNames(list);
      return new Map(list.map((o, i) => [`${o.method} ${o.path} ${o.operationId}`, names[i]]));
    };
    const forward = byOp(ops);
    expect(byOp([...ops].reverse())).toEqual(forward);
    expect(byOp([ops[3]!, ops[0]!, ops[5]!, ops[2]!, ops[4]!, ops[1]!])).toEqual(forward);
    expect(new Set([...forward.values()].map((n) => n?.toLowerCase())).size).toBe(ops.length);
  });

  it('does not rename an operation when unrelated operations are added', () => {
    const alone = assignToolNames([op('listPets', 'GET', '/pets')]);
    const withOthers = assignToolNames([op('a'), op('listPets', 'GET', '/pets'), op('b', 'POST', '/b')]);
    expect(withOthers[1]).toBe(alone[0]);
  });

  it('is deterministic across calls', () => {
    const ops = [op('dup', 'GET', '/1'), op('dup', 'GET', '/2')];
    expect(assignToolNames(ops)).toEqual(assignToolNames(ops));
  });

  it('truncates names over 64 characters and appends a hash, keeping them apart', () => {
    const prefix = 'a'.repeat(70);
    const names = assignToolNames([op(`${prefix}One`, 'GET', '/one'), op(`${prefix}Two`, 'GET', '/two')]);
    for (const name of names) {
      expect(name).toHaveLength(64);
      expect(name).toMatch(TOOL_NAME_PATTERN);
      expect(name.startsWith('a'.repeat(57))).toBe(true);
    }
    expect(names[0]).toBe(`${'a'.repeat(57)}_${shortHash('GET /one')}`);
    expect(names[0]).not.toBe(names[1]);
  });

  it('keeps a name of exactly 64 characters untouched', () => {
    const exact = 'b'.repeat(64);
    expect(assignToolNames([op(exact)])).toEqual([exact]);
  });

  it('keeps names unique even when two operations have the same method and path', () => {
    const names = assignToolNames([op('same', 'GET', '/x'), op('same', 'GET', '/x'), op('same', 'GET', '/x')]);
    expect(new Set(names).size).toBe(3);
    for (const name of names) expect(name).toMatch(TOOL_NAME_PATTERN);
  });
});

describe('argumentName', () => {
  it.each([
    ['petId', 'petId'],
    ['filter[name]', 'filter_name'],
    ['page[size]', 'page_size'],
    ['X-Request-ID', 'X-Request-ID'],
    ['api.version', 'api.version'],
    ['user name', 'user_name'],
    ['$top', 'top'],
    ['naïve', 'naive'],
    ['日本', 'arg'],
    ['', 'arg'],
  ])('%j → %j', (given, want) => {
    const name = argumentName(given);
    expect(name).toBe(want);
    expect(name).toMatch(ARGUMENT_NAME_PATTERN);
  });

  it('truncates long names with a hash of the raw name', () => {
    const a = argumentName(`${'p'.repeat(80)}[a]`);
    const b = argumentName(`${'p'.repeat(80)}[b]`);
    expect(a).toMatch(ARGUMENT_NAME_PATTERN);
    expect(a).toHaveLength(64);
    expect(a).not.toBe(b);
  });
});

describe('defName', () => {
  it('sanitizes and numbers repeats within one schema', () => {
    const used = new Set<string>();
    expect(defName('Pet', used)).toBe('Pet');
    expect(defName('Pet', used)).toBe('Pet2');
    expect(defName('Pet', used)).toBe('Pet3');
    expect(defName('io.k8s.api.core.v1.Pod', used)).toBe('io.k8s.api.core.v1.Pod');
    expect(defName('Map<String, Pet>', used)).toBe('Map_String_Pet');
    expect(defName('«»', used)).toBe('Schema');
  });
});

describe('screamingSnake', () => {
  it.each([
    ['ShopKey', 'SHOP_KEY'],
    ['api-key', 'API_KEY'],
    ['api_key', 'API_KEY'],
    ['apiKey', 'API_KEY'],
    ['APIKey', 'API_KEY'],
    ['X-API-Key', 'X_API_KEY'],
    ['petstore_auth', 'PETSTORE_AUTH'],
    ['bearer auth', 'BEARER_AUTH'],
    ['OAuth2', 'O_AUTH2'],
    ['oauth2', 'OAUTH2'],
  ])('%j → %j', (given, want) => {
    expect(screamingSnake(given)).toBe(want);
    expect(screamingSnake(given)).toMatch(/^[A-Z0-9_]+$/);
  });
});

describe('packageName', () => {
  it.each([
    ['Swagger Petstore', 'swagger-petstore-mcp'],
    ['Swagger Petstore - OpenAPI 3.0', 'swagger-petstore-openapi-3-0-mcp'],
    ['GitHub v3 REST API', 'github-v3-rest-api-mcp'],
    ['My MCP', 'my-mcp'],
    ['  ', 'api-mcp'],
    ['***', 'api-mcp'],
    ['Café API', 'cafe-api-mcp'],
  ])('%j → %j', (given, want) => {
    const name = packageName(given);
    expect(name).toBe(want);
    expect(name).toMatch(/^[a-z0-9][a-z0-9-]*$/);
  });

  it('stays within npm’s 214 characters', () => {
    expect(packageName('word '.repeat(100)).length).toBeLessThanOrEqual(214);
  });
});
