/**
 * The 5x6 rhombic net both icosahedral projections unfold into: ten unit rhombi (root r has its corner at
 * (r div 2, r div 2 + r mod 2)), glued along "interruptions" with 60-degree turns, periodic by (5, 5).
 *
 * DGGAL walks this space with several movers whose epsilon rules differ; zone ids depend on which one a
 * caller uses near seams, so each is reproduced separately and callers pick the same one DGGAL does.
 * Points are mutable {x, y} records so hot loops can reuse them.
 */

export interface Pt {
  x: number;
  y: number;
}

const sgn = (v: number): number => (v > 0 ? 1 : v < 0 ? -1 : 0);
const itrunc = Math.trunc;

/** 60 degrees counter-clockwise in lattice terms. */
export function rotateCCW(p: Pt): void {
  const x = p.x;
  p.x = p.y;
  p.y = p.y - x;
}

/** 60 degrees clockwise in lattice terms. */
export function rotateCW(p: Pt): void {
  const x = p.x;
  p.x = x - p.y;
  p.y = x;
}

/** Glue image of a point on an interruption edge (DGGAL's cross5x6Interruption). */
export function crossInterruption(sx: number, sy: number, south: boolean, left: boolean, out: Pt): void {
  let x: number, y: number;
  if (!south) {
    if (left) {
      const ix = itrunc(sy + 1e-11);
      x = sy; y = ix - (sx - ix);
    } else {
      const iy = itrunc(sx - 1 + 1e-11);
      x = iy + 2 - (sy - iy); y = sx;
    }
  } else if (left) {
    const iy = itrunc(sx + 1 + 1e-11);
    x = iy - 1 - (sy - iy); y = sx + 1;
  } else {
    const ix = itrunc(sy - 2 + 1e-11);
    x = sy - 1; y = ix + 3 - (sx - ix);
  }
  if (x > 5 - 1e-11 && y > 5 - 1e-11) { x -= 5; y -= 5; }
  else if (x < 1e-11 && y < 1 - 1e-11) { x += 5; y += 5; }
  out.x = x;
  out.y = y;
}

/** Canonical representative of a 5x6 point (seam points moved to the next rhombus, poles to (1,0)/(4,6)). */
export function canonicalize(sx: number, sy: number, out: Pt): void {
  let x = sx, y = sy;
  if (x > 5 - 1e-11 && y > 5 - 1e-11) { x -= 5; y -= 5; }
  if (x < -1e-11 || y < -1e-11) { x += 5; y += 5; }
  const cx = Math.floor(x + 1e-11);
  const cy = Math.floor(y + 1e-11);
  let cross = false, south = false, np = false, sp = false;
  if (cy >= 0 && cy <= 4) {
    cross = Math.abs(x - (cy + 1)) < 1e-11;
    np = cross && Math.abs(y - cy) < 1e-11;
  }
  if (cx >= 0 && cx <= 4 && Math.abs(y - (cx + 2)) < 1e-11) {
    cross = true;
    south = true;
    sp = Math.abs(x - cx) < 1e-11;
  }
  if (sp) { out.x = 4; out.y = 6; }
  else if (np) { out.x = 1; out.y = 0; }
  else if (cross) crossInterruption(x, y, south, false, out);
  else if (Math.abs(x - 5) < 1e-11) { out.x = 0; out.y = y - 5; }
  else { out.x = x; out.y = y; }
}

/** Single-jump move used for odd-level centroid offsets (DGGAL's move5x6Vertex). */
export function moveVertex(cX: number, cY: number, dx: number, dy: number, out: Pt): void {
  const cx = itrunc(cX + 1e-11), cy = itrunc(cY + 1e-11);
  let vxp = cX + dx, vyp = cY + dy;
  const vx = Math.floor(cX + dx - sgn(dx) * 1e-11);
  const vy = Math.floor(cY + dy - sgn(dy) * 1e-11);
  if (((vx !== cx && Math.abs(vyp - vy) > 1e-11) || (vy !== cy && Math.abs(vxp - vx) > 1e-11)) && (vy - vx > 1 || vy < vx)) {
    if (vx < cx || vx > cx) {
      vxp = cx - (cY - cy) + dx - dy;
      vyp = cy + dx;
    } else if (vy < cy || vy > cy) {
      vxp = cx + dy;
      vyp = cy - (cX - cx) - dx + dy;
    }
  }
  out.x = vxp;
  out.y = vyp;
}

