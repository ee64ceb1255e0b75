/**
 * Two more ways DGGAL moves across the 5x6 net, used only by the 3H sub-zone scanlines: a move that
 * continues past the first interruption it meets (move5x6Vertex3), and the segment test behind it
 * (crosses5x6Interruption, the older one that intersects the ten glued edge pairs). The 3H order was
 * tuned against these exact rules, so they are reproduced as they are rather than unified with the
 * 7H movers.
 */
import { crossInterruption, type Pt } from '../rhombic-5x6-net.js';

/** Per hemisphere (north, south), per rhombus pair, its left and right interruption edges. */
const INTERRUPTIONS: readonly (readonly (readonly (readonly [number, number, number, number])[])[])[] = [
  Array.from({ length: 5 }, (_, r) => [[r, r, r + 1, r], [r + 1, r, r + 1, r + 1]] as const),
  Array.from({ length: 5 }, (_, r) => [[r, r + 1, r, r + 2], [r, r + 2, r + 1, r + 2]] as const),
];

const snapToInteger = (v: number, max: number): number => {
  for (let k = 0; k <= max; k++) if (Math.abs(v - k) < 1e-12) return k;
  return v;
};

export interface FirstCrossing {
  /** Exit point on the interruption and its glued image. */
  i1: Pt;
  i2: Pt;
  north: boolean;
}

/**
 * Whether the segment from c along (dx, dy) meets an interruption edge; if so the nearest crossing, its
 * glued image and the hemisphere.
 */
export function firstInterruption(cInX: number, cInY: number, dx: number, dy: number, res: FirstCrossing): boolean {
  const cx = snapToInteger(cInX, 5), cy = snapToInteger(cInY, 6);
  if (Math.trunc(cx + 1) === Math.trunc(cx + dx + 1) && Math.trunc(cy + 1) === Math.trunc(cy + dy + 1)) return false;
  let best = Number.MAX_VALUE, crossH = -1, crossS = 0;
  const ax1 = cx + dx, ay1 = cy + dy;
  const s1x = ax1 - cx, s1y = ay1 - cy;
  for (let h = 0; h < 2; h++) {
    for (let r = 0; r < 5; r++) {
      for (let s = 0; s < 2; s++) {
        const [bx0, by0, bx1, by1] = INTERRUPTIONS[h]![r]![s]!;
        const s2x = bx1 - bx0, s2y = by1 - by0;
        const ddx = cx - bx0, ddy = cy - by0;
        const d = s1x * s2y - s2x * s1y;
        if (!(Math.abs(d) > 1e-13)) continue;
        const factor = 1.0 / d;
        const sp = (s1x * ddy - s1y * ddx) * factor;
        if (!(sp - 1e-12 >= 0 && sp + 1e-12 <= 1)) continue;
        const t = (s2x * ddy - s2y * ddx) * factor;
        if (!(t - 1e-12 >= 0 && t + 1e-12 <= 1) || !(t < best)) continue;
        best = t;
        res.i1.x = cx + t * s1x;
        res.i1.y = cy + t * s1y;
        crossH = h;
        crossS = s;
      }
    }
  }
  if (crossH < 0) return false;
  crossInterruption(res.i1.x, res.i1.y, crossH === 1, crossS === 0, res.i2);
  res.north = crossH === 0;
  return true;
}

const crossing: FirstCrossing = { i1: { x: 0, y: 0 }, i2: { x: 0, y: 0 }, north: false };

/**
 * From c by (dx, dy); past an interruption the rest of the move continues from the glued point, turned
 * (DGGAL's move5x6Vertex3, which assumes a crossing to the right). Results are wrapped by (5, 5).
 */
export function moveVertex3(cX: number, cY: number, dx: number, dy: number): Pt {
  let x: number, y: number;
  if (firstInterruption(cX, cY, dx, dy, crossing)) {
    const { i1, i2 } = crossing;
    if (crossing.north) {
      x = i2.x - 2 * (dy - (i1.y - cY));
      y = i2.y + dx - (i1.x - cX);
    } else {
      x = i2.x + dy - (i1.y - cY);
      y = i2.y + 2 * (dx - (i1.x - cX));
    }
  } else {
    x = cX + dx;
    y = cY + dy;
  }
  if (x > 5 && y > 5) { x -= 5; y -= 5; }
  else if (x < 0 && y < 1) { x += 5; y += 5; }
  return { x, y };
}
