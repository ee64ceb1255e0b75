import { expect } from 'chai';
import { GRID_FACTORIES } from '../../../src/adapters/grids/catalog.js';
import { ALL_TIME_PERIOD, PyramidCellAccumulator } from '../../../src/domain/aggregation/pyramid-cells.js';
import { ALL_TIME } from '../../../src/ports/zone-pyramid-store.js';

describe('pyramid cells: accumulation', () => {
  it('all-time cells carry the port\'s ALL_TIME', () => {
    expect(ALL_TIME_PERIOD).to.equal(ALL_TIME);
  });

  it('counts every placed row, a value only when a number, a period only when the row has a time; drops rows without a place', () => {
    const grid = GRID_FACTORIES.IVEA7H!();
    const acc = new PyramidCellAccumulator(grid, [3], 1, 'day');
    const x = Float64Array.of(10, 10, 10, NaN, 10, 10);
    const y = Float64Array.of(50, 50, 50, 50, 95, 50);
    const v = Float64Array.of(1, NaN, 4, 7, 7, 10);
    const day = Date.parse('2024-05-01T00:00:00Z');
    const t = Float64Array.of(day + 1000, day + 2000, NaN, day, day, day + 86_400_000);
    acc.add(x, y, [v], 6, t);
    expect(acc.rows).to.equal(4);
    const key = grid.zoneKeyFromPoint!(10, 50, 3);
    const cells = [...acc.results()].sort((a, b) => a.period - b.period);
    expect(cells.map((c) => [c.level, c.key, c.period, c.count])).to.deep.equal([
      [3, key, ALL_TIME, 4],
      [3, key, day, 2],
      [3, key, day + 86_400_000, 1],
    ]);
    const all = cells[0]!.fields[0]!;
    expect([all.valid, all.sum, all.min, all.max]).to.deep.equal([3, 15, 1, 10]);
    expect(all.m2).to.be.closeTo(((1 - 5) ** 2 + (4 - 5) ** 2 + (10 - 5) ** 2), 1e-12);
    const first = cells[1]!.fields[0]!;
    expect([first.valid, first.sum, first.m2, first.min, first.max]).to.deep.equal([1, 1, 0, 1, 1]);
    const none = new PyramidCellAccumulator(grid, [3], 1);
    none.add(Float64Array.of(10), Float64Array.of(50), [Float64Array.of(NaN)], 1);
    const [only] = [...none.results()];
    expect(only!.count).to.equal(1);
    expect(only!.fields[0]!.valid).to.equal(0);
    expect(only!.fields[0]!.min).to.be.NaN;
    expect(only!.fields[0]!.max).to.be.NaN;
  });
});
