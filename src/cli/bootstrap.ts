import type { AppContext } from '../platform/context.js';
import { isCurrentHash, randomSecret, verifySecret } from '../platform/lib/secrets.js';
import { changeWorkspace, createWorkspace } from '../domains/accounts/accounts.service.js';
import { createCredential, findCredentialSecret, setCredentialSecret } from '../domains/auth/credentials.service.js';
import { createOperatorKey, rehashOperatorKey, revokeOperatorKey } from '../controls/operator/operator.service.js';
import { findInvitation, invitationLink, invitationOptions, inviteUser, listUsers, reinviteUser } from '../domains/users/users.service.js';
import { moveFromSystem, parseFundingSpec } from '../domains/ledger/funding.service.js';
import { readSetting, writeSetting } from './settings.repository.js';

export interface BootstrapResult {
  operatorKey: string;
  /** Where the operator key comes from: CORRIDOR_BOOTSTRAP_OPERATOR_KEY, or generated at first start. */
  operatorKeySource: 'configured' | 'generated';
  demo?: { workspaceId: string; clientId: string; clientSecret: string };
  /** The demo workspace's dashboard user: its invitation link until it is accepted. */
  demoUser?: { email: string; invitationUrl: string | undefined };
}

export const DEMO_USER_EMAIL = 'demo@corridor.test';

interface StoredOperatorKey {
  keyId: string;
  keyEncrypted: string;
}

interface StoredDemo {
  workspaceId: string;
  clientId: string;
  clientSecretEncrypted: string;
}

/** The operator key: the configured one, else the one generated on first start (kept encrypted to print again). */
async function ensureOperatorKey(ctx: AppContext): Promise<string> {
  const stored = await readSetting<StoredOperatorKey>(ctx.db, 'bootstrap.operator_key');
  const storedKey = stored ? ctx.box.decrypt(stored.keyEncrypted) : undefined;
  const wanted = ctx.config.bootstrap.operatorKey ?? storedKey ?? randomSecret('op_');
  if (stored && storedKey === wanted) {
    // A key stored as scrypt by an earlier release becomes a digest, so wrong keys stay cheap to refuse.
    await rehashOperatorKey(ctx.db, ctx.box, stored.keyId, wanted);
    return wanted;
  }
  if (stored) await revokeOperatorKey(ctx.db, stored.keyId);
  const keyId = await createOperatorKey(ctx.db, ctx.box, wanted, 'bootstrap');
  await writeSetting(ctx.db, 'bootstrap.operator_key', { keyId, keyEncrypted: ctx.box.encrypt(wanted) });
  return wanted;
}

/** The sandbox demo workspace and its all-scopes credential, created once and reused. */
async function ensureDemoWorkspace(ctx: AppContext): Promise<NonNullable<BootstrapResult['demo']>> {
  const { bootstrap } = ctx.config;
  const stored = await readSetting<StoredDemo>(ctx.db, 'bootstrap.demo');
  const workspaceId =
    stored?.workspaceId ??
    (await ctx.db.tx(async (tx) => {
      const workspace = await createWorkspace(tx, { name: 'Demo workspace', country: 'GB' });
      // The demo workspace has a business identity on record, so payouts without senderInfo are attributed to it.
      await changeWorkspace(tx, workspace.id, {
        settings: {
          businessIdentity: { companyName: 'Demo workspace Ltd', registrationNumber: '00000000', country: 'GB', address: '1 Demo Street', city: 'London', postalCode: 'EC1A 1AA' },
        },
      });
      // The demo workspace opens with CORRIDOR_SANDBOX_FUNDING, each a balanced transfer from sandbox funding.
      for (const { currency, amountMinor } of parseFundingSpec(ctx.config.sandboxFunding)) {
        await moveFromSystem(tx, {
          workspaceId: workspace.id,
          accountId: workspace.id,
          currency,
          amountMinor,
          system: 'sandbox_funding',
          reference: { type: 'funding' },
          description: 'Opening sandbox balance',
        });
      }
      return workspace.id;
    }));
  const clientId = bootstrap.clientId ?? stored?.clientId;
  const clientSecret = bootstrap.clientSecret ?? (stored ? ctx.box.decrypt(stored.clientSecretEncrypted) : randomSecret('cs_'));
  const existing = clientId ? await findCredentialSecret(ctx.db, clientId) : undefined;
  let issuedId: string;
  if (existing) {
    if (existing.workspace_id !== workspaceId) throw new Error(`CORRIDOR_BOOTSTRAP_CLIENT_ID ${clientId} belongs to another workspace`);
    if (!isCurrentHash(existing.secret_hash) || !(await verifySecret(clientSecret, existing.secret_hash, ctx.box))) {
      await setCredentialSecret(ctx.db, ctx.box, clientId as string, clientSecret);
    }
    issuedId = clientId as string;
  } else {
    issuedId = (await ctx.db.tx((tx) => createCredential(tx, ctx.box, workspaceId, { clientId, clientSecret, label: 'demo' }))).clientId;
  }
  await writeSetting(ctx.db, 'bootstrap.demo', { workspaceId, clientId: issuedId, clientSecretEncrypted: ctx.box.encrypt(clientSecret) });
  return { workspaceId, clientId: issuedId, clientSecret };
}

