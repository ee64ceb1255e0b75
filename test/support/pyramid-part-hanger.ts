/**
 * A worker process that takes pyramid parts from the pg-boss queue and never finishes them: it
 * prints `took <part>` for each and hangs, so a test can kill it mid-part (SIGKILL: no goodbye to
 * the queue) and see the part retried elsewhere once its heartbeat stops.
 * Arguments: <postgres url> <schema>.
 */
import { PgBossPyramidParts } from '../../src/adapters/jobs/pg-boss-pyramid-parts.js';

const [url, schema] = process.argv.slice(2);
const queue = new PgBossPyramidParts({ url: url!, schema: schema!, maxAttempts: 3, retryDelaySeconds: 1, heartbeatSeconds: 10, superviseSeconds: 1, pollSeconds: 0.5 });
await queue.work(async (task) => {
  console.log(`took ${task.part}`);
  return new Promise(() => undefined);
}, 1);
console.log('working');
