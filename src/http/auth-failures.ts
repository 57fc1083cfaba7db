import { AppError } from './errors.js';

/**
 * Failed authentication (wrong operator keys, wrong client id or secret at the token endpoint) per
 * client address, in fixed windows. Once an address has failed `failuresMax` times in a window,
 * every authentication attempt from it is answered 429 with Retry-After, before any secret is
 * checked, until the window ends. Successes are not counted. Per process: with several API
 * processes an address gets this many failures at each.
 */
export class AuthFailureLimiter {
  private readonly windows = new Map<string, { failures: number; resetAtMs: number }>();

  constructor(
    private readonly failuresMax: number,
    private readonly windowMs: number,
    /** Addresses remembered at once; beyond this the oldest windows are forgotten first. */
    private readonly addressesMax: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Throws 429 RATE_LIMITED (with Retry-After) when the address has used up its failures. */
  check(address: string): void {
    const window = this.current(address);
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

  recordFailure(address: string): void {
    const window = this.current(address);
    if (window) {
      window.failures++;
      return;
    }
    if (this.windows.size >= this.addressesMax) this.forgetOldest();
    this.windows.set(address, { failures: 1, resetAtMs: this.now() + this.windowMs });
  }

  private current(address: string): { failures: number; resetAtMs: number } | undefined {
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
