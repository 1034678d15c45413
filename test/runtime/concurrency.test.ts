import { describe, expect, it } from 'vitest';
import { Semaphore, type Release } from '../../runtime/concurrency.js';

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('Semaphore', () => {
  it('never lets more than max run at once, and runs everything eventually', async () => {
    const semaphore = new Semaphore(3);
    let running = 0;
    let peak = 0;
    const job = async (ms: number) => {
      const release = await semaphore.acquire();
      expect(release).toBeDefined();
      running++;
      peak = Math.max(peak, running);
      await new Promise((resolve) => setTimeout(resolve, ms));
      running--;
      release!();
    };
    await Promise.all(Array.from({ length: 20 }, (_, i) => job(5 + (i % 4) * 3)));
    expect(peak).toBe(3);
    expect(semaphore.inFlight).toBe(0);
    expect(semaphore.waiting).toBe(0);
  });

  it('grants waiting callers in arrival order', async () => {
    const semaphore = new Semaphore(1);
    const first = (await semaphore.acquire())!;
    const order: number[] = [];
    const waiters = [1, 2, 3].map((n) =>
      semaphore.acquire().then((release) => {
        order.push(n);
        release!();
      }),
    );
    await tick();
    expect(semaphore.waiting).toBe(3);
    first();
    await Promise.all(waiters);
    expect(order).toEqual([1, 2, 3]);
    expect(semaphore.inFlight).toBe(0);
  });

  it('a waiter whose signal aborts leaves the queue without a slot', async () => {
    const semaphore = new Semaphore(1);
    const held = (await semaphore.acquire())!;
    const controller = new AbortController();
    const cancelled = semaphore.acquire(controller.signal);
    const next = semaphore.acquire();
    await tick();
    expect(semaphore.waiting).toBe(2);
    controller.abort();
    expect(await cancelled).toBeUndefined();
    expect(semaphore.waiting).toBe(1);
    held();
    const release = await next;
    expect(release).toBeDefined();
    expect(semaphore.inFlight).toBe(1);
    release!();
    expect(semaphore.inFlight).toBe(0);
  });

  it('an already-aborted signal gets nothing, even with free slots', async () => {
    const semaphore = new Semaphore(2);
    expect(await semaphore.acquire(AbortSignal.abort())).toBeUndefined();
    expect(semaphore.inFlight).toBe(0);
  });

  it('releasing twice frees one slot only', async () => {
    const semaphore = new Semaphore(1);
    const a = (await semaphore.acquire())!;
    const b = semaphore.acquire();
    const c = semaphore.acquire();
    a();
    a();
    const releaseB = (await b)!;
    await tick();
    expect(semaphore.inFlight).toBe(1);
    expect(semaphore.waiting).toBe(1);
    releaseB();
    (await c)!();
    expect(semaphore.inFlight).toBe(0);
  });

  it('tryAcquire takes a free slot or returns undefined without waiting', () => {
    const semaphore = new Semaphore(1);
    const release: Release | undefined = semaphore.tryAcquire();
    expect(release).toBeDefined();
    expect(semaphore.tryAcquire()).toBeUndefined();
    release!();
    expect(semaphore.tryAcquire()).toBeDefined();
  });

  it('max 0 means no cap', async () => {
    const semaphore = new Semaphore(0);
    const releases = await Promise.all(Array.from({ length: 100 }, () => semaphore.acquire()));
    expect(releases.every((r) => r !== undefined)).toBe(true);
    expect(semaphore.inFlight).toBe(100);
  });
});