/** Move used by children/neighbour/parent probes and the zone lookup pre-wrap (DGGAL's move5x6Vertex2). */
export function moveVertex2(sX: number, sY: number, dx: number, dy: number, crossEarly: boolean, out: Pt): void {
  const e = 1e-11;
  let cX = sX, cY = sY;
  let cx = Math.floor(cX + e), cy = Math.floor(cY + e);
  const cx2 = Math.floor(cX - e), cy2 = Math.floor(cY - e);
  let nX = cX + dx, nY = cY + dy;
  if (nX < 0) nX += 5; else if (nX > 5) nX -= 5;
  if (nY < 0) nY += 5; else if (nY > 5 && cY > 6 - e) nY -= 5;
  const nTopRightOfP = (nX > cX + e && nX - cX < 3) || cX - nX > 3;
  const nTopLeftOfP = (nX < cX - e && cX - nX < 3) || nX - cX > 3;
  const nBottomRightOfP = (nY > cY && nY - cY < 3) || cY - nY > 3;
  const nBottomLeftOfP = (nY < cY - e && cY - nY < 3) || nY - cY > 3;
  const atTopRight = cx2 !== cx && cX > cY + e && nTopRightOfP;
  const atTopLeft = cy2 !== cy && cX > cY + e && nTopLeftOfP;
  const atBottomLeft = cx2 !== cx && cY > cX + 1 + e && nBottomLeftOfP;
  const atBottomRight = cy2 !== cy && cY > cX + 1 + e && nBottomRightOfP;
  if (crossEarly) {
    if (atTopRight) { const x = cx + 1.0 - (cY - cy); cY = cy + 1; cX = x; }
    else if (atTopLeft) { const y = cy - (cX - cx); cX = cx; cY = y; }
    else if (atBottomLeft) { const x = cx - (cY - cy); cY = cy; cX = x; }
    else if (atBottomRight) { const y = cy + (cx + 1 - cX); cX = cx + 1; cY = y; }
    if (cX > 5 || cY > 6 + e) { cX -= 5; cY -= 5; }
    else if (cX < 0 || cY < -e) { cX += 5; cY += 5; }
    cx = Math.floor(cX + e);
    cy = Math.floor(cY + e);
  }
  let vX = cX + dx, vY = cY + dy;
  const vx = Math.floor(cX + dx + 1e-11), vy = Math.floor(cY + dy + 1e-11);
  if (((vx !== cx && Math.abs(vY - vy) > 1e-11) || (vy !== cy && Math.abs(vX - vx) > 1e-11)) && (vy - vx > 1 || vy < vx)) {
    if (Math.abs(vX - vY - 1) < 1e-10) { vX = 1; vY = 0; }
    else if (Math.abs(vY - vX - 2) < 1e-10) { vX = 4; vY = 6; }
    else if (vx < cx && vX - vx < 1 - e) {
      const p1x = cx, p1y = cY + 0.5 * (cx - cX);
      const p2x = cx - (p1y - cy), p2y = cy;
      vX = p2x + p1y - cY; vY = p2y + p1x - cX;
    } else if (vx > cx && vX - vx > e) {
      const p1x = cx + 1, p1y = cY + 0.5 * (cx + 1 - cX);
      const p2x = cx + 1 + (cy + 1 - p1y), p2y = cy + 1;
      vX = p2x + p1y - cY; vY = p2y + p1x - cX;
    } else if (vy < cy && vY - vy < 1 - e) {
      const p1x = cX + 0.5 * (cy - cY), p1y = cy;
      const p2x = cx, p2y = cy - (p1x - cx);
      vX = p2x + p1y - cY; vY = p2y + p1x - cX;
    } else if (vy > cy && vY - vy > e) {
      const p1x = vX + 0.5 * (cy + 1 - cY), p1y = cy + 1;
      const p2x = cx + 1, p2y = cy + 1 + (cx + 1 - p1x);
      vX = p2x + p1y - cY; vY = p2y + p1x - cX;
    }
  }
  if (vX > 5) { vX -= 5; vY -= 5; }
  else if (vX < 0) { vX += 5; vY += 5; }
  out.x = vX;
  out.y = vY;
}

