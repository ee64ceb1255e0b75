/**
 * DGGAL's Z7 indexing of the aperture-7 hexagonal zones (RI7H_Z7): the same zones as IVEA7H/ISEA7H,
 * named by a base cell 00..11 and one digit 0..6 per level (0 = centroid child), in the form that
 * DGGRID and IGEO7 use. The 64-bit form packs the base cell in bits 60..63 and each level's digit in
 * three bits from bit 57 down, unused levels filled with 7.
 *
 * A digit is the position of a zone among its primary parent's primary children, turned by a rotation
 * that accumulates down the primary-parent chain (the 7H lattice alternates orientation between even
 * and odd levels, and rhombus edges and pentagons turn it further). The rules below restate DGGAL's
 * Z7Zone (from7H, to7H, getLevelRotationOffset) one for one: the ids are only useful if they agree.
 */
import {
  centroidChild, POW7, primaryChildren, primaryParent, zoneAt, zoneEdgeCount, type I7HZone,
} from '../7h/i7h-zone.js';
import { hexZoneLevel, sameHexZone } from '../hex-zone.js';

export const Z7_MAX_LEVEL = 19;

/** Position digit (0 centroid, then the six directions) to Z7 digit, and back. */
const DIGIT_OF_POSITION = [0, 3, 1, 5, 4, 6, 2];
const POSITION_OF_DIGIT = [0, 2, 6, 1, 4, 3, 5];
/** 7H root (rhombi 0..9, north polar 10, south polar 11) to Z7 base cell, and back. */
const BASE_OF_ROOT = [1, 6, 2, 7, 3, 8, 4, 9, 5, 10, 0, 11];
const ROOT_OF_BASE = [10, 0, 2, 4, 6, 8, 1, 3, 5, 7, 9, 11];

/** An even-level hexagon along the rhombus edge where the neighbouring rhombus is turned by 60 degrees. */
function isEdgeHexagon(z: I7HZone): boolean {
  if (zoneEdgeCount(z) !== 6) return false;
  const p = POW7[z.k]!;
  return z.root & 1 ? z.ix % p === 0 : z.ix < p;
}

/** Position of `child` among the primary children of its primary parent (0 = centroid child). */
function childPosition(parent: I7HZone, child: I7HZone): number {
  if (child.sh) return child.sh - 1;
  const cs = primaryChildren(parent);
  let i = 0;
  while (i < cs.length && !sameHexZone(cs[i]!, child)) i++;
  return i;
}

/**
 * Away from rhombus edges, the centroid children of the odd zones are the even cells with
 * row = 3 col (mod 7), and every even cell is one of them or next to exactly one: (row - 3 col) mod 7
 * names the step back to that centre, the centre's column mod 7 names the odd zone's letter. This
 * gives the primary parent without DGGAL's search among candidates (its answer there, checked in the
 * tests); within MARGIN cells of an edge the search is used.
 */
const MARGIN = 5;
/** By (row - 3 col) mod 7: the step [row, col] from the centre to the cell, and the cell's position. */
const STEP_OF_RESIDUE: readonly (readonly [number, number, number])[] = [
  [0, 0, 0], [1, 0, 4], [-1, -1, 2], [0, -1, 3], [0, 1, 6], [1, 1, 5], [-1, 0, 1],
];
/** By centre column mod 7: the odd zone's letter (1 = B .. 7 = H) and the centre's offset [row, col]. */
const LETTER_OF_COLUMN: readonly (readonly [number, number, number])[] = [
  [1, 0, 0], [5, 3, 1], [7, -1, 2], [6, 2, 3], [3, -2, -3], [4, 1, -2], [2, -3, -1],
];
const mod7 = (n: number): number => ((n % 7) + 7) % 7;

/** Primary parent of a zone and the zone's position among its primary children. */
export function parentAndPosition(z: I7HZone): { parent: I7HZone | null; position: number } {
  if (!z.sh && z.root < 10 && z.k >= 2) {
    const cp = POW7[z.k]!;
    const row = Math.floor(z.ix / cp), col = z.ix - row * cp;
    if (row >= MARGIN && col >= MARGIN && row <= cp - MARGIN && col <= cp - MARGIN) {
      const [dr, dc, position] = STEP_OF_RESIDUE[mod7(row - 3 * col)]!;
      const cRow = row - dr, cCol = col - dc;
      const [sh, or, oc] = LETTER_OF_COLUMN[mod7(cCol)]!;
      const p = cp / 7;
      return { parent: { k: z.k - 1, root: z.root, ix: ((cRow - or) / 7) * p + (cCol - oc) / 7, sh }, position };
    }
  }
  const parent = primaryParent(z);
  if (!parent) {
    if (z.k || z.sh) return containingParent(z);
    return { parent: null, position: 0 };
  }
  const position = childPosition(parent, z);
  return position < primaryChildren(parent).length || z.sh ? { parent, position } : containingParent(z);
}

