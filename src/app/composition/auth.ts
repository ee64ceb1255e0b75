import type { Container } from 'inversify';
import { TOKENS } from '../tokens.js';
import type { Config } from '../config/config-schema.js';
import { Sha256TokenVerifier } from '../../adapters/auth/sha256-token-verifier.js';

/** Bearer tokens: the configured digests, then those stored in the datastore. */
export function bindAuth(c: Container, config: Config): void {
  c.bind(TOKENS.TokenVerifier).toDynamicValue((ctx) => new Sha256TokenVerifier(config.auth.tokenSha256, ctx.get(TOKENS.TokenStore)));
}
