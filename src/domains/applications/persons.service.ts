import type { AppContext } from '../../platform/context.js';
import type { Sql, Tx } from '../../platform/db/db.js';
import { conflict, notFound, validationError, type FieldError } from '../../platform/lib/errors.js';
import type { CryptoBox } from '../../platform/lib/crypto-box.js';
import { newId } from '../../platform/lib/ids.js';
import * as repo from './applications.repository.js';
import type { ApplicationRow, PersonRow } from './applications.repository.js';
import { mergeFields, ownershipError, personDateErrors, type Fields } from './applications.rules.js';
import { APPLICATION_PERSONS_MAX } from './applications.schemas.js';
import { assertEditable, requireApplication } from './applications.access.js';
import type { AccountScope } from '../accounts/caller.js';

/** Persons of a business application (directors, owners): `/v2/applications/{id}/persons`. Their data is sealed at rest. */

const MASKED = ['bvn', 'nationalId', 'taxId'] as const;

const open = (box: CryptoBox, row: PersonRow): Fields => JSON.parse(box.decrypt(row.data)) as Fields;

export function personView(row: PersonRow, data: Fields) {
  const shown: Fields = { ...data };
  for (const k of MASKED) delete shown[k];
  return {
    id: row.id,
    applicationId: row.application_id,
    ...shown,
    bvnProvided: typeof data.bvn === 'string',
    nationalIdProvided: typeof data.nationalId === 'string',
    taxIdProvided: typeof data.taxId === 'string',
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}
export type PersonView = ReturnType<typeof personView>;

/** The persons of an application with their data opened (submit checks, ownership sums). */
export async function personFacts(ctx: AppContext, sql: Sql, applicationId: string): Promise<(Fields & { id: string })[]> {
  return (await repo.personsOf(sql, applicationId)).map((row) => ({ ...open(ctx.box, row), id: row.id }));
}

function assertBusiness(app: ApplicationRow): void {
  if (app.application_type !== 'business') throw conflict('APPLICATION_TYPE_MISMATCH', 'Persons are part of business applications only');
}

/** Adds persons (create-time `persons`, or one POST): bounded in number, dates checked, ownership summed with the others. */
export async function addPersons(ctx: AppContext, tx: Tx, app: ApplicationRow, inputs: readonly Fields[], prefix = ''): Promise<PersonView[]> {
  assertBusiness(app);
  const existing = await personFacts(ctx, tx, app.id);
  if (existing.length + inputs.length > APPLICATION_PERSONS_MAX) {
    throw conflict('APPLICATION_PERSONS_MAX', `An application has at most ${APPLICATION_PERSONS_MAX} persons`);
  }
  const errors: FieldError[] = inputs.flatMap((p, i) => personDateErrors(p, prefix ? `${prefix}${i}.` : ''));
  const overflow = ownershipError([...existing, ...inputs], prefix ? `${prefix.replace(/\.$/, '')}` : 'ownershipPercentage');
  if (overflow) errors.push(overflow);
  if (errors.length) throw validationError(errors);
  const views: PersonView[] = [];
  for (const input of inputs) {
    const row = await repo.insertPerson(tx, { id: newId(), applicationId: app.id, workspaceId: app.workspace_id, data: ctx.box.encrypt(JSON.stringify(input)) });
    views.push(personView(row, input));
  }
  if (inputs.length) await repo.touch(tx, app.id);
  return views;
}

async function editable(ctx: AppContext, tx: Tx, scope: AccountScope, applicationId: string): Promise<ApplicationRow> {
  const app = await requireApplication(tx, scope, applicationId, { lock: true });
  assertBusiness(app);
  assertEditable(app, ['persons']);
  return app;
}

async function requirePerson(sql: Sql, applicationId: string, personId: string): Promise<PersonRow> {
  const row = (await repo.personsOf(sql, applicationId)).find((p) => p.id === personId);
  if (!row) throw notFound('Person');
  return row;
}

export async function createPerson(ctx: AppContext, tx: Tx, scope: AccountScope, applicationId: string, body: Fields): Promise<PersonView> {
  const app = await editable(ctx, tx, scope, applicationId);
  const [created] = await addPersons(ctx, tx, app, [body]);
  return created as PersonView;
}

export async function listPersons(ctx: AppContext, sql: Sql, scope: AccountScope, applicationId: string) {
  await requireApplication(sql, scope, applicationId);
  const rows = await repo.personsOf(sql, applicationId);
  return { object: 'application_person.list' as const, data: rows.map((r) => personView(r, open(ctx.box, r))), hasMore: false, nextCursor: null };
}

export async function getPerson(ctx: AppContext, sql: Sql, scope: AccountScope, applicationId: string, personId: string): Promise<PersonView> {
  await requireApplication(sql, scope, applicationId);
  const row = await requirePerson(sql, applicationId, personId);
  return personView(row, open(ctx.box, row));
}

/** PATCH a person: absent keeps, null clears an optional field; ownership is summed again. */
export async function patchPerson(ctx: AppContext, tx: Tx, scope: AccountScope, applicationId: string, personId: string, body: Fields): Promise<PersonView> {
  await editable(ctx, tx, scope, applicationId);
  const row = await requirePerson(tx, applicationId, personId);
  const data = mergeFields(open(ctx.box, row), body) ?? {};
  const others = (await personFacts(ctx, tx, applicationId)).filter((p) => p.id !== personId);
  const errors = personDateErrors(data, '');
  const overflow = ownershipError([...others, data], 'ownershipPercentage');
  if (overflow) errors.push(overflow);
  if (errors.length) throw validationError(errors);
  const updated = await repo.updatePerson(tx, personId, ctx.box.encrypt(JSON.stringify(data)));
  await repo.touch(tx, applicationId);
  return personView(updated, data);
}

/** DELETE a person, with the documents registered for them. */
export async function deletePerson(ctx: AppContext, tx: Tx, scope: AccountScope, applicationId: string, personId: string): Promise<void> {
  await editable(ctx, tx, scope, applicationId);
  await requirePerson(tx, applicationId, personId);
  await repo.deletePerson(tx, personId);
  await repo.touch(tx, applicationId);
}
