/**
 * IVEA7H throughput beside h3-js on the same random points: zone from point, zone geometry, sub-zones.
 * Run: sh scripts/node.sh --import tsx -e "import('./bench/grid.bench.ts').then(m=>m.run())"
 */
import { cellToBoundary, cellToChildren, latLngToCell } from 'h3-js';
import { createIvea7h } from '../src/domain/dggrs/ivea7h.js';
import { mulberry32 as rng } from '../scripts/lib/prng.js';

/** Runs fn repeatedly for at least `ms` and returns operations (as counted by fn) per second. */
function rate(ms: number, fn: () => number): number {
  fn(); // warm-up
  let ops = 0;
  const t0 = performance.now();
  let t = t0;
  while (t - t0 < ms) {
    ops += fn();
    t = performance.now();
  }
  return (ops * 1000) / (t - t0);
}

/** Alternates the two measurements a few times and keeps each one's best, to damp noise from other load. */
function bestOf(rounds: number, ms: number, ours: () => number, ref: () => number): [number, number] {
  let a = 0, b = 0;
  for (let i = 0; i < rounds; i++) {
    a = Math.max(a, rate(ms, ours));
    b = Math.max(b, rate(ms, ref));
  }
  return [a, b];
}

const fmt = (v: number): string => (v >= 1e6 ? `${(v / 1e6).toFixed(2)} M/s` : `${(v / 1e3).toFixed(1)} k/s`);

function line(label: string, ours: number, ref: number, refLabel: string): void {
  console.log(`${label.padEnd(38)} ours ${fmt(ours).padStart(11)}   ${refLabel.padEnd(26)} ${fmt(ref).padStart(11)}   ratio ${(ours / ref).toFixed(2)}x`);
}

export async function run(): Promise<void> {
  const grid = createIvea7h();
  const rand = rng(42);
  const n = 100000;
  const lons = new Float64Array(n), lats = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    lons[i] = rand() * 360 - 180;
    lats[i] = (Math.asin(2 * rand() - 1) * 180) / Math.PI;
  }
  // H3 resolution with the closest mean cell area to an IVEA7H level (7H level L ~ H3 res L - 1).
  const h3Res = (level: number): number => {
    const area7h = 510065621724088.7 / (10 * 7 ** level);
    let best = 0;
    for (let r = 0; r <= 15; r++) {
      const a = 4.357449416078383e12 / 7 ** r;
      if (Math.abs(Math.log(a / area7h)) < Math.abs(Math.log(4.357449416078383e12 / 7 ** best / area7h))) best = r;
    }
    return best;
  };
  const ms = 600;
  console.log(`IVEA7H vs h3-js, ${n} random points (uniform on the sphere), Node ${process.version}`);

  console.log('\nZone from point (points/s)');
  for (const level of [5, 9, 13]) {
    const r = h3Res(level);
    let sink = 0;
    const [ours, ref] = bestOf(3, ms, () => { for (let i = 0; i < n; i++) sink += grid.zoneFromPoint(lons[i]!, lats[i]!, level).length; return n; },
      () => { for (let i = 0; i < n; i++) sink += latLngToCell(lats[i]!, lons[i]!, r).length; return n; });
    const [numeric] = bestOf(3, ms, () => { for (let i = 0; i < n; i++) sink += grid.zoneKeyFromPoint(lons[i]!, lats[i]!, level); return n; }, () => 1);
    line(`level ${level} (h3 res ${r}) text id`, ours, ref, `latLngToCell res ${r}`);
    line(`level ${level} numeric key (zoneKeyFromPoint)`, numeric, ref, `latLngToCell res ${r}`);
    if (sink < 0) console.log(sink);
  }

  console.log('\nZone geometry (zones/s), plain corners');
  {
    const level = 9, r = h3Res(level), m = 20000;
    const ids = Array.from({ length: m }, (_, i) => grid.zoneFromPoint(lons[i]!, lats[i]!, level));
    const cells = Array.from({ length: m }, (_, i) => latLngToCell(lats[i]!, lons[i]!, r));
    let sink = 0;
    const [ours, ref] = bestOf(3, ms, () => { for (const id of ids) sink += grid.zoneOutline(id, false).length; return m; },
      () => { for (const c of cells) sink += cellToBoundary(c).length; return m; });
    line(`level ${level} zoneOutline(refined=false)`, ours, ref, `cellToBoundary res ${r}`);
    if (sink < 0) console.log(sink);
  }

  console.log('\nSub-zones at relative depth 3 (returned zones/s)');
  for (const level of [5, 9]) {
    const r = h3Res(level), m = 200;
    const ids = Array.from({ length: m }, (_, i) => grid.zoneFromPoint(lons[i]!, lats[i]!, level));
    const cells = Array.from({ length: m }, (_, i) => latLngToCell(lats[i]!, lons[i]!, r));
    const [ours, ref] = bestOf(3, ms, () => { let c = 0; for (const id of ids) c += grid.subZones(id, 3).length; return c; },
      () => { let c = 0; for (const cell of cells) c += cellToChildren(cell, r + 3).length; return c; });
    line(`level ${level} -> ${level + 3} subZones`, ours, ref, `cellToChildren ${r}->${r + 3}`);
  }
}
