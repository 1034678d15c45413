/** The bundled specs whose generated output is committed under generated-examples/. */
export const EXAMPLES = [
  { spec: 'fixtures/openapi-3.0/petstore.yaml', dir: 'generated-examples/petstore-openapi3' },
  { spec: 'fixtures/openapi-2.0/petstore.yaml', dir: 'generated-examples/petstore-swagger2' },
  { spec: 'fixtures/openapi-3.1/bookshop.yaml', dir: 'generated-examples/bookshop-openapi31' },
] as const;