/** Result register of `stepInSquare`. */
const STEP: Pt = { x: 0, y: 0 };

/**
 * The part of the move (dx, dy) from (cX, cY) that stays in the unit square (cx, cy), along the move,
 * into STEP: where the move leaves the square it is cut at the first side it reaches.
 */
function stepInSquare(cX: number, cY: number, cx: number, cy: number, dx: number, dy: number): void {
  let px = dx < 0 ? Math.max(cx - cX, dx) : Math.min(cx + 1 - cX, dx);
  let py = dy < 0 ? Math.max(cy - cY, dy) : Math.min(cy + 1 - cY, dy);
  if (dx && dy) {
    const pkx = px / dx, pky = py / dy;
    if (pkx < pky) py = pkx * dy;
    else if (pky < pkx) px = pky * dx;
  }
  STEP.x = px;
  STEP.y = py;
}

export const NORTH_DIAGONAL = 1, SOUTH_DIAGONAL = 2;

/**
 * A centroid brought onto the net before its zone is looked up (DGGAL's fromCentroid pre-wrap), into
 * `out`: over a top or bottom dent to the rhombus on its right, from left of x = 0 or above y = 0 by a
 * vertex move (`moveVertex2` for RI7H, `moveVertex` for RI3H, as each does), and from the last corner
 * (within `side` of (5, 5), the cell side) back to (0, 0). Returns NORTH_DIAGONAL or SOUTH_DIAGONAL for
 * a point on a polar diagonal (left where it is), else 0.
 */
export function centroidIntoNet(x: number, y: number, side: number, move2: boolean, out: Pt): number {
  let diagonal = 0;
  if (Math.abs(x - y - 1) < 1e-10) diagonal = NORTH_DIAGONAL;
  else if (Math.abs(y - x - 2) < 1e-10) diagonal = SOUTH_DIAGONAL;
  else if (y < -1e-11 && x > -1e-11) { x -= y; y = 0; }
  else if (Math.floor(x + 1e-11) > Math.floor(y + 1e-11)) {
    const cy = Math.min(5, Math.floor(y + 1e-11));
    x += cy + 1 - y; y = cy + 1;
  } else if (Math.floor(y + 1e-11) - Math.floor(x + 1e-11) > 1) {
    const cx = Math.min(4, Math.floor(x + 1e-11));
    y += cx + 1 - x; x = cx + 1;
  } else if (x < -1e-11 || y < -1e-11) {
    if (move2) moveVertex2(5, 5, x, y, false, out);
    else moveVertex(5, 5, x, y, out);
    x = out.x; y = out.y;
  }
  if (x > 5 - 1e-11 && y > 5 - 1e-11 && x + y > 5.0 + 5.0 - side - 1e-11) { x -= 5; y -= 5; }
  out.x = x;
  out.y = y;
  return diagonal;
}


export interface Crossing {
  i1: Pt;
  i2: Pt;
  north: boolean;
}

/**
 * Whether the segment from c along (dx, dy) leaves its rhombus through an interruption; if so the exit
 * point and its glued image (DGGAL's crosses5x6InterruptionV2, used by the vertex walk).
 */
