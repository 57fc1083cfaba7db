import type { PayoutProvider, ProviderPayoutView, ProviderStep } from './provider.js';

/**
 * Production's provider until a real rail is plugged in: a submitted payout goes to processing at
 * once, and the operator settles it (pay, fail, revert) through the operator API.
 */
export class ManualProvider implements PayoutProvider {
  readonly name = 'manual';

  firstStepMs(): number {
    return 0;
  }

  canCancelProcessing(): boolean {
    return true;
  }

  nextStep(p: ProviderPayoutView): ProviderStep {
    if (p.status === 'created' || p.status === 'queued') return { move: 'process', nextInMs: null };
    return { move: 'none', nextInMs: null };
  }
}
