import type { Readable } from 'node:stream';
import { ByteLru } from '../domain/byte-lru.js';
import { bodyBytes, type Reply } from './route.js';
import type { CacheStats } from '../ports/metrics.js';

/** What a kept answer costs beyond its bytes and key (the entry, its headers). */
const ENTRY_OVERHEAD = 256;

/**
 * Answers that depend on their request alone (its base URL, format and parameters), kept encoded:
 * a kept answer is sent as it is, without building or encoding it again. Least recently used ones
 * go first once they hold `maxBytes`; the client chooses the Host a base URL comes from, so the
 * bound is on bytes, not on the keys there could be.
 */
export class KeptReplies {
  private readonly lru: ByteLru<string, Reply & { body: Buffer }>;

  constructor(maxBytes: number) {
    this.lru = new ByteLru(maxBytes);
  }

  /** The answer kept under `key`, else `make`'s, which is kept (its body must not be a stream). */
  async get(key: string, make: () => Promise<Reply> | Reply): Promise<Reply> {
    const kept = this.lru.get(key);
    if (kept) return kept;
    const made = await make();
    const reply = { ...made, body: bodyBytes(made.body as Exclude<Reply['body'], Readable>) };
    this.lru.set(key, reply, reply.body.length + 2 * key.length + ENTRY_OVERHEAD);
    return reply;
  }

  stats(): CacheStats {
    return this.lru.stats();
  }
}
