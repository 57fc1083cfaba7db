import type { Redis } from 'ioredis';
import { AppError } from './errors.js';

/** The failures of one client address in its current window. */
interface FailureWindow {
  failures: number;
  resetAtMs: number;
}

/** Where failure counts live: this process's memory, or Redis shared by every API process. */
export interface FailureStore {
  current(address: string): Promise<FailureWindow | undefined>;
  /** Counts one failure, opening a window of `windowMs` when none is open. */
  add(address: string, windowMs: number): Promise<void>;
}

/**
 * Failed authentication (wrong operator keys, wrong client id or secret at the token endpoint) per
 * client address, in fixed windows. Once an address has failed `failuresMax` times in a window,
 * every authentication attempt from it is answered 429 with Retry-After, before any secret is
 * checked, until the window ends. Successes are not counted.
 */
export class AuthFailureLimiter {
  constructor(
    private readonly failuresMax: number,
    private readonly windowMs: number,
    private readonly store: FailureStore,
    private readonly now: () => number = Date.now,
  ) {}

  /** Throws 429 RATE_LIMITED (with Retry-After) when the address has used up its failures. */
  async check(address: string): Promise<void> {
    const window = await this.store.current(address);
    if (!window || window.failures < this.failuresMax) return;
    const retryAfterSec = Math.max(1, Math.ceil((window.resetAtMs - this.now()) / 1000));
    throw new AppError({
      status: 429,
      code: 'RATE_LIMITED',
      message: `Too many failed authentication attempts: retry in ${retryAfterSec} s`,
      retryable: true,
      headers: { 'retry-after': String(retryAfterSec) },
    });
  }

  async recordFailure(address: string): Promise<void> {
    await this.store.add(address, this.windowMs);
  }
}

/** Counts in this process: with several API processes, an address gets the limit at each. */
export class MemoryFailureStore implements FailureStore {
  private readonly windows = new Map<string, FailureWindow>();

  constructor(
    /** Addresses remembered at once; beyond this the oldest windows are forgotten first. */
    private readonly addressesMax: number,
    private readonly now: () => number = Date.now,
  ) {}

  async current(address: string): Promise<FailureWindow | undefined> {
    return this.open(address);
  }

  async add(address: string, windowMs: number): Promise<void> {
    const window = this.open(address);
    if (window) {
      window.failures++;
      return;
    }
    if (this.windows.size >= this.addressesMax) this.forgetOldest();
    this.windows.set(address, { failures: 1, resetAtMs: this.now() + windowMs });
  }

  private open(address: string): FailureWindow | undefined {
    const window = this.windows.get(address);
    if (window && window.resetAtMs <= this.now()) {
      this.windows.delete(address);
      return undefined;
    }
    return window;
  }

  /**
   * Windows are created in time order with one length, so the Map's first entries (insertion order)
   * end first: drop those that have ended, and the oldest one if none had. Amortised O(1).
   */
  private forgetOldest(): void {
    const now = this.now();
    for (const [address, window] of this.windows) {
      if (window.resetAtMs > now) break;
      this.windows.delete(address);
    }
    if (this.windows.size < this.addressesMax) return;
    const oldest = this.windows.keys().next();
    if (!oldest.done) this.windows.delete(oldest.value);
  }
}

/**
 * Counts in Redis (REDIS_URL), shared by every API process, as the per-IP rate limits are. When
 * Redis does not answer, this process's own counts are used meanwhile.
 */
export class RedisFailureStore implements FailureStore {
  constructor(
    private readonly redis: Redis,
    private readonly fallback: FailureStore,
    private readonly now: () => number = Date.now,
  ) {}

  private key(address: string): string {
    return `corridor-auth-failures:${address}`;
  }

  async current(address: string): Promise<FailureWindow | undefined> {
    try {
      const replies = await this.redis.multi().get(this.key(address)).pttl(this.key(address)).exec();
      const failures = Number(replies?.[0]?.[1] ?? 0);
      const ttlMs = Number(replies?.[1]?.[1] ?? -2);
      if (!failures || ttlMs <= 0) return undefined;
      return { failures, resetAtMs: this.now() + ttlMs };
    } catch {
      return this.fallback.current(address);
    }
  }

  async add(address: string, windowMs: number): Promise<void> {
    try {
      // The window opens with the first failure and is never extended by later ones.
      await this.redis.multi().set(this.key(address), '0', 'PX', windowMs, 'NX').incr(this.key(address)).exec();
    } catch {
      await this.fallback.add(address, windowMs);
    }
  }
}
