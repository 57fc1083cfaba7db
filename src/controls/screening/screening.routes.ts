import { createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../platform/context.js';
import { route, type App } from '../../platform/http/routes.js';
import { runIdempotent } from '../../platform/http/idempotency.js';
import { fieldError, notFound } from '../../platform/lib/errors.js';
import { PageQuery } from '../../platform/lib/schemas.js';
import * as holds from './screening.holds.js';
import {
  BeneficiaryHitPage,
  CheckBody,
  CheckResult,
  HoldPage,
  HoldParams,
  HoldSchema,
  HoldsQuery,
  ListParams,
  OrderHoldParams,
  OrderHoldSchema,
  SettingsBody,
  SettingsSchema,
  VersionPage,
  VersionSchema,
  VersionsQuery,
} from './screening.schemas.js';
import * as screening from './screening.service.js';
import type { OperatorActor } from '../../domains/users/rights.js';

const tags = ['Screening'];
const security = [{ operatorKey: [] }];
const auth = { auth: 'operator' as const };

/** Who acts: the operator key the call was made with. */
/** The operator key acts: every right (rights.ts). */
const actor = (req: FastifyRequest): OperatorActor => ({ name: `key:${req.operator?.keyId ?? 'unknown'}`, role: undefined });

/**
 * A list file as a load request carries it: the audit log keeps its digest and size (its enumerable
 * fields), never the file itself.
 */
class ListFile {
  readonly sha256: string;
  readonly size: number;
  declare readonly bytes: Buffer;
  constructor(bytes: Buffer) {
    Object.defineProperty(this, 'bytes', { value: bytes, enumerable: false });
    this.sha256 = createHash('sha256').update(bytes).digest('hex');
    this.size = bytes.byteLength;
  }
}

/** Sanctions screening, operator API: list loads and versions, the queue of held payouts, dual control, a name check. */
export function screeningRoutes(app: App, ctx: AppContext): void {
  void app.register(async (scope) => {
    // The load takes the list file itself as the body, of any media type, up to SCREENING_FILE_BYTES_MAX.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: ctx.config.screening.fileBytesMax }, (req, body, done) => {
      const file = new ListFile(body as Buffer);
      req.rawBody = `sha256:${file.sha256}`;
      done(null, file);
    });
    scope.route(loadList(ctx));
  });
  app.route(listVersions(ctx));
  app.route(listHolds(ctx));
  app.route(getHold(ctx));
  app.route(releaseHold(ctx));
  app.route(rejectHold(ctx));
  app.route(getOrderHold(ctx));
  app.route(releaseOrderHold(ctx));
  app.route(rejectOrderHold(ctx));
  app.route(getSettings(ctx));
  app.route(putSettings(ctx));
  app.route(checkName(ctx));
  app.route(listBeneficiaryHits(ctx));
}

function loadList(ctx: AppContext) {
  return route.post(
    '/operator/v1/screening/lists/:list/versions',
    {
      config: auth,
      bodyLimit: ctx.config.screening.fileBytesMax,
      schema: {
        tags,
        security,
        summary: 'Load a sanctions list file as a new version of its list',
        description:
          "The body is the official file as published, sent with any Content-Type but a form's (`text/csv`, `application/xml`, `application/octet-stream`): OFAC's SDN.XML, or its CSV set SDN.CSV, ALT.CSV and ADD.CSV concatenated in any order in one body; the UN consolidated list XML; the EU consolidated list XML; OFSI's ConList.csv. " +
          'The version becomes the list\'s active one at once, every active beneficiary is screened again in the background, and the version is kept with its counts and digest. A file that is not the list in its format, or holds no entry, is a 400 naming `file`. At most SCREENING_FILE_BYTES_MAX bytes.',
        params: ListParams,
        consumes: ['text/csv', 'application/xml', 'text/xml', 'application/octet-stream'],
        response: { 201: VersionSchema },
      },
    },
    async (req, reply) =>
      runIdempotent(ctx, req, reply, async (tx) => {
        const file = req.body as unknown;
        if (!(file instanceof ListFile) || file.size === 0) throw fieldError('file', 'file is required: send the list file as the body');
        return { status: 201, body: await screening.loadList(tx, { list: req.params.list, bytes: file.bytes, loadedBy: actor(req).name }) };
      }),
  );
}

function listVersions(ctx: AppContext) {
  return route.get(
    '/operator/v1/screening/versions',
    { config: auth, schema: { tags, security, summary: 'Loaded list versions, newest first (the newest of each list is active)', querystring: VersionsQuery, response: { 200: VersionPage } } },
    async (req) => screening.listVersions(ctx.db, req.query),
  );
}

function listHolds(ctx: AppContext) {
  return route.get(
    '/operator/v1/screening/holds',
    { config: auth, schema: { tags, security, summary: 'Payouts held by a sanctions hit, newest first, with the evidence', querystring: HoldsQuery, response: { 200: HoldPage } } },
    async (req) => holds.listHolds(ctx.db, req.query),
  );
}

