import type { Redis } from 'ioredis';
import { AppError } from './errors.js';

/** The counted attempts or failures of one key in its current window. */
interface FailureWindow {
  failures: number;
  resetAtMs: number;
}

/** Where counts live: this process's memory, or Redis shared by every API process. */
export interface FailureStore {
  current(key: string): Promise<FailureWindow | undefined>;
  /** Counts one, atomically, opening a window of `windowMs` when none is open; the window after counting. */
  add(key: string, windowMs: number): Promise<FailureWindow>;
  /** Takes one back (a reserved attempt that succeeded or was refused); never opens a window. */
  remove(key: string): Promise<void>;
}

/**
 * Failures counted per key (a client address with the id the caller presented, an account, a
 * user's second factor) in fixed windows. Two ways to use it:
 *
 * - `recordFailure` after a secret that cannot be guessed (an operator key, a client secret) was
 *   found wrong: the caller is answered 429 once its key has failed `failuresMax` times. A right
 *   secret is checked first and never refused, so other callers' failures never lock it out.
 * - `reserve` before a secret that can be guessed (a password, a TOTP code) is checked: the attempt
 *   is counted first, atomically, so concurrent attempts cannot all pass a check made before any was
 *   counted; a success gives its attempt back.
 *
 * Every 429 is retryable (nothing was done) and says when with Retry-After.
 */
export class AuthFailureLimiter {
  constructor(
    private readonly failuresMax: number,
    private readonly windowMs: number,
    private readonly store: FailureStore,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether the key has used up its failures in the current window. */
  async isLimited(key: string): Promise<boolean> {
    const window = await this.store.current(key);
    return window !== undefined && window.failures >= this.failuresMax;
  }

  /** The 429 for a key whose window ends at `resetAtMs`. */
  limited(resetAtMs: number): AppError {
    const retryAfterSec = Math.max(1, Math.ceil((resetAtMs - this.now()) / 1000));
    return new AppError({
      status: 429,
      code: 'RATE_LIMITED',
      message: `Too many failed authentication attempts: retry in ${retryAfterSec} s`,
      retryable: true,
      headers: { 'retry-after': String(retryAfterSec) },
    });
  }

  /** Counts a failure of the key; the 429 to answer once it has failed more than `failuresMax` times, else undefined. */
  async recordFailure(key: string): Promise<AppError | undefined> {
    const window = await this.store.add(key, this.windowMs);
    return window.failures > this.failuresMax ? this.limited(window.resetAtMs) : undefined;
  }

  /**
   * Counts an attempt on each key before the secret is checked; throws 429 (counting nothing) when
   * any key has used up its attempts. The returned function gives the attempts back (on success).
   */
  async reserve(keys: readonly string[]): Promise<() => Promise<void>> {
    const windows = await Promise.all(keys.map((key) => this.store.add(key, this.windowMs)));
    const release = async () => void (await Promise.all(keys.map((key) => this.store.remove(key))));
    const over = windows.filter((w) => w.failures > this.failuresMax);
    if (over.length > 0) {
      await release();
      throw this.limited(Math.max(...over.map((w) => w.resetAtMs)));
    }
    return release;
  }
}

/** Counts in this process: with several API processes, a key gets the limit at each. */
export class MemoryFailureStore implements FailureStore {
  private readonly windows = new Map<string, FailureWindow>();

  constructor(
    /** Keys remembered at once; beyond this the oldest windows are forgotten first. */
    private readonly keysMax: number,
    private readonly now: () => number = Date.now,
  ) {}

  async current(key: string): Promise<FailureWindow | undefined> {
    return this.open(key);
  }

  async add(key: string, windowMs: number): Promise<FailureWindow> {
    const window = this.open(key);
    if (window) {
      window.failures++;
      return { ...window };
    }
    if (this.windows.size >= this.keysMax) this.forgetOldest();
    const opened = { failures: 1, resetAtMs: this.now() + windowMs };
    this.windows.set(key, opened);
    return { ...opened };
  }

  async remove(key: string): Promise<void> {
    const window = this.open(key);
    if (window && window.failures > 0) window.failures--;
  }

  private open(key: string): FailureWindow | undefined {
    const window = this.windows.get(key);
    if (window && window.resetAtMs <= this.now()) {
      this.windows.delete(key);
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
    for (const [key, window] of this.windows) {
      if (window.resetAtMs > now) break;
      this.windows.delete(key);
    }
    if (this.windows.size < this.keysMax) return;
    const oldest = this.windows.keys().next();
    if (!oldest.done) this.windows.delete(oldest.value);
  }
}

/** Opens the window with the first count (never extended by later ones), counts one: the count and the window's time left. */
const ADD_SCRIPT = `redis.call('SET', KEYS[1], '0', 'PX', ARGV[1], 'NX')
local n = redis.call('INCR', KEYS[1])
return {n, redis.call('PTTL', KEYS[1])}`;

/** Takes one back only while the window is open (a DECR on an ended window would leave a key with no expiry). */
const REMOVE_SCRIPT = `if redis.call('PTTL', KEYS[1]) > 0 and tonumber(redis.call('GET', KEYS[1])) > 0 then return redis.call('DECR', KEYS[1]) end
return 0`;

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

  private key(key: string): string {
    return `corridor-auth-failures:${key}`;
  }

  async current(key: string): Promise<FailureWindow | undefined> {
    try {
      const replies = await this.redis.multi().get(this.key(key)).pttl(this.key(key)).exec();
      const failures = Number(replies?.[0]?.[1] ?? 0);
      const ttlMs = Number(replies?.[1]?.[1] ?? -2);
      if (!failures || ttlMs <= 0) return undefined;
      return { failures, resetAtMs: this.now() + ttlMs };
    } catch {
      return this.fallback.current(key);
    }
  }

  async add(key: string, windowMs: number): Promise<FailureWindow> {
    try {
      const [failures, ttlMs] = (await this.redis.eval(ADD_SCRIPT, 1, this.key(key), String(windowMs))) as [number, number];
      return { failures: Number(failures), resetAtMs: this.now() + Math.max(Number(ttlMs), 0) };
    } catch {
      return this.fallback.add(key, windowMs);
    }
  }

  async remove(key: string): Promise<void> {
    try {
      await this.redis.eval(REMOVE_SCRIPT, 1, this.key(key));
    } catch {
      await this.fallback.remove(key);
    }
  }
}