export function crossesInterruption(cInX: number, cInY: number, dx: number, dy: number, res: Crossing): boolean {
  let result = false;
  let cX = cInX, cY = cInY;
  if (cX < 0 && cY < 1 + 1e-11) { cX += 5; cY += 5; }
  let cdx = cX, cdy = cY;
  const north = cdx - cdy - 1e-11 > 0;
  if (north) { cdx -= 1e-11; cdy += 1e-11; } else { cdx += 1e-11; cdy -= 1e-11; }
  if (cdx < 0 && cdy < 1 + 1e-11) { cdx += 5; cdy += 5; cX += 5; cY += 5; }
  if (cdx > 5 && cdy > 5 - 1e-11) { cdx -= 5; cdy -= 5; cX -= 5; cY -= 5; }
  const cx = Math.floor(cdx), cy = Math.floor(cdy);
  stepInSquare(cX, cY, cx, cy, dx, dy);
  const px = STEP.x, py = STEP.y;
  cX += px;
  cY += py;
  if (Math.abs(dx - px) < 1e-11 && Math.abs(dy - py) < 1e-11) return false;
  const nx = Math.floor(cX + 1e-11 * sgn(dx));
  const ny = Math.floor(cY + 1e-11 * sgn(dy));
  if ((nx !== cx || ny !== cy) && (nx > cx || Math.abs(dx - px) > 1e-11 || Math.abs(dy - py) > 1e-11)) {
    const moved = Math.abs(px) > 1e-11 || Math.abs(py) > 1e-11;
    if (!((cx + cy) & 1)) {
      if (ny === cy && nx === cx + 1) {
        const iy = itrunc(cX - 1 + 1e-11);
        res.i1.x = cX; res.i1.y = cY;
        res.i2.x = iy + 2 - (cY - iy); res.i2.y = cX;
        res.north = true;
        if (moved) result = true;
      } else if (nx === cx && ny === cy - 1) {
        const ix = itrunc(cY + 1e-11);
        res.i1.x = cX; res.i1.y = cY;
        res.i2.x = cY; res.i2.y = ix - (cX - ix);
        res.north = true;
        if (moved) result = true;
      }
    } else if (nx === cx && ny === cy + 1) {
      const ix = itrunc(cY - 2 + 1e-11);
      res.i1.x = cX; res.i1.y = cY;
      res.i2.x = cY - 1; res.i2.y = ix + 3 - (cX - ix);
      res.north = false;
      if (moved) result = true;
    } else if (ny === cy && nx === cx - 1) {
      const iy = itrunc(cX + 1 + 1e-11);
      res.i1.x = cX; res.i1.y = cY;
      res.i2.x = iy - 1 - (cY - iy); res.i2.y = cX + 1;
      res.north = false;
      if (moved) result = true;
    }
  }
  if (result && res.i2.x < 0 && res.i2.y < 1 + 1e-11) { res.i2.x += 5; res.i2.y += 5; }
  return result;
}

/**
 * Full walker used by the sub-zone scanlines (DGGAL's move5x6): clips the move to unit cells, crosses
 * any number of interruptions, rotating the remaining offset (and `adj`, the carried scan direction)
 * by `nRotations` sixths of a turn per crossing.
 */
