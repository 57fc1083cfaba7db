import type { Connector, ConnectorPayoutView, ConnectorStep } from '../connector.js';

/**
 * Production's connector for a route no real rail serves: a submitted payout goes to processing at
 * once, and the operator settles it (pay, fail, revert) through the operator API.
 */
export class ManualConnector implements Connector {
  readonly name = 'manual';

  firstStepMs(): number {
    return 0;
  }

  canCancelProcessing(): boolean {
    return true;
  }

  nextStep(p: ConnectorPayoutView): ConnectorStep {
    if (p.status === 'created' || p.status === 'queued') return { move: 'process', nextInMs: null };
    return { move: 'none', nextInMs: null };
  }
}
