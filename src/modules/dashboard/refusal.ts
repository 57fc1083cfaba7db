import { AppError } from '../../http/errors.js';
import { formErrors } from '../../web/forms.js';

export interface Refusal {
  status: number;
  message: string;
  /** Field errors by field name, to show beside each input. */
  fields: Record<string, string>;
}

/**
 * Runs a change asked for by a form. A refusal the user can act on (a 4xx other than not-found)
 * comes back to re-render the form with it; nothing was changed (the service refused before, or
 * its transaction rolled back). Anything else, a 404 included, goes to the error page.
 */
export async function attempt(change: () => Promise<unknown>): Promise<Refusal | undefined> {
  try {
    await change();
    return undefined;
  } catch (err) {
    const errors = formErrors(err);
    if (!errors || !(err instanceof AppError) || err.status === 404) throw err;
    return { status: err.status, ...errors };
  }
}
