/**
 * Sub-zones of a 7H zone in DGGAL's order (iterateI7HSubZones): scanlines parallel to a lattice axis,
 * starting next to the zone's topmost corner on the icosahedron net, with per-scanline widths that
 * follow the hexagon's outline. The order is part of the DGGRS (sub-zone indices in zone data responses
 * refer to it), so every counter and rotation rule is kept.
 */
import {
  centroidOf, latticeVertices, LOC, locate, POW7, zoneEdgeCount, type I7HZone,
} from './i7h-zone.js';
import { hexZoneLevel } from '../hex-zone.js';
import { move, NET_TRI_WIDTH_OVER_2, rotateCCW, rotateCW, toIcosahedronNet, type Pt } from '../rhombic-5x6-net.js';

/** Count of sub-zones `depth` levels below (closed forms of OEIS A199422 / A024075, pentagons 5/6). */
export function subZoneCount(z: I7HZone, depth: number): number {
  if (depth <= 0) return 1;
  const hex = depth & 1 ? POW7[depth]! + 5 * POW7[(depth - 1) >> 1]! + 1 : POW7[depth]! + POW7[depth >> 1]! - 1;
  return Math.floor((hex * zoneEdgeCount(z) + 5) / 6);
}

/** Topmost corner on the icosahedron net; returns 2 when two corners tie (the scan then starts rotated). */
function topVertex(z: I7HZone, out: Pt): number {
  const c = centroidOf(z);
  const nPoints = zoneEdgeCount(z);
  const v = latticeVertices(z.k, z.root, z.sh, c, nPoints);
  const n = v.length;
  let top = 0;
  let equalTop = false;
  const north = c.x - c.y - 1e-11 > 0 || (nPoints === 5 && !(z.root & 1));
  const oddLevel = (hexZoneLevel(z) & 1) === 1;
  const northPole = nPoints === 5 && z.root === 10;
  const topIco = { x: 0, y: 0 };
  const ico = { x: 0, y: 0 };
  const wrap = 5 * NET_TRI_WIDTH_OVER_2;
  toIcosahedronNet(v[0]!.x, v[0]!.y, topIco);
  for (let i = 1; i < n; i++) {
    toIcosahedronNet(v[i]!.x, v[i]!.y, ico);
    if (northPole ? ico.y < topIco.y - 1e-6 : ico.y > topIco.y + 1e-6) {
      equalTop = false;
      topIco.x = ico.x; topIco.y = ico.y;
      top = i;
    } else if (northPole ? ico.y <= topIco.y + 1e-6 : ico.y >= topIco.y - 1e-6) {
      if (!oddLevel || north) equalTop = true;
      if (northPole ? ico.x > topIco.x + 1e-8 && topIco.x + ico.x > wrap : ico.x < topIco.x - 1e-8 && topIco.x - ico.x < wrap) {
        topIco.x = ico.x; topIco.y = ico.y;
        top = i;
      }
    }
  }
  let special = false;
  // The first corner may not lie right of a northern interruption.
  const nx = v[(top + 1) % n]!;
  if (oddLevel && north && Math.floor(v[top]!.y + 1e-11) > Math.floor(nx.y + 1e-11) && v[top]!.y - nx.y < 3) {
    special = true;
    top = (top + 1) % n;
  }
  out.x = v[top]!.x;
  out.y = v[top]!.y;
  return equalTop || special ? 2 : 1;
}

function firstSubZoneCentroid(z: I7HZone, depth: number, first: Pt, s: Pt): void {
  const v = { x: 0, y: 0 };
  const nTop = topVertex(z, v);
  const level = hexZoneLevel(z);
  const nPoints = zoneEdgeCount(z);
  const szp = POW7[(level + 1 + depth) >> 1]!;
  const northPole = z.root === 10 && nPoints === 5;
  const pgonTweak = nPoints === 5 && !(depth & 1) && (level & 1) === 1;
  const north = !(z.root & 1);
  let dx: number, dy: number;
  if (depth & 1) {
    if (level & 1) { dx = 2 / (3.0 * szp); dy = 1 / (3.0 * szp); }
    else { dx = -4 / (3.0 * szp); dy = -5 / (3.0 * szp); }
  } else if (level & 1) { dx = -10 / (3.0 * szp); dy = -2 / (3.0 * szp); }
  else { dx = -4 / (3.0 * szp); dy = -2 / (3.0 * szp); }

  if ((pgonTweak && north) || (!pgonTweak && nTop === 2 && ((level & 1) === 1 || v.x - v.y - 1e-11 > 0))) {
    const nRotation = northPole ? 3 : 1;
    for (let i = 0; i < nRotation; i++) {
      const ndy = dy - dx;
      dx = dy;
      dy = ndy;
      if (!(northPole && pgonTweak && depth === 2 && i === nRotation - 1)) rotateCCW(s);
    }
  } else if (pgonTweak && z.root === 11 && depth === 2) {
    for (let i = 0; i < 5; i++) rotateCCW(s);
  }
  move(v.x, v.y, dx, dy, 1, null, false, first);
}

