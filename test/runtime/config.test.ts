import { describe, expect, it } from 'vitest';
import { readConfig } from '../../runtime/config.js';

const INFO = { name: 'x', version: '1', defaultBaseUrl: 'https://api.example.test' };

describe('readConfig', () => {
  it('has every limit on by default', () => {
    expect(readConfig({}, INFO)).toEqual({
      baseUrl: 'https://api.example.test',
      timeoutMs: 30_000,
      maxResponseBytes: 10 * 1024 * 1024,
      rateLimitPerMinute: 120,
      rateBurst: 120,
      maxConcurrency: 8,
      maxRetries: 2,
      retryMaxWaitMs: 10_000,
      progressIntervalMs: 1_000,
      logBodies: false,
    });
  });

  it('reads each variable', () => {
    expect(
      readConfig(
        {
          API_TIMEOUT_MS: '5000',
          MCP_RATE_LIMIT: '30',
          MCP_RATE_BURST: '5',
          MCP_MAX_CONCURRENCY: '2',
          API_MAX_RETRIES: '4',
          API_RETRY_MAX_WAIT_MS: '2500',
          MCP_PROGRESS_INTERVAL_MS: '250',
          MCP_LOG_BODIES: '1',
        },
        INFO,
      ),
    ).toMatchObject({
      timeoutMs: 5000,
      rateLimitPerMinute: 30,
      rateBurst: 5,
      maxConcurrency: 2,
      maxRetries: 4,
      retryMaxWaitMs: 2500,
      progressIntervalMs: 250,
      logBodies: true,
    });
  });

  it('the burst follows the rate unless set', () => {
    expect(readConfig({ MCP_RATE_LIMIT: '10' }, INFO)).toMatchObject({ rateLimitPerMinute: 10, rateBurst: 10 });
  });

  it('0 turns the rate limit, the concurrency cap, retries and progress off', () => {
    expect(
      readConfig({ MCP_RATE_LIMIT: '0', MCP_MAX_CONCURRENCY: '0', API_MAX_RETRIES: '0', MCP_PROGRESS_INTERVAL_MS: '0' }, INFO),
    ).toMatchObject({ rateLimitPerMinute: 0, maxConcurrency: 0, maxRetries: 0, progressIntervalMs: 0 });
  });

  it('ignores values that are not whole numbers in range, keeping the default', () => {
    const config = readConfig(
      { MCP_RATE_LIMIT: '-1', MCP_RATE_BURST: '0', MCP_MAX_CONCURRENCY: 'lots', API_MAX_RETRIES: '1.5', API_TIMEOUT_MS: '0', MCP_PROGRESS_INTERVAL_MS: ' ' },
      INFO,
    );
    expect(config).toMatchObject({ rateLimitPerMinute: 120, rateBurst: 120, maxConcurrency: 8, maxRetries: 2, timeoutMs: 30_000, progressIntervalMs: 1000 });
  });

  it.each([
    ['1', true],
    ['true', true],
    ['YES', true],
    ['on', true],
    ['0', false],
    ['false', false],
    ['', false],
  ])('MCP_LOG_BODIES=%j → %s', (value, expected) => {
    expect(readConfig({ MCP_LOG_BODIES: value }, INFO).logBodies).toBe(expected);
  });
});
