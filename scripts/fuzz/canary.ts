/**
 * The liveness probe: GET /conformance, timed twice — by the wall clock, and by the CPU time the
 * service's main thread spent while the probe waited. A probe held up by a blocked event loop
 * waits while that thread runs (both times grow together); a probe held up by a busy machine
 * waits while the thread is not even scheduled (its CPU time stays small). The smaller of the
 * two is what the service itself kept the probe waiting.
 */
import { send } from './http-client.js';
import type { ServerProcess } from './server-process.js';

export interface Ping {
  ok: boolean;
  /** Any answer at all came back (a service held past the probe's timeout gives none). */
  answered: boolean;
  wallMs: number;
  loopCpuMs: number;
}

export async function ping(srv: ServerProcess, timeoutMs = 30_000): Promise<Ping> {
  const cpu0 = srv.mainThreadCpuMs() ?? 0;
  const r = await send(new URL(srv.base), { method: 'GET', path: '/conformance', headers: [] }, { timeoutMs });
  const cpu1 = srv.mainThreadCpuMs() ?? cpu0;
  const wallMs = r.response ? r.response.ms : r.error!.ms;
  return { ok: r.response?.status === 200, answered: r.response !== undefined, wallMs, loopCpuMs: cpu1 - cpu0 };
}

/** How long the service kept a probe waiting (Infinity when it did not answer 200). */
export const blockedMs = (p: Ping): number => (p.ok ? Math.min(p.wallMs, p.loopCpuMs) : Infinity);

export const describePing = (p: Ping): string => `${p.ok ? '' : 'no 200; '}${Math.round(p.wallMs)} ms wall, ${p.loopCpuMs} ms of main-thread CPU`;