/**
 * The demo workspace's dashboard admin: invited at first start, and its link printed at every start
 * until it is accepted (a fresh link once the last one has expired). The token is kept encrypted.
 */
async function ensureDemoUser(ctx: AppContext, workspaceId: string): Promise<NonNullable<BootstrapResult['demoUser']>> {
  const options = invitationOptions(ctx.config);
  const stored = await readSetting<{ userId: string; tokenEncrypted: string }>(ctx.db, 'bootstrap.demo_user');
  const remember = async (userId: string, invitationUrl: string) => {
    const token = new URL(invitationUrl).searchParams.get('token') as string;
    await writeSetting(ctx.db, 'bootstrap.demo_user', { userId, tokenEncrypted: ctx.box.encrypt(token) });
    return { email: DEMO_USER_EMAIL, invitationUrl };
  };
  if (!stored) {
    const existing = (await listUsers(ctx.db, ctx.box, workspaceId, { limit: 100 })).data.find((u) => u.email === DEMO_USER_EMAIL);
    if (existing) return { email: DEMO_USER_EMAIL, invitationUrl: undefined };
    const invitation = await ctx.db.tx((tx) => inviteUser(tx, ctx.box, options, workspaceId, { email: DEMO_USER_EMAIL, role: 'admin' }));
    return remember(invitation.user.id, invitation.invitationUrl);
  }
  const token = ctx.box.decrypt(stored.tokenEncrypted);
  if (await findInvitation(ctx.db, ctx.box, token)) return { email: DEMO_USER_EMAIL, invitationUrl: invitationLink(options.baseUrl, workspaceId, token) };
  try {
    return await remember(stored.userId, (await reinviteUser(ctx.db, ctx.box, options, workspaceId, stored.userId)).invitationUrl);
  } catch {
    return { email: DEMO_USER_EMAIL, invitationUrl: undefined }; // accepted (or removed): nothing to print
  }
}

/** First start creates what a new user needs; later starts find and reuse it. Safe with concurrent starts. */
export async function bootstrap(ctx: AppContext): Promise<BootstrapResult> {
  return ctx.db.withAdvisoryLock('corridor.bootstrap', async () => {
    const operatorKey = await ensureOperatorKey(ctx);
    const operatorKeySource = ctx.config.bootstrap.operatorKey ? 'configured' : 'generated';
    if (ctx.config.env !== 'sandbox') return { operatorKey, operatorKeySource };
    const demo = await ensureDemoWorkspace(ctx);
    return { operatorKey, operatorKeySource, demo, demoUser: await ensureDemoUser(ctx, demo.workspaceId) };
  });
}