/**
 * True when a whole scanline stays well inside one unit cell of a rhombus: the walker then reduces to
 * start + i * step (bit for bit), so the per-zone walk can be skipped.
 */
function scanlineInsideCell(sc: Pt, ts: Pt, count: number): boolean {
  const m = 1e-9;
  const cx = Math.floor(sc.x), cy = Math.floor(sc.y);
  if (cx < 0 || cx > 4 || cy - cx < 0 || cy - cx > 1) return false;
  const ex = sc.x + (count - 1) * ts.x, ey = sc.y + (count - 1) * ts.y;
  return sc.x > cx + m && sc.x < cx + 1 - m && sc.y > cy + m && sc.y < cy + 1 - m &&
    ex > cx + m && ex < cx + 1 - m && ey > cy + m && ey < cy + 1 - m;
}

/**
 * Calls `emit(x, y)` with the 5x6 centroid of every sub-zone `depth` levels below, in DGGAL's order,
 * from position `from` on (earlier scanlines are skipped whole), until `emit` returns false.
 */
export function iterateSubZoneCentroids(z: I7HZone, depth: number, emit: (x: number, y: number) => boolean | void, from = 0): void {
  if (depth === 0) {
    const c = centroidOf(z);
    if (from === 0) emit(c.x, c.y);
    return;
  }
  let index = 0;
  const level = hexZoneLevel(z);
  const szLevel = level + depth;
  const oddAncestor = (level & 1) === 1, oddDepth = (depth & 1) === 1, oddLevelSZ = (szLevel & 1) === 1;
  const szp = POW7[(szLevel + (oddLevelSZ ? 1 : 0)) / 2]!;
  const c2c = 1.0 / szp;
  const s = { x: c2c * (oddLevelSZ ? 3 : 1), y: c2c * (oddLevelSZ ? 2 : 1) };
  const first = { x: 0, y: 0 };
  const nPoints = zoneEdgeCount(z);
  const root = z.root;
  firstSubZoneCentroid(z, depth, first, s);
  let nsx: number, nsy: number;
  if (!oddAncestor && oddDepth) { nsy = s.x; nsx = s.x - s.y; }
  else { nsy = s.x - s.y; nsx = -s.y; }
  const south = (root & 1) === 1;
  const ts = { x: 0, y: 0 };
  const sc = { x: 0, y: 0 };
  const cc = { x: 0, y: 0 };
  const out = { x: 0, y: 0 };
  const tt = { x: 0, y: 0 };
  let cStart = 0;
  let zonesPerSL: number;

  if (oddDepth) {
    const nInterSL = POW7[(depth - 1) >> 1]!;
    const nCapSL = Math.trunc(Math.ceil(nInterSL / 3.0) + 0.5);
    const nMidSL = Math.trunc(Math.ceil((nInterSL * 2) / 3.0) + 0.5);
    const B = nCapSL, C = B + nInterSL, D = C + nMidSL, E = D + nInterSL;
    let leftAC = 0, leftCE = 0, rightBD = 0, rightDF = 0;
    let nUntilPentagon = Number.MAX_SAFE_INTEGER;
    let pastPentagon = false;
    let pSLZones = 0, pRightBDMod5 = 0;
    const S = 2 * (nInterSL - 1);
    let nScanlines = 2 * nCapSL + 2 * nInterSL + nMidSL;
    if (nPoints === 5) {
      nUntilPentagon = nInterSL + nMidSL;
      nScanlines -= Math.trunc((4 * nInterSL + 11) / 15);
    }
    const n = nScanlines - (depth > 1 ? 1 : 0) - Math.trunc(S / 5);
    zonesPerSL = 1;
    for (let sl = 0; sl < nScanlines; sl++) {
      let left: number, right: number;
      ts.x = s.x; ts.y = s.y;
      if (sl === nUntilPentagon) pastPentagon = true;
      if (sl < B) {
        left = sl > 0 && leftAC++ % 4 === 0 ? 1 : 0;
        right = sl > 0 ? 5 : 0;
      } else if (sl < C) {
        left = leftAC++ % 4 === 0 ? 1 : 0;
        right = sl === B ? 2 : rightBD++ % 5 !== 0 ? 1 : 0;
      } else if (nPoints === 5) {
        if (sl < D) {
          left = sl === C || leftCE++ % 5 !== 0 ? -1 : 0;
          right = rightBD++ % 5 !== 0 ? 1 : 0;
        } else {
          left = leftCE++ % 5 !== 0 ? -1 : 0;
          right = sl === D ? 1 : rightDF++ % 4 === 0 ? -1 : 0;
        }
        if (!oddAncestor) {
          if (sl >= C + B) left--;
        } else if (sl >= C + B) right--;
        if (sl >= E) left -= 1 + (sl > E ? 3 : 0) + (leftCE % 5 === 1 ? 1 : 0);
        if (sl === nUntilPentagon) pRightBDMod5 = (rightBD + 4) % 5;
      } else if (sl < D) {
        left = sl === C || leftCE++ % 5 !== 0 ? -1 : 0;
        right = rightBD++ % 5 !== 0 ? 1 : 0;
      } else if (sl < E) {
        left = leftCE++ % 5 !== 0 ? -1 : 0;
        right = sl === D ? 1 : rightDF++ % 4 === 0 ? -1 : 0;
      } else {
        left = sl === E ? -2 : -5;
        right = rightDF++ % 4 === 0 ? -1 : 0;
      }
      cStart += oddAncestor ? left : right;
      zonesPerSL += left + right;

      const pgonRedir = pastPentagon && (south ? sl > nUntilPentagon || root === 11 : true);
      let h = Math.trunc(zonesPerSL / 2);
      if (sl === nUntilPentagon) pSLZones = h;
      if (pgonRedir && sl > nUntilPentagon) {
        if (oddAncestor) {
          const m = Math.min(sl, E) - nUntilPentagon;
          const shift = (5 - pRightBDMod5) % 5;
          const n5 = Math.trunc((m + shift - 1) / 5);
          h = Math.max(1, pSLZones - (m - n5));
          if (sl >= E) h -= (sl - E) * 5 + 1;
        } else {
          const dms = Math.min(sl, D) - nUntilPentagon;
          h = pSLZones;
          if (dms) h -= Math.trunc((dms + pRightBDMod5) / 5);
          if (sl > D) {
            const smd = sl - D;
            h -= smd + Math.trunc((smd + 3) / 4);
          }
        }
      }
      move(first.x, first.y, sl * nsx - cStart * ts.x, sl * nsy - cStart * ts.y, 1, ts, true, sc);
      if (index + zonesPerSL <= from) {
        index += zonesPerSL;
        continue;
      }
      if (!pgonRedir && scanlineInsideCell(sc, ts, zonesPerSL)) {
        for (let i = 0; i < zonesPerSL; i++) if (index++ >= from && emit(sc.x + i * ts.x, sc.y + i * ts.y) === false) return;
        continue;
      }
      for (let i = 0; i < zonesPerSL; i++) {
        if (index++ < from) continue;
        if (pgonRedir && i > h) {
          move(sc.x, sc.y, h * ts.x, h * ts.y, 1, null, true, cc);
          tt.x = ts.x; tt.y = ts.y;
          if (root === 10) {
            if (sl === nUntilPentagon && !oddAncestor) rotateCCW(tt);
            else {
              rotateCW(tt);
              if (sl < n || oddAncestor) rotateCW(tt);
            }
          } else if (root === 11) {
            rotateCW(tt);
            if (sl < n || oddAncestor) rotateCW(tt);
          } else if (!south || (!oddAncestor && sl >= n)) rotateCW(tt);
          move(cc.x, cc.y, (i - h) * tt.x, (i - h) * tt.y, 1, null, true, out);
        } else move(sc.x, sc.y, i * ts.x, i * ts.y, 1, null, true, out);
        if (emit(out.x, out.y) === false) return;
      }
    }
    return;
  }

  const p = POW7[depth >> 1]!;
  const nCapSL = Math.trunc((p - 1) / 3);
  const nMidSL = Math.trunc((2 * p + 1) / 3);
  const B = nCapSL, C = B + nMidSL;
  let nUntilPentagon = Number.MAX_SAFE_INTEGER;
  let pastPentagon = false;
  const oddSouthPentagon = nPoints === 5 && oddAncestor && south;
  let n = 0, flipStart = 0;
  let nScanlines = 2 * nCapSL + nMidSL;
  if (nPoints === 5) {
    nScanlines -= Math.trunc(nCapSL / 2);
    nUntilPentagon = nMidSL - 1;
  }
  zonesPerSL = 3;
  if (nPoints === 5 && oddAncestor) {
    const S = 2 * (p - 1);
    n = nUntilPentagon + Math.trunc(S / 5) + (S % 5 === 4 ? 1 : 0);
  }
  const dd = { x: 0, y: 0 };
  const tsc = { x: 0, y: 0 };
  for (let sl = 0; sl < nScanlines; sl++) {
    ts.x = s.x; ts.y = s.y;
    let left: number, right: number;
    if (sl === nUntilPentagon) pastPentagon = true;
    if (sl < B) {
      left = sl > 0 ? 1 : 0;
      right = sl > 0 ? 2 : 0;
    } else if (sl < C) {
      left = sl === B || (sl - B) & 1 ? 0 : -1;
      right = sl === B || (sl - B) & 1 ? 1 : 0;
    } else {
      left = sl === C ? -1 : -2;
      right = sl === C ? 0 : -1;
    }
    if (pastPentagon && sl > nUntilPentagon) right -= 1;
    cStart += left;
    zonesPerSL += left + right;
    if (sl === n) flipStart = cStart;
    const pgonRedir = pastPentagon && (south ? sl > nUntilPentagon || (oddAncestor && root === 11) : true);
    if (oddSouthPentagon && sl > n) {
      // Past the interruption the scan turns without crossing it; the start is rebuilt step by step.
      move(first.x, first.y, n * nsx - flipStart * ts.x, n * nsy - flipStart * ts.y, 1, ts, true, sc);
      if (nScanlines === n + 2) { tsc.x = sc.x; tsc.y = sc.y; }
      else move(sc.x, sc.y, ts.x, ts.y, 1, ts, true, tsc);
      rotateCW(ts);
      move(tsc.x, tsc.y, ts.x, ts.y, 1, ts, true, sc);
      rotateCCW(ts);
      if (sl > n + 1) {
        dd.x = ts.x; dd.y = ts.y;
        rotateCW(dd);
        tsc.x = sc.x; tsc.y = sc.y;
        move(tsc.x, tsc.y, (sl - n - 1) * (ts.x + dd.x), (sl - n - 1) * (ts.y + dd.y), 1, null, true, sc);
      }
    } else move(first.x, first.y, sl * nsx - cStart * ts.x, sl * nsy - cStart * ts.y, 1, ts, true, sc);

    if (index + zonesPerSL <= from) {
      index += zonesPerSL;
      continue;
    }
    if (!pgonRedir && scanlineInsideCell(sc, ts, zonesPerSL)) {
      for (let i = 0; i < zonesPerSL; i++) if (index++ >= from && emit(sc.x + i * ts.x, sc.y + i * ts.y) === false) return;
      continue;
    }
    for (let i = 0; i < zonesPerSL; i++) {
      if (index++ < from) continue;
      if (pgonRedir && i > Math.trunc(zonesPerSL / 2)) {
        const h = Math.trunc(zonesPerSL / 2);
        tt.x = ts.x; tt.y = ts.y;
        move(sc.x, sc.y, h * tt.x, h * tt.y, 1, null, true, cc);
        if (root === 10) {
          if (!oddAncestor) { rotateCW(tt); rotateCW(tt); }
          else {
            rotateCCW(tt);
            if (sl > nUntilPentagon) { rotateCCW(tt); rotateCCW(tt); rotateCCW(tt); }
            if (sl > n) rotateCCW(tt);
          }
        } else if (root === 11) {
          if (oddAncestor && sl > n) rotateCCW(tt);
          rotateCCW(tt); rotateCCW(tt); rotateCCW(tt); rotateCCW(tt);
        } else if (south) {
          if (oddAncestor && sl > n) rotateCW(tt);
        } else rotateCW(tt);
        move(cc.x, cc.y, (i - h) * tt.x, (i - h) * tt.y, 1, null, true, out);
      } else move(sc.x, sc.y, i * ts.x, i * ts.y, !oddAncestor && pastPentagon ? 2 : 1, null, true, out);
      if (emit(out.x, out.y) === false) return;
    }
  }
}

/** Sub-zones as zone records, in order, from position `from` on, until `visit` returns false. */
export function subZones(z: I7HZone, depth: number, visit: (k: number, root: number, ix: number, sh: number) => boolean | void, from = 0): void {
  const szLevel = hexZoneLevel(z) + depth;
  iterateSubZoneCentroids(z, depth, (x, y) => (locate(szLevel, x, y) ? visit(LOC.k, LOC.root, LOC.ix, LOC.sh) : true), from);
}
