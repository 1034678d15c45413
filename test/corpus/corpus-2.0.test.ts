/**
 * Every Swagger 2.0 document of @readme/oas-examples (JSON variants), end to end: generate, build
 * with strict tsc, start and list with the v1 and v2 MCP clients, Ajv-compile every schema, and
 * answer one tool call. See test/support/corpus-suite.ts for what each stage checks.
 */
import { oasExampleDocuments } from '../support/corpus.js';
import {
  defineCorpusSuite,
  type ExpectedRejections,
  type KnownFailures,
} from '../support/corpus-suite.js';

/** Real, reproduced generator/runtime bugs; each entry's test runs as it.fails. */
const KNOWN_FAILURES: KnownFailures = {};

/** Documents that are invalid, so that rejecting them is right. */
const EXPECTED_REJECTIONS: ExpectedRejections = {};

defineCorpusSuite({
  name: 'oas-examples 2.0',
  documents: oasExampleDocuments('2.0'),
  knownFailures: KNOWN_FAILURES,
  expectedRejections: EXPECTED_REJECTIONS,
});
