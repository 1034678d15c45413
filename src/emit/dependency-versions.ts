/**
 * Exact versions a generated project installs. Kept equal to this repo's devDependencies, which is
 * what the runtime is type-checked and tested against.
 */
export const GENERATED_DEPENDENCY_VERSIONS = {
  server: '2.4.0',
  node: '2.1.2',
  typescript: '5.9.3',
  typesNode: '20.19.43',
} as const;
