import type { FastifyRequest } from 'fastify';
import { Type, type TObject } from 'typebox';
import { AppError } from '../../http/errors.js';
import { Uuid } from '../../http/schemas.js';
import { isUuid } from '../../lib/ids.js';
import { notice } from '../../web/components.js';
import { formErrors } from '../../web/forms.js';
import { html, type Html } from '../../web/html.js';

/** What every console page route is: hidden from the API docs, signed in to the console. */
export const consolePage = { schema: { hide: true }, config: { web: { area: 'console' as const } } };

/** A console page whose path names objects: the path is validated as the API's is (400 before the handler). */
export function consoleRoute(params: TObject) {
  return { schema: { hide: true, params }, config: { web: { area: 'console' as const } } };
}

/** `:id` (the workspace on /console/workspaces/:id/..., the object elsewhere), and one more id. */
export const IdPath = Type.Object({ id: Uuid });
export const idsPath = (other: string) => Type.Object({ id: Uuid, [other]: Uuid });

/** A change the operator asked for and the service refused: what to show beside the form, and the status. */
export interface Refusal {
  status: number;
  message: string;
  fields: Record<string, string>;
}

/**
 * Runs a change through its service. A refusal the operator can act on (a 4xx AppError) comes back
 * to be shown with the form, nothing changed; anything else is thrown to the error page.
 */
export async function attempt<T>(change: () => Promise<T>): Promise<{ done: T } | { refused: Refusal }> {
  try {
    return { done: await change() };
  } catch (err) {
    const refused = formErrors(err);
    if (!refused || !(err instanceof AppError)) throw err;
    return { refused: { status: err.status, ...refused } };
  }
}

/** The refusal as an alert, with each field's message. */
export function refusalNotice(refusal: Refusal | undefined): Html {
  if (!refusal) return html``;
  const fields = Object.entries(refusal.fields);
  return notice('error', html`<p>${refusal.message}</p>${fields.length ? html`<ul>${fields.map(([k, v]) => html`<li><strong>${k}</strong>: ${v}</li>`)}</ul>` : ''}`);
}

/** A query parameter that names an id (a UUID), or undefined. */
export function queryId(req: FastifyRequest, name: string): string | undefined {
  const value = ((req.query ?? {}) as Record<string, unknown>)[name];
  return typeof value === 'string' && isUuid(value) ? value : undefined;
}

/** A status filter: one of the listed values, or undefined. */
export function queryChoice<T extends string>(req: FastifyRequest, name: string, choices: readonly T[], fallback?: T): T | undefined {
  const value = ((req.query ?? {}) as Record<string, unknown>)[name];
  if (value === 'all') return undefined;
  return typeof value === 'string' && (choices as readonly string[]).includes(value) ? (value as T) : fallback;
}

/** The rows of a queue list page, by cursor. */
export const QUEUE_PAGE_ROWS = 50;
