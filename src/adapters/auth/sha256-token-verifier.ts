import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Principal, TokenVerifier } from '../../ports/token-verifier.js';
import type { TokenStore } from '../../ports/datastore.js';

export function sha256Hex(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** A new bearer token: 32 random bytes, base64url (43 characters). */
export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Owner of the tokens whose digests the config lists (the demo token). */
export const CONFIG_TOKEN_OWNER = 'demo';

/**
 * Accepts a token whose SHA-256 digest is configured (owner "demo") or stored in the datastore
 * (its owner). Only digests are kept anywhere. Every configured digest is compared in constant
 * time so timing says nothing about which one matched; a stored digest is found by an index
 * lookup on the digest (which says nothing about the token) and confirmed in constant time.
 */
export class Sha256TokenVerifier implements TokenVerifier {
  private readonly digests: Buffer[];

  constructor(
    hexDigests: string[],
    private readonly store?: Pick<TokenStore, 'findToken'>,
  ) {
    this.digests = hexDigests.map((h) => Buffer.from(h, 'hex'));
  }

  async verify(token: string): Promise<Principal | undefined> {
    const candidate = createHash('sha256').update(token, 'utf8').digest();
    let match = false;
    for (const digest of this.digests) match = timingSafeEqual(candidate, digest) || match;
    if (match) return { owner: CONFIG_TOKEN_OWNER };
    if (!this.store) return undefined;
    const record = await this.store.findToken(candidate.toString('hex'));
    if (!record) return undefined;
    const stored = Buffer.from(record.digest, 'hex');
    return stored.length === candidate.length && timingSafeEqual(stored, candidate) ? { owner: record.owner } : undefined;
  }
}