export function move(oX: number, oY: number, dx: number, dy: number, nRotations: number, adj: Pt | null, finalCross: boolean, out: Pt): void {
  let cX = oX, cY = oY;
  if (cX < 0 && cY < 1 + 1e-11) { cX += 5; cY += 5; }
  if (Math.abs(dx) < 1e-11 && Math.abs(dy) < 1e-11) {
    out.x = cX;
    out.y = cY;
    return;
  }
  const EPS = 1e-11;
  for (;;) {
    let cdx = cX, cdy = cY;
    let rotation = 0;
    const north = !(cdy - cdx > 1);
    const iy = Math.floor(cdy + EPS);
    const ix = Math.floor(cdx + EPS);
    let doNudge = true;
    if (Math.abs(cY - iy) < EPS && iy >= 0 && iy <= 5 && cX > iy - 1 - EPS && cX < iy + EPS) {
      cdy += 2 * sgn(dy) * EPS;
      if (cX > iy - 1 + EPS && cX < iy - EPS) doNudge = false;
    }
    if (Math.abs(cX - ix) < EPS && ix >= 0 && ix <= 5 && cY > ix - EPS && cY < ix + 1 + EPS) {
      cdx += 2 * sgn(dx) * EPS;
      if (cY > ix + EPS && cY < ix + 1 - EPS) doNudge = false;
    }
    if (doNudge) {
      if (!north) { cdx += 1e-11; cdy -= 1e-11; } else { cdx -= 1e-11; cdy += 1e-11; }
    }
    if (cdx < 0 && cdy < 1 + 1e-11) { cdx += 5; cdy += 5; cX += 5; cY += 5; }
    if (cdx > 5 && cdy > 5 - 1e-11) { cdx -= 5; cdy -= 5; cX -= 5; cY -= 5; }
    if (cdy < 0 && cdx < 1e-11) { cdx += 5; cdy += 5; cX += 5; cY += 5; }
    if (cdx < 0) cdx = 0;
    if (cdy < 0) cdy = 0;
    if (cdx > 5) cdx = 5;
    if (cdy > 6) cdy = 6;
    const cx = Math.floor(cdx), cy = Math.floor(cdy);
    stepInSquare(cX, cY, cx, cy, dx, dy);
    const px = STEP.x, py = STEP.y;
    cX += px;
    cY += py;
    if (!finalCross && Math.abs(dx - px) < 1e-11 && Math.abs(dy - py) < 1e-11) break;
    const atVertex = Math.abs(cX - itrunc(cX + 0.5)) < EPS && Math.abs(cY - itrunc(cY + 0.5)) < EPS;
    let nx = Math.floor(cX + EPS * sgn(dx));
    let ny = Math.floor(cY + EPS * sgn(dy));
    if (atVertex && Math.abs(dx) > EPS && Math.abs(dy) <= EPS) { ny = cy; nx = cx + sgn(dx); }
    else if (atVertex && Math.abs(dy) > EPS && Math.abs(dx) <= EPS) { nx = cx; ny = cy + sgn(dy); }
    else if (nx > cx && ny < cy) nx = cx;
    else if (nx < cx && ny > cy) ny = cy;
    if (nx !== cx || ny !== cy) {
      if (!((cx + cy) & 1)) {
        if (ny === cy && nx === cx + 1) {
          const j = itrunc(cX - 1 + 1e-11);
          const x = j + 2 - (cY - j); cY = cX; cX = x;
          rotation = -1;
        } else if (nx === cx && ny === cy - 1) {
          const j = itrunc(cY + 1e-11);
          const y = j - (cX - j); cX = cY; cY = y;
          rotation = 1;
        }
      } else if (nx === cx && ny === cy + 1) {
        const j = itrunc(cY - 2 + 1e-11);
        const y = j + 3 - (cX - j); cX = cY - 1; cY = y;
        rotation = 1;
      } else if (ny === cy && nx === cx - 1) {
        const j = itrunc(cX + 1 + 1e-11);
        const x = j - 1 - (cY - j); cY = cX + 1; cX = x;
        rotation = -1;
      }
    }
    dx -= px;
    dy -= py;
    if (cX < -1e-11 && cY < 1 + 1e-11) { cX += 5; cY += 5; }
    else if (cY < 0 && cX < 1e-11) { cX += 5; cY += 5; }
    else if (cX > 5 - 1e-11 && cY > 6 + 1e-11) { cX -= 5; cY -= 5; }
    if (rotation) {
      for (let i = 0; i < nRotations; i++) {
        if (rotation === -1) {
          const ndx = dx - dy; dy = dx; dx = ndx;
          if (adj) rotateCW(adj);
        } else {
          const ndy = dy - dx; dx = dy; dy = ndy;
          if (adj) rotateCCW(adj);
        }
      }
    }
    if (Math.abs(dx) < 1e-11) dx = 0;
    if (Math.abs(dy) < 1e-11) dy = 0;
    if (!dx && !dy) break;
  }
  out.x = cX;
  out.y = cY;
}

const TRI_WIDTH_OVER_2 = 3837228.974186817588708390593582550750582603355645708023;
const SQRT3 = 1.73205080756887729352744634150587236694280525381038;

/** Planar icosahedron-net coordinates (only the ordering of vertices matters to callers). */
export function toIcosahedronNet(x: number, y: number, out: Pt): void {
  out.x = TRI_WIDTH_OVER_2 * (x + y);
  out.y = TRI_WIDTH_OVER_2 * SQRT3 * (x - y);
}