/**
 * DGGAL snaps centroids within 1e-6 of the net's edges y = 0 and x = 5 onto them, so from level 16 on
 * its search finds no primary parent for the even zones along those edges (it has no Z7 id for them).
 * Such a zone's centre lies inside its primary parent, so take the odd zone at the unsnapped centre.
 */
function containingParent(z: I7HZone): { parent: I7HZone; position: number } {
  const p = POW7[z.k]!;
  const row = Math.floor(z.ix / p), col = z.ix - row * p;
  const x = (z.root >> 1) + col / p, y = (z.root >> 1) + (z.root & 1) + row / p;
  const parent = z.sh || z.root >= 10 ? null : zoneAt(hexZoneLevel(z) - 1, x, y);
  const position = parent ? primaryChildren(parent).findIndex((c) => sameHexZone(c, z)) : -1;
  if (!parent || position < 0) throw new RangeError(`No primary parent for 7H zone ${z.k},${z.root},${z.ix},${z.sh}`);
  return { parent, position };
}

/** Pentagons have five non-centroid children: their positions skip one direction, per pentagon kind. */
function pentagonPosition(i: number, level: number, parentRoot: number): number {
  if (!i) return i;
  const south = (parentRoot & 1) === 1, odd = (level & 1) === 1;
  if (parentRoot === 10) i = ((i + 1) % 5) + 1;
  else if (parentRoot === 11) i = ((i + (odd ? 3 : 4)) % 5) + 1;
  else if (!odd && !south) i = ((i + 5) % 5) + 1;
  if (south && i >= 3) i++;
  return i;
}

function pentagonPositionInverse(i: number, level: number, parentRoot: number): number {
  if (!i) return i;
  const south = (parentRoot & 1) === 1, odd = (level & 1) === 1;
  if (south && i >= 4) i--;
  if (parentRoot === 10) i = ((i + 2) % 5) + 1;
  else if (parentRoot === 11) i = ((i + (odd ? 0 : 4)) % 5) + 1;
  else if (!odd && !south) i = ((i + 3) % 5) + 1;
  return i;
}

/**
 * The turn (in sixths) that `zone` (at `level`, position `i` among `parent`'s primary children) adds
 * for its own children's digits; `grandParent` matters for even-level zones under an edge hexagon.
 */
function levelRotation(level: number, i: number, zone: I7HZone, parent: I7HZone | null, grandParent: I7HZone | null): number {
  if (!i || !parent) return 0;
  let offset = 0;
  const pRoot = parent.root;
  const pentagonParent = zoneEdgeCount(parent) === 5;
  const odd = (level & 1) === 1;
  const south = (pRoot & 1) === 1;
  const edgeHex = !odd && isEdgeHexagon(zone);
  const pEdgeHex = odd && isEdgeHexagon(parent);
  const gpEdgeHex = !odd && grandParent !== null && isEdgeHexagon(grandParent);
  if (pentagonParent) i = pentagonPosition(i, level, pRoot);
  if (pRoot >= 10) {
    if (pentagonParent) offset += i + (odd ? (south ? 0 : 3) : (south ? 5 : 2));
    else if (edgeHex && (!south || !sameHexZone(zone, centroidChild(parent)))) offset += 5;
  }
  if (south && edgeHex) offset++;
  if (pEdgeHex) {
    if (!south && i >= 4) offset++;
    else if (south && (i === 0 || (i >= 3 && i <= 5))) offset += 5;
  } else if (gpEdgeHex) {
    const pc = primaryChildren(grandParent!);
    const c = primaryChildren(parent);
    const turned = south
      ? sameHexZone(pc[1]!, parent) && c[2]!.root !== c[5]!.root && (i === 4 || i === 5)
      : sameHexZone(pc[4]!, parent) && (i === 1 || i === 2);
    if (turned) offset += 5;
    if (sameHexZone(parent, centroidChild(grandParent!))) {
      if (south) { if (i > 2) offset += 5; }
      else if (i === 5 || i === 6) offset++;
    }
    if (south && edgeHex && (i === 4 || i === 5)) offset += 5;
  }
  return offset;
}

/**
 * What a zone's children need to name themselves: its Z7 id and the rotation accumulated down to it
 * (`turn`), plus its position among its parent's children (`position`), used by the next level's rule.
 */
export interface Z7Step {
  zone: I7HZone;
  id: string;
  /** Rotation applied to this zone's own digit. */
  turn: number;
  position: number;
  parent: Z7Step | null;
}

/** Step for a level-0 zone. */
function rootStep(z: I7HZone): Z7Step {
  return { zone: z, id: String(BASE_OF_ROOT[z.root]).padStart(2, '0'), turn: 0, position: 0, parent: null };
}

