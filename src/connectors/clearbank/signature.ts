import { createSign, createVerify, type KeyObject } from 'node:crypto';

/**
 * ClearBank's `DigitalSignature` header: the request body's SHA-256 hash signed with RSA (PKCS #1
 * v1.5), base64. Corridor signs every request and every answer to a webhook with the operator's
 * private key; ClearBank signs every webhook with its own, which Corridor verifies over the exact
 * bytes received. PKCS #1 v1.5 is deterministic: the same body signs the same way, so a request
 * re-sent after a crash is byte for byte the one first sent.
 */
export function signBody(privateKey: KeyObject, body: string | Buffer): string {
  return createSign('RSA-SHA256').update(body).sign(privateKey, 'base64');
}

export function verifyBody(publicKey: KeyObject, body: string | Buffer, signature: string | undefined): boolean {
  if (!signature || !/^[A-Za-z0-9+/=\s]+$/.test(signature)) return false;
  try {
    return createVerify('RSA-SHA256').update(body).verify(publicKey, signature.replace(/\s+/g, ''), 'base64');
  } catch {
    return false;
  }
}
