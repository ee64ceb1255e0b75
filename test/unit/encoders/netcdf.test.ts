/**
 * The netCDF encoder on names that meet its own: a field named `zone` (whose variable would be the
 * coordinate variable `zone_d<d>`) is written under another name, read back with netcdfjs.
 */
import { expect } from 'chai';
import { NetCDFReader } from 'netcdfjs';
import { GRID_FACTORIES } from '../../../src/adapters/grids/catalog.js';
import type { ZoneData } from '../../../src/domain/zone-data.js';
import { netcdf } from '../../../src/formats/zone-data/netcdf.js';
import { bytesOf } from '../../../src/formats/paced-pieces.js';

describe('netCDF zone-data encoder', () => {
  it('writes a field named `zone` beside the coordinate variable, not over it', async () => {
    const grid = GRID_FACTORIES.IVEA7H!();
    const zoneId = grid.zoneFromPoint(10, 46, 2);
    const zones = grid.subZones(zoneId, 1);
    const values = zones.map((_, i) => i * 1.5);
    const data: ZoneData = {
      dggrsId: 'IVEA7H',
      zoneId,
      fields: { zone: { title: 'zone', type: 'number' } },
      depths: [{ depth: 1, zones, values: { zone: values } }],
      sources: [],
    };
    for (const profile of ['netcdf3-dggs', 'netcdf3-dggs-zoneids']) {
      const nc = new NetCDFReader(await bytesOf(netcdf.encode(data, { grid, links: [], refined: false, profile })));
      // netcdfjs types a variable's attributes as an empty tuple; they are name/value pairs.
      const field = nc.variables.find((v) => (v.attributes as Array<{ name: string; value: unknown }>).some((a) => a.name === 'field' && a.value === 'zone'));
      expect(field?.name, profile).to.equal('zone_2_d1');
      expect(Array.from(nc.getDataVariable('zone_2_d1') as number[])).to.deep.equal(values);
      expect(nc.variables.filter((v) => v.name === 'zone_d1')).to.have.length(1);
    }
  });
});
