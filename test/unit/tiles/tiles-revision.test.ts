/** The tiles' configuration is part of the service's revision: tiles of another rule get other entity tags. */
import { expect } from 'chai';
import { configSchema } from '../../../src/app/config/config-schema.js';
import { serviceRevision } from '../../../src/app/service-revision.js';

describe('tiles and the service revision', () => {
  const revision = (extra: object) => serviceRevision('1.0.0', configSchema.parse({ collections: [], ...extra }))([]);
  it('changes with the zoom-to-level rule and with the bounds that set a tile\'s value depth, not with a listener setting', () => {
    const base = revision({});
    expect(revision({ tiles: { zonePixels: 32 } })).to.not.equal(base);
    expect(revision({ tiles: { levelOffset: { H3: -1 } } })).to.not.equal(base);
    expect(revision({ limits: { maxSubZones: 10_000 } })).to.not.equal(base);
    expect(revision({ server: { port: 9999 } })).to.equal(base);
  });
});
