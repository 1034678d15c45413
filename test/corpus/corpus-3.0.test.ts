/**
 * Every OpenAPI 3.0 document of @readme/oas-examples (JSON variants, the openapi-workshop
 * subfolder included), end to end: generate, build with strict tsc, start and list with the v1 and
 * v2 MCP clients, Ajv-compile every schema, and answer one tool call. See
 * test/support/corpus-suite.ts for what each stage checks.
 */
import { oasExampleDocuments } from '../support/corpus.js';
import {
  defineCorpusSuite,
  type ExpectedRejections,
  type KnownFailures,
} from '../support/corpus-suite.js';

/**
 * Real, reproduced generator/runtime bugs; each entry's test runs as it.fails. Empty: the ones this
 * suite found (draft-04 in 3.1, unknown formats on stderr, undeclared schemes) are fixed.
 */
const KNOWN_FAILURES: KnownFailures = {};

/** Documents that are invalid, so that rejecting them is right. */
const EXPECTED_REJECTIONS: ExpectedRejections = {
  '3.0/openapi-workshop/post':
    '`responses: {}` on POST /hoot; OpenAPI 3.0 requires at least one response code (Responses Object, minProperties 1 in the official schema)',
};

defineCorpusSuite({
  name: 'oas-examples 3.0',
  documents: oasExampleDocuments('3.0'),
  knownFailures: KNOWN_FAILURES,
  expectedRejections: EXPECTED_REJECTIONS,
});
