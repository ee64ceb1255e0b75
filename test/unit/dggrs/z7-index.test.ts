/**
 * The Z7 namer's shortcut for primary parents (lattice residues away from rhombus edges) against the 7H
 * grid's own primary parent (DGGAL's search among candidate parents), and 64-bit ids.
 */
import { expect } from 'chai';
import { POW7, primaryChildren, primaryParent, zoneId, type I7HZone } from '../../../src/domain/dggrs/lattices/7h/i7h-zone.js';
import { sameHexZone } from '../../../src/domain/dggrs/lattices/hex-zone.js';
import { parentAndPosition, Z7Namer, z7FromInt64, z7ToInt64, z7ToZone } from '../../../src/domain/dggrs/lattices/z7/z7-index.js';

/** Compares with the search where it finds the parent; false where it does not (DGGAL's edge snap). */
function expectSameAsSearch(z: I7HZone): boolean {
  const got = parentAndPosition(z);
  const parent = primaryParent(z);
  const position = parent ? primaryChildren(parent).findIndex((c) => sameHexZone(c, z)) : -1;
  if (position < 0 && (z.k || z.sh)) return false;
  expect(got.parent && zoneId(got.parent), zoneId(z)).to.equal(parent && zoneId(parent));
  expect(got.position, zoneId(z)).to.equal(Math.max(position, 0));
  return true;
}

describe('Z7 primary parents and positions', function () {
  this.timeout(120_000);

  it('equal the 7H search for every zone of level 4 (interior and edges, every root)', () => {
    const cp = POW7[2]!;
    for (let root = 0; root < 12; root++) {
      for (let ix = 0; ix < (root < 10 ? cp * cp : 1); ix++) expect(expectSameAsSearch({ k: 2, root, ix, sh: 0 })).to.equal(true);
      for (let sh = 1; sh <= 7; sh++) if (root < 10 || sh < 7) expect(expectSameAsSearch({ k: 2, root, ix: root < 10 ? 1 : 0, sh })).to.equal(true);
    }
  });

  it('equal the 7H search for random even zones of levels 6 to 18 wherever the search finds one', () => {
    let seed = 11;
    const rnd = (): number => (seed = (seed * 16807) % 2147483647) / 2147483647;
    let unfound = 0;
    for (let k = 3; k <= 9; k++) {
      const cp = POW7[k]!;
      for (let i = 0; i < 1500; i++) {
        // Half of them near an edge of the rhombus, where the search is still used.
        const near = i % 2 === 0;
        const row = near ? Math.floor(rnd() * 12) : Math.floor(rnd() * cp);
        const col = Math.floor(rnd() * cp);
        if (!expectSameAsSearch({ k, root: Math.floor(rnd() * 10), ix: row * cp + col, sh: 0 })) {
          // Only where DGGAL snaps centroids onto y = 0 (rhombus 0, level 16 and up).
          expect(k).to.be.at.least(8);
          unfound++;
        }
      }
    }
    expect(unfound).to.be.below(50);
  });

  it('name the zones along the snapped edges (levels 14-19) with ids that name them back', () => {
    const namer = new Z7Namer();
    let seed = 5;
    const rnd = (): number => (seed = (seed * 16807) % 2147483647) / 2147483647;
    for (let k = 7; k <= 9; k++) {
      const cp = POW7[k]!;
      for (let i = 0; i < 300; i++) {
        const cells = [[0, Math.floor(rnd() * 50), Math.floor(rnd() * cp)], [8, Math.floor(rnd() * cp), cp - 1 - Math.floor(rnd() * 50)], [9, Math.floor(rnd() * cp), cp - 1 - Math.floor(rnd() * 50)]] as const;
        for (const [root, row, col] of cells) {
          for (let sh = 0; sh <= 7; sh++) {
            const z: I7HZone = { k, root, ix: row * cp + col, sh };
            const back = z7ToZone(namer.id(z));
            expect(back && zoneId(back), zoneId(z)).to.equal(zoneId(z));
          }
        }
      }
    }
  });
});

describe('Z7 64-bit ids', () => {
  it('pack the base cell in 4 bits and each digit in 3, unused levels as 7', () => {
    expect(z7ToInt64('01')).to.equal(0x1fffffffffffffffn);
    expect(z7ToInt64('013')).to.equal(0x17ffffffffffffffn);
    expect(z7ToInt64('11' + '0'.repeat(19))).to.equal((11n << 60n) | 7n);
    for (const id of ['00', '0132', '023463434', '11' + '6'.repeat(19)]) expect(z7FromInt64(z7ToInt64(id))).to.equal(id);
  });
});