/** Step for `child`, at `position` among the primary children of the zone of step `ps`. */
function childStep(ps: Z7Step, child: I7HZone, position: number): Z7Step {
  const parent = ps.zone;
  const level = hexZoneLevel(child);
  const gp = ps.parent;
  const turn = (ps.turn + levelRotation(level - 1, ps.position, parent, gp?.zone ?? null, gp?.parent?.zone ?? null)) % 6;
  let i = position;
  if (i) {
    if (zoneEdgeCount(parent) === 5) i = pentagonPosition(i, level, parent.root);
    i = ((i - 1 + turn) % 6) + 1;
  }
  return { zone: child, id: ps.id + DIGIT_OF_POSITION[i]!, turn, position, parent: ps };
}

/** Slots per level of the namer's cache (a power of two). */
const SLOTS = 4096;

/**
 * Converts 7H zones to Z7 steps, remembering recent ones in a direct-mapped cache per level: zones
 * near each other share most of their primary-parent chain, which is the costly part to walk.
 */
export class Z7Namer {
  private readonly slots: (Z7Step | undefined)[][] = Array.from({ length: Z7_MAX_LEVEL + 1 }, () => new Array(SLOTS));

  step(z: I7HZone): Z7Step {
    const level = hexZoneLevel(z);
    const slot = ((z.ix % 1000003) * 97 + z.root * 8 + z.sh) & (SLOTS - 1);
    const hit = this.slots[level]![slot];
    if (hit && hit.zone.ix === z.ix && hit.zone.root === z.root && hit.zone.sh === z.sh) return hit;
    const { parent, position } = parentAndPosition(z);
    const s = parent ? childStep(this.step(parent), z, position) : rootStep(z);
    this.slots[level]![slot] = s;
    return s;
  }

  id(z: I7HZone): string {
    return this.step(z).id;
  }
}

const Z7_PATTERN = /^(0[0-9]|1[01])([0-6]{0,19})$/;

/**
 * The 7H zone a Z7 id names, or null. Only canonical ids of existing zones are accepted: a pentagon's
 * missing direction (digit 2 in the north, 5 in the south) and levels beyond 19 are refused.
 */
export function z7ToZone(id: string): I7HZone | null {
  if (typeof id !== 'string') return null;
  const m = Z7_PATTERN.exec(id);
  if (!m) return null;
  const base = Number(m[1]);
  const digits = m[2]!;
  // Below a base cell, the zones named by 0s only are pentagons, which lack one direction.
  const missing = base >= 6 ? '5' : '2';
  const firstTurn = digits.search(/[1-6]/);
  if (firstTurn >= 0 && digits[firstTurn] === missing) return null;
  let zone: I7HZone = { k: 0, root: ROOT_OF_BASE[base]!, ix: 0, sh: 0 };
  let parent: I7HZone | null = null, grandParent: I7HZone | null = null;
  let turn = 0, prevPosition = 0;
  for (let level = 0; level < digits.length; level++) {
    let position = POSITION_OF_DIGIT[digits.charCodeAt(level) - 48]!;
    turn = (turn + levelRotation(level, prevPosition, zone, parent, grandParent)) % 6;
    if (position) {
      position -= 1 + turn;
      if (position < 0) position += 6;
      position++;
      if (zoneEdgeCount(zone) === 5) position = pentagonPositionInverse(position, level + 1, zone.root);
    }
    prevPosition = position;
    let next: I7HZone | undefined;
    if (!(level & 1)) {
      // Pentagons have only five vertex children (letters C..G).
      if (zoneEdgeCount(zone) === 5 && position > 5) return null;
      next = { k: zone.k, root: zone.root, ix: zone.ix, sh: 1 + position };
    } else {
      next = primaryChildren(zone)[position];
      if (!next) return null;
    }
    grandParent = parent;
    parent = zone;
    zone = next;
  }
  return zone;
}

/** Level of a syntactically valid Z7 id. */
export const z7Level = (id: string): number => id.length - 2;

/** DGGAL's (and DGGRID's) 64-bit Z7 form of a text id. */
export function z7ToInt64(id: string): bigint {
  let v = BigInt(Number(id.slice(0, 2))) << 60n;
  let shift = 57n;
  for (let l = 2; l < 22; l++, shift -= 3n) v |= BigInt(l < id.length ? id.charCodeAt(l) - 48 : 7) << shift;
  return v;
}

/** Text id of a 64-bit Z7 id (not checked for existence). */
export function z7FromInt64(v: bigint): string {
  let id = String(Number(v >> 60n)).padStart(2, '0');
  for (let shift = 57n; shift >= 0n; shift -= 3n) {
    const d = Number((v >> shift) & 7n);
    if (d === 7) break;
    id += String(d);
  }
  return id;
}
