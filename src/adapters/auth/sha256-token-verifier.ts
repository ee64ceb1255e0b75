import { createHash, timingSafeEqual } from 'node:crypto';
import type { TokenVerifier } from '../../ports/token-verifier.js';

export function sha256Hex(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/**
 * Accepts a token whose SHA-256 digest is configured. Only digests are stored; every configured
 * digest is compared in constant time so timing says nothing about which one matched.
 */
export class Sha256TokenVerifier implements TokenVerifier {
  private readonly digests: Buffer[];

  constructor(hexDigests: string[]) {
    this.digests = hexDigests.map((h) => Buffer.from(h, 'hex'));
  }

  verify(token: string): boolean {
    const candidate = createHash('sha256').update(token, 'utf8').digest();
    let match = false;
    for (const digest of this.digests) match = timingSafeEqual(candidate, digest) || match;
    return match;
  }
}
