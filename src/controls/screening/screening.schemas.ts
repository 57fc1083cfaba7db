import { Type } from 'typebox';
import { Country, literals, Nullable, Page, PageQuery, Timestamp, Uuid } from '../../platform/lib/schemas.js';
import { LIST_NAMES } from './matching.js';

export const ListNameSchema = literals(LIST_NAMES, '`ofac-sdn` (OFAC SDN: the CSV set SDN/ALT/ADD or SDN.XML), `un` (UN Security Council consolidated list, XML), `eu` (EU consolidated financial sanctions list, XML), `uk-ofsi` (UK OFSI consolidated list, ConList.csv)');

export const VersionSchema = Type.Object(
  {
    id: Uuid,
    list: ListNameSchema,
    format: Type.String({ description: '`ofac-csv`, `ofac-xml`, `un-xml`, `eu-xml` or `uk-csv`' }),
    sha256: Type.String({ description: 'SHA-256 of the file as loaded' }),
    bytes: Type.Integer(),
    entries: Type.Integer({ description: 'Entries (designated persons, entities, vessels, aircraft)' }),
    names: Type.Integer({ description: 'Names and aliases indexed' }),
    individuals: Type.Integer(),
    entities: Type.Integer({ description: 'Entries that are not individuals' }),
    addresses: Type.Integer({ description: 'Digital-currency addresses the entries carry (screened against chain payouts and deposits)' }),
    loadedBy: Type.String({ description: '`key:<operator key id>`, `user:<operator user id>` or `cli`' }),
    loadedAt: Timestamp,
  },
  { title: 'ScreeningListVersion' },
);

export const HitSchema = Type.Object(
  {
    list: ListNameSchema,
    entryId: Type.String({ description: "The entry's id in its list (OFAC uid, UN or EU reference number, OFSI group id)" }),
    entryName: Type.String({ description: "The entry's primary name" }),
    matchedName: Type.String({ description: 'The name or alias of the entry that matched; on an address hit, the address as the list writes it' }),
    score: Type.Number({ minimum: 0, maximum: 1 }),
    address: Type.Optional(Type.String({ description: 'On an address hit: the listed digital-currency address the payout pays or the deposit came from' })),
    currency: Type.Optional(Type.String({ description: 'On an address hit: the currency the list names for the address (`ETH`, `XBT`, `USDT`…)' })),
  },
  { title: 'ScreeningHit' },
);

export const EvidenceSchema = Type.Object(
  { ...HitSchema.properties, subjectName: Type.String({ description: 'The name screened: the beneficiary or the sender' }) },
  { title: 'ScreeningEvidence' },
);

/** What a payout read shows (additive field). */
export const PayoutScreeningSchema = Type.Object(
  {
    status: literals(
      ['clear', 'held', 'released', 'rejected', 'withdrawn'] as const,
      '`clear`: no hit; `held`: a hit holds the payout (queued) until an operator releases or rejects it; `withdrawn`: the payout was cancelled or failed otherwise while held (the evidence is kept)',
    ),
    hits: Type.Array(HitSchema),
  },
  { title: 'PayoutScreening', description: 'Sanctions screening of the beneficiary and the sender at submit' },
);

export const HoldSchema = Type.Object(
  {
    payoutId: Uuid,
    workspaceId: Uuid,
    clientRef: Type.String(),
    amount: Type.String(),
    currency: Type.String(),
    status: literals(['held', 'released', 'rejected', 'withdrawn'] as const, '`withdrawn`: the payout was cancelled or failed otherwise while held (decided by `system`, the evidence kept)'),
    hits: Type.Array(EvidenceSchema),
    releaseApprovedBy: Nullable(Type.String({ description: 'Dual control: the operator who released first; a second, different one releases' })),
    decidedBy: Nullable(Type.String()),
    decidedAt: Nullable(Timestamp),
    createdAt: Timestamp,
  },
  { title: 'ScreeningHold' },
);

export const HoldParams = Type.Object({ payoutId: Uuid });

export const OrderHoldSchema = Type.Object(
  {
    orderId: Uuid,
    workspaceId: Uuid,
    beneficiaryId: Uuid,
    status: literals(
      ['held', 'released', 'rejected', 'withdrawn'] as const,
      '`held`: the desk cannot execute or complete the order; `rejected`: the order was cancelled or failed; `withdrawn`: the order ended otherwise while held (decided by `system`, the evidence kept)',
    ),
    hits: Type.Array(EvidenceSchema),
    decidedBy: Nullable(Type.String()),
    decidedAt: Nullable(Timestamp),
    createdAt: Timestamp,
  },
  { title: 'OrderScreeningHold', description: "A trade-desk order held because its beneficiary matched a list" },
);
export const OrderHoldParams = Type.Object({ orderId: Uuid });
export const ListParams = Type.Object({ list: ListNameSchema });
export const VersionsQuery = Type.Object({ ...PageQuery.properties, list: Type.Optional(ListNameSchema) });
export const HoldsQuery = Type.Object({ ...PageQuery.properties, status: Type.Optional(literals(['held', 'released', 'rejected', 'withdrawn'] as const)), workspaceId: Type.Optional(Uuid) });
export const SettingsSchema = Type.Object(
  { dualControl: Type.Boolean({ description: 'A release takes two different operators' }), updatedBy: Nullable(Type.String()), updatedAt: Timestamp },
  { title: 'ScreeningSettings' },
);
export const SettingsBody = Type.Object({ dualControl: Type.Boolean() }, { additionalProperties: false });
export const CheckBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 300 }),
    type: Type.Optional(literals(['individual', 'business'] as const)),
    country: Type.Optional(Country),
    dateOfBirth: Type.Optional(Type.String({ format: 'date' })),
  },
  { additionalProperties: false },
);
export const CheckResult = Type.Object({ threshold: Type.Number(), hits: Type.Array(EvidenceSchema) }, { title: 'ScreeningCheck' });

export const VersionPage = Page('screening_list_version.list', VersionSchema);
export const HoldPage = Page('screening_hold.list', HoldSchema);
export const BeneficiaryHitPage = Page(
  'beneficiary_screening.list',
  Type.Object({ beneficiaryId: Uuid, workspaceId: Uuid, status: Type.String(), hits: Type.Array(EvidenceSchema), screenedAt: Timestamp }, { title: 'BeneficiaryScreening' }),
);
