import { currencyScale } from '../../platform/lib/money.js';
import type { Connector, ConnectorPayoutView, ConnectorStep } from '../connector.js';

/** The sandbox outcome an amount selects (DESIGN §4 Payouts, sandbox outcomes by amount). */
export type SimulatedOutcome = 'fail' | 'hold' | 'revert' | 'pay';

/**
 * The decimal part's first two digits, or the last two integer digits for zero-decimal currencies:
 * 13 fails at the provider, 14 stays in processing, 15 is paid then reverted, anything else is paid.
 */
export function simulatedOutcome(amount: string, currency: string): SimulatedOutcome {
  const [units = '', decimals = ''] = amount.split('.');
  const magic = currencyScale(currency) === 0 ? units.padStart(2, '0').slice(-2) : decimals.padEnd(2, '0').slice(0, 2);
  return ({ '13': 'fail', '14': 'hold', '15': 'revert' } as const)[magic] ?? 'pay';
}

export const SIMULATED_FAILURE_REASON = 'beneficiary_account_invalid';

/** The sandbox simulator: one step every SANDBOX_STEP_MS. queued → processing → paid (or the magic outcomes). */
export class SimulatedConnector implements Connector {
  readonly name = 'simulated';

  constructor(private readonly stepMs: number) {}

  firstStepMs(): number {
    return this.stepMs;
  }

  canCancelProcessing(): boolean {
    return true;
  }

  nextStep(p: ConnectorPayoutView): ConnectorStep {
    const outcome = simulatedOutcome(p.amount, p.currency);
    switch (p.status) {
      case 'created':
      case 'queued':
        return { move: 'process', nextInMs: this.stepMs };
      case 'processing':
        if (outcome === 'fail') return { move: 'fail', failureReason: SIMULATED_FAILURE_REASON, nextInMs: null };
        if (outcome === 'hold') return { move: 'none', nextInMs: null };
        return { move: 'pay', nextInMs: outcome === 'revert' ? this.stepMs : null };
      case 'paid':
        return outcome === 'revert' && !p.reverted ? { move: 'revert', failureReason: 'returned_by_beneficiary_bank', nextInMs: null } : { move: 'none', nextInMs: null };
      default:
        return { move: 'none', nextInMs: null };
    }
  }
}