export const NET_TRI_WIDTH_OVER_2 = TRI_WIDTH_OVER_2;

const nearPt = (q: Pt, x: number, y: number): boolean => Math.abs(q.x - x) < 1e-6 && Math.abs(q.y - y) < 1e-6;

/** A point of the net at one of the vertices where the geographic poles lie. */
export function atPoleVertex(q: Pt): boolean {
  return nearPt(q, 0.5, 0) || nearPt(q, 5, 4.5) || nearPt(q, 2, 3.5) || nearPt(q, 1.5, 3);
}

/** An edge p -> n running along one of the net's cuts beside a pole (DGGAL densifies those twenty times more). */
export function edgeAlongPoleCut(p: Pt, n: Pt): boolean {
  return (
    (n.x < 0.5 && p.x > 0.5 && p.y < 0.01 && n.y < 0.01) ||
    (n.x > 4.99 && p.x > 4.99 && p.y > 4.5 && n.y < 4.5) ||
    (n.x > 1.5 && p.x < 1.5 && p.y > 2.99 && n.y > 2.99) ||
    (n.x < 2.01 && p.x < 2.01 && p.y < 3.5 && n.y > 3.5)
  );
}

/**
 * Densifies one outline edge p -> n into `points` (DGGAL's addIntermediatePoints). i1/i2 are the exit and
 * glued entry points when the edge crosses an interruption. Only an edge crossing the interruption at a
 * pole's vertex (i1 or i2 within 1e-6 of it) or running along a cut beside a pole gets twenty times more
 * points (those of a crossing strided by twenty away from it); an edge that merely ends near a pole gets
 * the usual count, as in DGGAL, whose refined outlines of the zones beside a pole have no more points
 * than any other's.
 */
export function addIntermediatePoints(points: Pt[], p: Pt, n: Pt, nDivisions: number, i1: Pt | null, i2: Pt | null, crs84: boolean): void {
  let dx = n.x - p.x, dy = n.y - p.y;
  const nearPole = (crs84 && i1 !== null && i2 !== null && (atPoleVertex(i1) || atPoleVertex(i2))) || edgeAlongPoleCut(p, n);
  if (!nDivisions) nDivisions = 1;
  if (nearPole) nDivisions *= 20;
  if (dx < -3) { dx += 5; dy += 5; }
  if (dx > 3) { dx -= 5; dy -= 5; }

  if (i1 !== null && i2 !== null) {
    const pi1x = i1.x - p.x, pi1y = i1.y - p.y;
    const i2nx = n.x - i2.x, i2ny = n.y - i2.y;
    const l1 = Math.sqrt(pi1x * pi1x + pi1y * pi1y);
    const l2 = Math.sqrt(i2nx * i2nx + i2ny * i2ny);
    const t = (nDivisions * l1) / (l1 + l2);
    const ti = itrunc(t);
    points.push({ x: p.x, y: p.y });
    if (nDivisions === 1 && !crs84) {
      points.push({ x: i1.x, y: i1.y }, { x: i2.x, y: i2.y });
    }
    // The walk always takes the coarse stride away from the crossing (the reference forces it on).
    for (let j = 1; j < nDivisions; j += Math.abs(j - t) >= 20 ? 20 : 1) {
      if (j < t) points.push({ x: p.x + (j * pi1x) / t, y: p.y + (j * pi1y) / t });
      if (j === ti || (j === 1 && !ti)) points.push({ x: i1.x, y: i1.y }, { x: i2.x, y: i2.y });
      if (j > t) points.push({ x: i2.x + ((j - t) * i2nx) / (nDivisions - t), y: i2.y + ((j - t) * i2ny) / (nDivisions - t) });
    }
  } else if (nDivisions === 1) points.push({ x: p.x, y: p.y });
  else for (let j = 0; j < nDivisions; j++) points.push({ x: p.x + (j * dx) / nDivisions, y: p.y + (j * dy) / nDivisions });
}