function getHold(ctx: AppContext) {
  return route.get(
    '/operator/v1/screening/holds/:payoutId',
    { config: auth, schema: { tags, security, summary: "A payout's screening hold", params: HoldParams, response: { 200: HoldSchema } } },
    async (req) => holds.getHold(ctx.db, req.params.payoutId),
  );
}

function releaseHold(ctx: AppContext) {
  return route.post(
    '/operator/v1/screening/holds/:payoutId/release',
    {
      config: auth,
      schema: {
        tags,
        security,
        summary: 'Release a held payout: it proceeds to its provider',
        description:
          'With dual control on, the first release records its operator (`releaseApprovedBy`, still `held`) and a second, different operator releases; the same operator again is a 409 SECOND_OPERATOR_REQUIRED. A hold already decided is a 409 SCREENING_HOLD_DECIDED.',
        params: HoldParams,
        response: { 200: HoldSchema },
      },
    },
    async (req, reply) => runIdempotent(ctx, req, reply, async (tx) => ({ status: 200, body: await holds.releaseHold(ctx, tx, req.params.payoutId, actor(req)) })),
  );
}

function rejectHold(ctx: AppContext) {
  return route.post(
    '/operator/v1/screening/holds/:payoutId/reject',
    {
      config: auth,
      schema: {
        tags,
        security,
        summary: 'Reject a held payout: it fails with `compliance_rejected` and its funds are released',
        params: HoldParams,
        response: { 200: HoldSchema },
      },
    },
    async (req, reply) => runIdempotent(ctx, req, reply, async (tx) => ({ status: 200, body: await holds.rejectHold(ctx, tx, req.params.payoutId, actor(req)) })),
  );
}

function getOrderHold(ctx: AppContext) {
  return route.get(
    '/operator/v1/screening/order-holds/:orderId',
    { config: auth, schema: { tags, security, summary: "A trade-desk order's screening hold, with the evidence", params: OrderHoldParams, response: { 200: OrderHoldSchema } } },
    async (req) => {
      const hold = await screening.orderHold(ctx.db, req.params.orderId);
      if (!hold) throw notFound('Screening hold');
      return hold;
    },
  );
}

function releaseOrderHold(ctx: AppContext) {
  return route.post(
    '/operator/v1/screening/order-holds/:orderId/release',
    {
      config: auth,
      schema: {
        tags,
        security,
        summary: 'Release a held order: the desk may then execute and complete it',
        description: 'A hold already decided or withdrawn is a 409 SCREENING_HOLD_DECIDED.',
        params: OrderHoldParams,
        response: { 200: OrderHoldSchema },
      },
    },
    async (req, reply) => runIdempotent(ctx, req, reply, async (tx) => ({ status: 200, body: await holds.releaseOrderHold(tx, req.params.orderId, actor(req)) })),
  );
}

function rejectOrderHold(ctx: AppContext) {
  return route.post(
    '/operator/v1/screening/order-holds/:orderId/reject',
    {
      config: auth,
      schema: {
        tags,
        security,
        summary: 'Reject a held order: cancelled while awaiting funds, failed (`execution_failed`) once funded; its held funds return',
        params: OrderHoldParams,
        response: { 200: OrderHoldSchema },
      },
    },
    async (req, reply) => runIdempotent(ctx, req, reply, async (tx) => ({ status: 200, body: await holds.rejectOrderHold(ctx, tx, req.params.orderId, actor(req)) })),
  );
}

function getSettings(ctx: AppContext) {
  return route.get(
    '/operator/v1/screening/settings',
    { config: auth, schema: { tags, security, summary: 'Screening settings (dual control)', response: { 200: SettingsSchema } } },
    async () => holds.readSettings(ctx.db),
  );
}

function putSettings(ctx: AppContext) {
  return route.put(
    '/operator/v1/screening/settings',
    { config: auth, schema: { tags, security, summary: 'Switch dual control of releases on or off', body: SettingsBody, response: { 200: SettingsSchema } } },
    async (req) => ctx.db.tx((tx) => holds.updateSettings(tx, req.body, actor(req))),
  );
}

function checkName(ctx: AppContext) {
  return route.post(
    '/operator/v1/screening/check',
    {
      config: auth,
      schema: { tags, security, summary: 'Screen a name against the active lists (nothing is recorded)', body: CheckBody, response: { 200: CheckResult } },
    },
    async (req, reply) =>
      runIdempotent(ctx, req, reply, async (tx) => {
        const [hits] = await screening.screen(ctx, tx, [{ name: req.body.name, kind: req.body.type, country: req.body.country, dateOfBirth: req.body.dateOfBirth }]);
        return { status: 200, body: { threshold: ctx.config.screening.matchThreshold, hits: hits ?? [] } };
      }),
  );
}

function listBeneficiaryHits(ctx: AppContext) {
  return route.get(
    '/operator/v1/screening/beneficiaries',
    { config: auth, schema: { tags, security, summary: 'Beneficiaries whose last screening matched a list, most recent first', querystring: PageQuery, response: { 200: BeneficiaryHitPage } } },
    async (req) => screening.listBeneficiaryHits(ctx.db, req.query),
  );
}
