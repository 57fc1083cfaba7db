import type { Config } from '../config.js';
import { ManualProvider } from './manual.js';
import type { PayoutProvider } from './provider.js';
import { SimulatedProvider } from './simulated.js';

/** The provider that processes payouts in this environment: the simulator in the sandbox, manual in production. */
export function payoutProviderFor(config: Config, name?: string): PayoutProvider {
  if (name === 'manual') return new ManualProvider();
  if (name === 'simulated') return new SimulatedProvider(config.sandboxStepMs);
  return config.env === 'sandbox' ? new SimulatedProvider(config.sandboxStepMs) : new ManualProvider();
}
