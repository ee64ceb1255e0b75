/**
 * Worker thread of ZoneBinningPool: finds the zone of each point of a batch, the CPU-heavy part
 * of aggregating rows by zone, off the event loop. It rebuilds the grids from the module the
 * composition root names (`workerData.gridsModule`, exporting GRID_FACTORIES), so it runs the
 * very code the main thread would.
 *
 * Messages in: `open` (a session: grid id and, per level, the zones to slot points into, or null
 * to report the zones met), `bin` (x/y of a batch), `close`. Out: per `bin`, the slots per level
 * (Int32Array, -1 for none) or the zone ids met, or an error message.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { Dggrs } from '../../domain/dggrs/dggrs.js';
import { ZoneSlots, ZonesMet } from '../../domain/aggregation/zone-points.js';
import type { BinReply, BinRequest } from './zone-binning-pool.js';

const { gridsModule } = workerData as { gridsModule: string };
const { GRID_FACTORIES } = (await import(gridsModule)) as { GRID_FACTORIES: Record<string, () => Dggrs> };
const grids = new Map<string, Dggrs>();
const sessions = new Map<number, (ZoneSlots | ZonesMet)[]>();

function grid(id: string): Dggrs {
  let g = grids.get(id);
  if (!g) {
    const make = GRID_FACTORIES[id];
    if (!make) throw new Error(`unknown grid ${id}`);
    grids.set(id, (g = make()));
  }
  return g;
}

parentPort!.on('message', (m: BinRequest) => {
  if (m.kind === 'open') {
    try {
      const g = grid(m.gridId);
      sessions.set(m.session, m.levels.map(({ level, zones }) => (zones ? new ZoneSlots(g, level, zones) : new ZonesMet(g, level))));
    } catch (e) {
      sessions.delete(m.session);
      console.error(e); // every bin of the session then answers with the error
    }
    return;
  }
  if (m.kind === 'close') {
    sessions.delete(m.session);
    return;
  }
  const binners = sessions.get(m.session);
  let reply: BinReply;
  try {
    if (!binners) throw new Error(`binning session ${m.session} did not open`);
    const slots: Int32Array[] = [];
    const met: string[] = [];
    for (const b of binners) {
      if (b instanceof ZoneSlots) {
        const out = new Int32Array(m.n);
        b.fill(m.x, m.y, m.n, out);
        slots.push(out);
      } else {
        b.add(m.x, m.y, m.n);
        met.push(...b.zoneIds());
      }
    }
    reply = { session: m.session, seq: m.seq, slots, met };
  } catch (e) {
    reply = { session: m.session, seq: m.seq, error: e instanceof Error ? e.message : String(e) };
  }
  parentPort!.postMessage(reply, 'slots' in reply ? reply.slots.map((s) => s.buffer as ArrayBuffer) : []);
});
