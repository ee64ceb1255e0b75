/**
 * RTEA3H, RTEA7H, RTEA7H_Z7, RTEA9R and RTEA4R against DGGAL: every record of test/fixtures/dggal/rtea*_{points,subzones,
 * geom,bbox_lists,levels}.jsonl, asked of DGGAL's dgg at the points and zones of the IVEA oracle files
 * (edge points at every level 0..12, a subset of the random points).
 */
import { i3hFromInt64, i3hId, POW3 } from '../../../src/domain/dggrs/lattices/3h/i3h-zone.js';
import { zoneFromInt64, zoneId } from '../../../src/domain/dggrs/lattices/7h/i7h-zone.js';
import { LATTICE_4R, LATTICE_9R, rhombicFromUint64, rhombicId, type RhombicLattice } from '../../../src/domain/dggrs/lattices/rhombic/rhombic-zone.js';
import { createRtea3h, createRtea4r, createRtea7h, createRtea7hZ7, createRtea9r } from '../../../src/domain/dggrs/grids/rtea-grids.js';
import { z7FromInt64 } from '../../../src/domain/dggrs/lattices/z7/z7-index.js';
import { describeDggalOracle, type Tie } from './dggal-oracle-suite.js';
import { fixturesDir } from './oracle-support.js';

/**
 * Oracle points exactly on a zone boundary, where DGGAL's answer comes from last-ulp rounding of its
 * fast-math build; the suite shows each is a tie (points 1e-8 degrees away reach both answers).
 */
const EVEN_LEVELS = [0, 2, 4, 6, 8, 10, 12];
const MIDPOINT_TIE: Tie = { lat: 0, lon: 11.2, levels: EVEN_LEVELS, reason: 'icosahedron edge midpoint, the RTEA radial corner: a zone corner at even levels' };
const TIES_7H: Tie[] = [
  MIDPOINT_TIE,
  { lat: 10, lon: 11.2, levels: [0, 4], reason: 'on the face centre to edge midpoint line (a Slice & Dice triangle side) along 11.2E' },
  { lat: 58.282525588539, lon: 11.2, levels: [6, 8], reason: 'on the seam meridian 11.2E through icosahedron vertex 0' },
  { lat: 0, lon: 90, levels: [0], reason: 'on the edge between level-0 pentagons A7 and A8' },
  { lat: 0, lon: -90, levels: [0], reason: 'on the edge between level-0 pentagons A2 and A3' },
];

const h7 = { relationsInOrder: false, zoneCount: (l: number) => 10 * 7 ** l + 2, pentagons: 2, dir: fixturesDir };

describeDggalOracle({
  ...h7,
  name: 'RTEA7H',
  stem: 'rtea7h',
  create: createRtea7h,
  idFromInt64: (v) => { const z = zoneFromInt64(v); return z && zoneId(z); },
  bboxInOrder: true,
  maxLevel: 19,
  ties: TIES_7H,
});

describeDggalOracle({
  ...h7,
  name: 'RTEA7H_Z7',
  stem: 'rtea7h_z7',
  create: createRtea7hZ7,
  idFromInt64: z7FromInt64,
  bboxInOrder: false,
  maxLevel: 19,
  ties: TIES_7H,
  sameZoneIn: { name: 'RTEA7H', create: createRtea7h },
});

describeDggalOracle({
  name: 'RTEA3H',
  stem: 'rtea3h',
  dir: fixturesDir,
  create: createRtea3h,
  idFromInt64: (v) => { const z = i3hFromInt64(v); return z && i3hId(z); },
  relationsInOrder: true,
  bboxInOrder: true,
  zoneCount: (l) => 10 * POW3[l]! + 2,
  pentagons: 2,
  maxLevel: 33,
  ties: [MIDPOINT_TIE, { lat: 10, lon: 11.2, levels: [0, 6, 12], reason: 'on the face centre to edge midpoint line along 11.2E' }],
  outlineDeviations: {
    zones: ['F4-F2-C'],
    tolerance: 2.5e-9,
    reason: 'outline points 2e-11 off the icosahedron edge near vertex 0 are nudged along the other 5x6 axis than DGGAL does',
  },
});

const rhombic = (lattice: RhombicLattice) => ({
  dir: fixturesDir,
  idFromInt64: (v: bigint) => rhombicId(lattice, rhombicFromUint64(v)),
  relationsInOrder: true,
  bboxInOrder: true,
  zoneCount: (l: number) => 10 * lattice.pow[l]! ** 2,
  pentagons: 0,
  ties: [],
});

// DGGAL's list of the box around vertex 0 (58.3,11.0,58.5,11.4; level 6 for 9R, 9 for 4R) did not answer within a
// minute for the RTEA rhombic grids, so their files hold the other five boxes.
describeDggalOracle({ ...rhombic(LATTICE_9R), name: 'RTEA9R', stem: 'rtea9r', create: createRtea9r, maxLevel: 16, bboxCount: 5 });
describeDggalOracle({ ...rhombic(LATTICE_4R), name: 'RTEA4R', stem: 'rtea4r', create: createRtea4r, maxLevel: 25, bboxCount: 5 });
