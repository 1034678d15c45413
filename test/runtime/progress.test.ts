import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { NO_PROGRESS, startProgress, type ProgressUpdate } from '../../runtime/progress.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('startProgress', () => {
  it('ticks every interval with the time waited, progress always increasing', () => {
    const sent: ProgressUpdate[] = [];
    const reporter = startProgress((u) => void sent.push(u), 1000, () => Date.now());
    vi.advanceTimersByTime(3500);
    expect(sent).toEqual([
      { progress: 1, message: 'waiting for upstream (1 s)' },
      { progress: 2, message: 'waiting for upstream (2 s)' },
      { progress: 3, message: 'waiting for upstream (3 s)' },
    ]);
    reporter.note('HTTP 503 from the upstream; retrying in 1 s (attempt 2 of 3)');
    vi.advanceTimersByTime(500);
    expect(sent.slice(3)).toEqual([
      { progress: 4, message: 'HTTP 503 from the upstream; retrying in 1 s (attempt 2 of 3)' },
      { progress: 5, message: 'waiting for upstream (4 s)' },
    ]);
    reporter.stop();
  });

  it('sends nothing once stopped, not even notes', () => {
    const sent: ProgressUpdate[] = [];
    const reporter = startProgress((u) => void sent.push(u), 100);
    vi.advanceTimersByTime(250);
    reporter.stop();
    reporter.stop();
    reporter.note('late');
    vi.advanceTimersByTime(10_000);
    expect(sent.map((u) => u.progress)).toEqual([1, 2]);
  });

  it('a call that finishes before the first interval sends nothing', () => {
    const send = vi.fn();
    startProgress(send, 1000).stop();
    vi.advanceTimersByTime(5000);
    expect(send).not.toHaveBeenCalled();
  });

  it('ignores failures of send, synchronous or not', async () => {
    let calls = 0;
    const reporter = startProgress(() => {
      calls++;
      if (calls === 1) throw new Error('transport closed');
      return Promise.reject(new Error('transport closed'));
    }, 100);
    vi.advanceTimersByTime(250);
    await vi.runOnlyPendingTimersAsync();
    reporter.stop();
    expect(calls).toBeGreaterThanOrEqual(2);
  });

  it('interval 0 disables the ticks', () => {
    const send = vi.fn();
    const reporter = startProgress(send, 0);
    expect(reporter).toBe(NO_PROGRESS);
    vi.advanceTimersByTime(10_000);
    expect(send).not.toHaveBeenCalled();
  });
});
