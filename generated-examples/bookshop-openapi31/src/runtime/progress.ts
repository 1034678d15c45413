/**
 * Progress reports for a tool call that is slow to answer, for clients that asked for them (a
 * progressToken on the request): a tick every interval while the call waits on the upstream, and
 * one report per event worth knowing about (a retry, waiting for a free slot). Progress only ever
 * increases, and nothing is sent once the reporter is stopped. Sending is the caller's business
 * (server.ts turns these into notifications/progress), so this module needs no SDK.
 */

export interface ProgressUpdate {
  /** 1, 2, 3...: one more for every report. */
  progress: number;
  message: string;
}

export interface ProgressReporter {
  /** Reports `message` now (unless stopped). */
  note(message: string): void;
  /** Stops the ticks; later notes are dropped. Safe to call more than once. */
  stop(): void;
}

/** A reporter that reports nothing, for calls without a progressToken. */
export const NO_PROGRESS: ProgressReporter = { note: () => {}, stop: () => {} };

/**
 * Starts ticking: every `intervalMs`, "waiting for upstream (N s)". `send` may be async; its
 * failures are ignored (a client that went away must not fail the call).
 */
export function startProgress(
  send: (update: ProgressUpdate) => void | Promise<void>,
  intervalMs: number,
  now: () => number = Date.now,
): ProgressReporter {
  if (!(intervalMs > 0)) return NO_PROGRESS;
  const started = now();
  let progress = 0;
  let stopped = false;
  const report = (message: string) => {
    if (stopped) return;
    progress++;
    try {
      void Promise.resolve(send({ progress, message })).catch(() => {});
    } catch {
      // as above: reporting progress never fails the call
    }
  };
  const timer = setInterval(() => {
    report(`waiting for upstream (${Math.round((now() - started) / 1000)} s)`);
  }, intervalMs);
  // A pending tick must not keep the process alive on its own.
  timer.unref?.();
  return {
    note: report,
    stop: () => {
      stopped = true;
      clearInterval(timer);
    },
  };
}
