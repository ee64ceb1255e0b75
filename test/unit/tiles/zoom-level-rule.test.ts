/**
 * The zoom-to-level rule (docs/tiles.md): for every grid, the level a tile holds is the coarsest
 * whose regular zone is at most `zonePixels` wide at the equator, so zones come out between
 * zonePixels / sqrt(aperture) and zonePixels wide; it never gets coarser as the zoom grows, and
 * it stops at the grid's finest level, where the tileset's last zoom is.
 */
import { expect } from 'chai';
import { GRID_FACTORIES } from '../../../src/adapters/grids/catalog.js';
import { levelForZoom, maxZoomFor, zoneWidthPixels } from '../../../src/domain/tiles/zoom-level-rule.js';
import { WEB_MERCATOR_QUAD } from '../../../src/domain/tiles/web-mercator-quad.js';

const GRIDS = ['IVEA7H', 'ISEA3H', 'ISEA9R', 'ISEA4R', 'rHEALPix', 'HEALPix', 'H3', 'A5', 'GNOSISGlobalGrid'];

describe('zoom-to-level rule', () => {
  for (const id of GRIDS) {
    const grid = GRID_FACTORIES[id]!();
    for (const zonePixels of [8, 16, 32]) {
      const rule = { zonePixels, levelOffset: 0 };
      it(`${id}, ${zonePixels} px: monotone in zoom, zones within [zonePixels / step, zonePixels] px at the equator, capped at the finest level`, () => {
        const maxZoom = maxZoomFor(grid, rule);
        let previous = -1;
        for (let z = 0; z <= WEB_MERCATOR_QUAD.maxZoom; z++) {
          const level = levelForZoom(grid, z, rule);
          expect(level, `zoom ${z}`).to.be.at.least(previous);
          previous = level;
          expect(level).to.be.within(0, grid.maxRefinementLevel);
          const width = zoneWidthPixels(grid, level, z);
          if (level === grid.maxRefinementLevel) {
            // The cap: from maxZoom on, every zoom holds the finest level.
            expect(z, `zoom ${z} at the cap`).to.be.at.least(maxZoom);
            continue;
          }
          expect(width, `zoom ${z}, level ${level}`).to.be.at.most(zonePixels);
          if (level > 0) {
            // The level above was too wide: the zones are at least zonePixels / (its width ratio).
            const coarser = zoneWidthPixels(grid, level - 1, z);
            expect(coarser, `zoom ${z}, level ${level - 1}`).to.be.above(zonePixels);
            expect(width).to.be.at.least(zonePixels / (coarser / width) - 1e-9);
            // The step of a regular grid is sqrt(aperture): at most 3 (aperture 9).
            expect(coarser / width).to.be.within(1.2, 3.2);
          }
        }
        if (maxZoom < WEB_MERCATOR_QUAD.maxZoom) {
          expect(levelForZoom(grid, maxZoom, rule)).to.equal(grid.maxRefinementLevel);
          if (maxZoom > 0) expect(levelForZoom(grid, maxZoom - 1, rule)).to.be.below(grid.maxRefinementLevel);
        }
      });
    }
  }

  it('levelOffset shifts the level and stays within the grid\'s levels', () => {
    const grid = GRID_FACTORIES.H3!();
    const base = { zonePixels: 16, levelOffset: 0 };
    const z = 6;
    const l = levelForZoom(grid, z, base);
    expect(levelForZoom(grid, z, { ...base, levelOffset: -1 })).to.equal(l - 1);
    expect(levelForZoom(grid, z, { ...base, levelOffset: 2 })).to.equal(l + 2);
    expect(levelForZoom(grid, 0, { ...base, levelOffset: -5 })).to.equal(0);
    expect(levelForZoom(grid, 24, { ...base, levelOffset: 5 })).to.equal(grid.maxRefinementLevel);
    // A wider zonePixels gives coarser (or equal) levels.
    expect(levelForZoom(grid, z, { zonePixels: 64, levelOffset: 0 })).to.be.below(l);
  });
});
