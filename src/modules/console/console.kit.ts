import type { FastifyRequest } from 'fastify';
import { Type, type TObject } from 'typebox';
import { Uuid } from '../../lib/schemas.js';
import { isUuid } from '../../lib/ids.js';
import { notice } from '../../web/components.js';
import type { Refusal } from '../../web/forms.js';
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

/** The refusal as an alert, with each field's message. */
export { attempt, queryChoice, type Refusal } from '../../web/forms.js';

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

/** The rows of a queue list page, by cursor. */
export const QUEUE_PAGE_ROWS = 50;
