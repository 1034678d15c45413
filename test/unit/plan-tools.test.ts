import { describe, expect, it } from 'vitest';
import { planTools } from '../../src/tools/plan-tools.js';
import { TOOL_NAME_PATTERN } from '../../src/tools/naming.js';
import { compile } from './json-schema.js';
import { body, deepFreeze, model, names, operation, parameter, petSchema, response, treeSchema } from './model-factory.js';

function petModel() {
  const pet = petSchema();
  const node = treeSchema();
  return model(
    [
      operation('GET', '/pets', {
        operationId: 'listPets',
        summary: 'List pets',
        parameters: [parameter('limit', 'query', { type: 'integer', maximum: 100 })],
        responses: [
          response('200', { type: 'array', items: pet }, { description: 'A page of pets', contents: [
            { mediaType: 'application/json', schema: { type: 'array', items: pet } },
            { mediaType: 'application/xml', schema: { type: 'array', items: pet } },
          ] }),
        ],
      }),
      operation('POST', '/pets', {
        operationId: 'createPet',
        requestBody: body(pet, { required: true }),
        responses: [response('201', pet, { description: 'Created' })],
      }),
      operation('DELETE', '/pets/{petId}', {
        parameters: [parameter('petId', 'path', { type: 'integer' })],
        responses: [response('204', undefined, { description: 'Deleted' })],
      }),
      operation('PUT', '/trees/{id}', {
        operationId: 'put tree',
        deprecated: true,
        parameters: [parameter('id', 'path'), parameter('id', 'header')],
        requestBody: body([
          { mediaType: 'text/plain', schema: { type: 'string' } },
          { mediaType: 'application/json', schema: node },
        ]),
        responses: [response('200', node), response('default', { type: 'object' })],
      }),
      operation('HEAD', '/pets', { responses: [response('200', { type: 'object' })] }),
    ],
    { schemaNames: names({ Pet: pet, Node: node }) },
  );
}

describe('planTools', () => {
  const tools = planTools(deepFreeze(petModel()));

  it('makes one tool per operation, in order, with valid unique names', () => {
    expect(tools.map((t) => t.name)).toEqual(['listPets', 'createPet', 'delete_pets_petId', 'put_tree', 'head_pets']);
    for (const t of tools) expect(t.name).toMatch(TOOL_NAME_PATTERN);
  });

  it('fills title, description and annotations', () => {
    expect(tools[0]).toMatchObject({
      title: 'List pets',
      description: 'List pets.\n\nReturns: A page of pets.',
      annotations: { title: 'List pets', readOnlyHint: true, openWorldHint: true },
    });
    expect(tools[1]).not.toHaveProperty('title');
    expect(tools[1]!.annotations).toStrictEqual({ readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true });
    expect(tools[2]!.annotations).toMatchObject({ destructiveHint: true, idempotentHint: true });
    expect(tools[3]!.description.startsWith('Deprecated.\n\nCalls PUT /trees/{id}.')).toBe(true);
  });

  it('binds the HTTP request: method, path, arguments, body media type and Accept', () => {
    expect(tools[0]!.http).toStrictEqual({
      method: 'GET',
      path: '/pets',
      arguments: [{ arg: 'limit', in: 'query', name: 'limit', style: 'form', explode: true }],
      accept: ['application/json', 'application/xml'],
    });
    expect(tools[1]!.http).toStrictEqual({
      method: 'POST',
      path: '/pets',
      arguments: [{ arg: 'body', in: 'body' }],
      bodyMediaType: 'application/json',
      bodyEncoding: 'json',
      accept: ['application/json'],
    });
    expect(tools[2]!.http).toStrictEqual({
      method: 'DELETE',
      path: '/pets/{petId}',
      arguments: [{ arg: 'petId', in: 'path', name: 'petId', style: 'simple', explode: false }],
    });
    expect(tools[3]!.http.arguments.map((a) => a.arg)).toEqual(['id', 'header_id', 'body']);
    expect(tools[3]!.http.bodyMediaType).toBe('application/json');
  });

  it('has an output schema only where the success response has a JSON schema', () => {
    expect(tools.map((t) => t.output?.wrapKey ?? (t.output ? 'object' : 'none'))).toEqual(['result', 'object', 'none', 'object', 'none']);
    expect(tools[1]!.output!.schema).toStrictEqual({
      type: 'object',
      properties: { id: { type: 'integer', readOnly: true }, name: { type: 'string' } },
    });
  });

  it('produces input and output schemas that compile, with $defs for recursion', () => {
    for (const t of tools) {
      expect(t.inputSchema.type).toBe('object');
      compile(t.inputSchema);
      if (t.output) compile(t.output.schema);
    }
    expect(Object.keys(tools[3]!.inputSchema.$defs as object)).toEqual(['Node']);
    expect(Object.keys(tools[3]!.output!.schema.$defs as object)).toEqual(['Node']);
  });

  it('is pure and JSON-serializable: the same model gives the same plan', () => {
    expect(JSON.parse(JSON.stringify(tools))).toStrictEqual(tools);
    expect(planTools(petModel())).toStrictEqual(tools);
  });
});
