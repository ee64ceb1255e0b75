/**
 * The load run of bench/load.ts as part of npm run bench (`npm run bench load`): 64 connections,
 * 10 s per route. `npm run load` runs it for 60 s per route and exits non-zero on a failure.
 */
import { runLoad } from './load.js';

export async function run(): Promise<void> {
  await runLoad({ duration: 10, connections: 64, rssBoundBytes: 500 * 2 ** 20, timeout: 10 });
}
