import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // e2e suites install and build generated projects before their tests.
    testTimeout: 60_000,
    hookTimeout: 300_000,
  },
});
