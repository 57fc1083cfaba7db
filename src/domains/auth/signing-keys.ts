import { exportJWK, generateKeyPair, importJWK, jwtVerify, SignJWT, type JWK, type JWTPayload, type CryptoKey } from 'jose';
import { randomBytes } from 'node:crypto';
import type { Db } from '../../platform/db/db.js';
import type { CryptoBox } from '../../platform/lib/crypto-box.js';
import * as repo from './signing-keys.repository.js';

/** The only algorithm tokens are signed and accepted with. */
export const TOKEN_ALG = 'EdDSA';
/** A token without any of these is refused: without `exp` it would be valid forever. */
const REQUIRED_CLAIMS = ['exp', 'iat', 'aud', 'iss', 'sub'];

interface LoadedKey {
  kid: string;
  publicJwk: JWK;
  publicKey: CryptoKey;
  privateKey: CryptoKey;
}

export interface TokenClaims extends JWTPayload {
  sub: string;
  wid: string;
}

/** Ed25519 signing keys: private halves encrypted at rest, public halves served as the JWKS. */
export class SigningKeys {
  private constructor(
    private readonly db: Db,
    private readonly box: CryptoBox,
    private keys: LoadedKey[],
  ) {}

  private reloadedAtMs = 0;
  private static readonly RELOAD_INTERVAL_MS = 5000;

  static async init(db: Db, box: CryptoBox): Promise<SigningKeys> {
    await db.tx(async (tx) => {
      await repo.lockKeyCreation(tx);
      if (await repo.hasActiveKey(tx)) return;
      const { publicKey, privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
      const kid = randomBytes(12).toString('base64url');
      const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: TOKEN_ALG, use: 'sig' };
      const privateJwk = await exportJWK(privateKey);
      await repo.insertKey(tx, { kid, alg: TOKEN_ALG, publicJwk, privateJwkEncrypted: box.encrypt(JSON.stringify(privateJwk)) });
    });
    const keys = new SigningKeys(db, box, []);
    await keys.reload();
    return keys;
  }

  private async reload(): Promise<void> {
    this.reloadedAtMs = Date.now();
    const rows = await repo.activeKeys(this.db);
    this.keys = await Promise.all(
      rows.map(async (row) => ({
        kid: row.kid,
        publicJwk: row.public_jwk,
        publicKey: (await importJWK(row.public_jwk, TOKEN_ALG)) as CryptoKey,
        privateKey: (await importJWK(JSON.parse(this.box.decrypt(row.private_jwk_encrypted)) as JWK, TOKEN_ALG)) as CryptoKey,
      })),
    );
  }

  jwks(): { keys: JWK[] } {
    return { keys: this.keys.map((k) => k.publicJwk) };
  }

  async sign(claims: { sub: string; wid: string; jti: string }, issuer: string, audience: string, lifetimeSec: number): Promise<string> {
    const key = this.keys[0];
    if (!key) throw new Error('no signing key');
    return new SignJWT({ wid: claims.wid })
      .setProtectedHeader({ alg: TOKEN_ALG, kid: key.kid, typ: 'JWT' })
      .setIssuer(issuer)
      .setAudience(audience)
      .setSubject(claims.sub)
      .setJti(claims.jti)
      .setIssuedAt()
      .setExpirationTime(`${lifetimeSec}s`)
      .sign(key.privateKey);
  }

  /**
   * Tokens already verified, until they expire: a token is reused for 24 h, and a signature check
   * per request would cost more than the rest of authentication. Bounded; cleared when full.
   */
  private readonly verified = new Map<string, { claims: TokenClaims; expMs: number; issuer: string; audience: string }>();
  private static readonly VERIFIED_MAX = 10_000;

  /** Verifies signature (EdDSA only), issuer, audience, expiry and that exp, iat, aud, iss and sub are present; undefined when any fails. */
  async verify(token: string, issuer: string, audience: string): Promise<TokenClaims | undefined> {
    const known = this.verified.get(token);
    if (known && known.issuer === issuer && known.audience === audience) {
      if (known.expMs > Date.now()) return known.claims;
      this.verified.delete(token);
      return undefined;
    }
    const claims = await this.verifySignature(token, issuer, audience);
    if (claims && typeof claims.exp === 'number') {
      if (this.verified.size >= SigningKeys.VERIFIED_MAX) this.verified.clear();
      this.verified.set(token, { claims, expMs: claims.exp * 1000, issuer, audience });
    }
    return claims;
  }

  private async verifySignature(token: string, issuer: string, audience: string): Promise<TokenClaims | undefined> {
    const lookup = async (header: { kid?: string | undefined; alg?: string | undefined }) => {
      let key = this.keys.find((k) => k.kid === header.kid);
      if (!key && header.kid && Date.now() - this.reloadedAtMs > SigningKeys.RELOAD_INTERVAL_MS) {
        await this.reload(); // a key created by another process; at most once per interval
        key = this.keys.find((k) => k.kid === header.kid);
      }
      if (!key) throw new Error('unknown kid');
      return key.publicKey;
    };
    try {
      const { payload } = await jwtVerify(token, lookup, { algorithms: [TOKEN_ALG], issuer, audience, requiredClaims: REQUIRED_CLAIMS });
      if (typeof payload.sub !== 'string' || typeof payload.wid !== 'string') return undefined;
      return payload as TokenClaims;
    } catch {
      return undefined;
    }
  }
}
