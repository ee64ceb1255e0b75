/**
 * One heavy request to a service child process, with GET /conformance probed back to back
 * meanwhile (scripts/fuzz/canary.ts): the probe the service kept waiting longest shows whether
 * the request held its event loop.
 */
import { expect } from 'chai';
import { blockedMs, describePing, ping, type Ping } from '../../scripts/fuzz/canary.js';
import { send, type FuzzRequest, type FuzzResponse, type SendResult } from '../../scripts/fuzz/http-client.js';
import type { ServerProcess } from '../../scripts/fuzz/server-process.js';

/**
 * A concurrent GET /conformance answers within this while a heavy request runs. What counts is
 * the time the service kept it waiting: the wall time, unless the service's main thread was not
 * even running meanwhile (a machine busy with other work; see scripts/fuzz/canary.ts).
 */
export const CANARY_BOUND_MS = 200;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Sends `req`, probing meanwhile; gives up on it after `windowMs` (the result is then a `client` error). */
export async function underLoad(srv: ServerProcess, req: FuzzRequest, windowMs: number, keepBytes?: number): Promise<{ pings: Ping[]; result: SendResult }> {
  const ctl = new AbortController();
  let finished = false;
  const heavy = send(new URL(srv.base), req, { timeoutMs: 120_000, signal: ctl.signal, ...(keepBytes ? { keepBytes } : {}) }).finally(() => (finished = true));
  const pings: Ping[] = [];
  const until = performance.now() + windowMs;
  await sleep(30); // the heavy request reaches the service first
  do {
    pings.push(await ping(srv));
    await sleep(10);
  } while (!finished && performance.now() < until);
  ctl.abort();
  return { pings, result: await heavy };
}

/** The probe the service kept waiting longest. */
export const slowestProbe = (pings: Ping[]): Ping => pings.reduce((a, b) => (blockedMs(b) > blockedMs(a) ? b : a));

/** The answer to `req`, which must come within `windowMs` while every /conformance probe is answered within CANARY_BOUND_MS. */
export async function answerUnderLoad(srv: ServerProcess, req: FuzzRequest, what: string, windowMs: number, keepBytes?: number): Promise<FuzzResponse> {
  const { pings, result } = await underLoad(srv, req, windowMs, keepBytes);
  expect(srv.alive(), `${what}: the process died`).to.equal(true);
  const worst = slowestProbe(pings);
  expect(blockedMs(worst), `${what}: slowest of ${pings.length} concurrent GET /conformance: ${describePing(worst)}`).to.be.below(CANARY_BOUND_MS);
  expect(result.error, `${what}: no answer within ${windowMs} ms (${result.error?.message})`).to.equal(undefined);
  return result.response!;
}
