import { expect } from 'chai';
import path from 'node:path';
import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { loadConfig, ConfigError } from '../../src/app/config/load-config.js';
import { REPO_ROOT } from '../support/test-server.js';

const DEFAULT = path.join(REPO_ROOT, 'config/default.json');

function fileWith(content: unknown): string {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'dggs-cfg-')), 'c.json');
  writeFileSync(file, JSON.stringify(content));
  return file;
}

describe('config', () => {
  it('loads the default file with its defaults filled in', () => {
    const c = loadConfig({ DGGS_CONFIG: DEFAULT });
    expect(c.server.port).to.equal(8080);
    expect(c.datastore.kind).to.equal('sqlite');
    expect(c.limits.itemsMaxLimit).to.equal(1000);
    expect(c.collections.length).to.be.greaterThan(0);
  });

  it('PORT and HOST set the listening address; DGGS__a__b overrides any key, case-insensitively', () => {
    const c = loadConfig({ DGGS_CONFIG: DEFAULT, PORT: '9123', HOST: '127.0.0.1', DGGS__SERVER__PUBLICBASEURL: 'https://dggs.example.org', DGGS__limits__maxZonesPerPage: '77', DGGS__DATASTORE: '{"kind":"postgres","url":"postgres://x@db/y"}' });
    expect(c.server.port).to.equal(9123);
    expect(c.server.host).to.equal('127.0.0.1');
    expect(c.server.publicBaseUrl).to.equal('https://dggs.example.org');
    expect(c.limits.maxZonesPerPage).to.equal(77);
    expect(c.datastore).to.deep.include({ kind: 'postgres', url: 'postgres://x@db/y' });
  });

  it('DGGS__a__b reaches keys inside the datastore union, arrays and records', () => {
    const file = fileWith({ datastore: { kind: 'sqlite', file: 'data/runtime/original.sqlite', autoInitialize: false }, collections: [{ id: 'a', title: 'A', backing: { kind: 'raster-url', url: 'x.tif', fields: { band: { title: 'Band', type: 'number' } } } }] });
    const c = loadConfig({ DGGS_CONFIG: file, DGGS__datastore__file: '/tmp/other.sqlite', DGGS__DATASTORE__AUTOINITIALIZE: 'true', DGGS__collections__0__title: 'Renamed', DGGS__collections__0__backing__fields__band__svc_unit: 'm' });
    expect(c.datastore).to.deep.equal({ kind: 'sqlite', file: '/tmp/other.sqlite', autoInitialize: true });
    expect(c.collections[0]!.title).to.equal('Renamed');
    expect((c.collections[0]!.backing as { fields: Record<string, { svc_unit?: string }> }).fields.band!.svc_unit).to.equal('m');
    const pg = loadConfig({ DGGS_CONFIG: file, DGGS__datastore__kind: 'postgres', DGGS__datastore__url: 'postgres://u@h/db', DGGS__datastore__schema: 'svc' });
    expect(pg.datastore).to.deep.include({ kind: 'postgres', url: 'postgres://u@h/db', schema: 'svc' });
    expect(() => loadConfig({ DGGS_CONFIG: file, DGGS__datastore__nope: '1' })).to.throw(ConfigError, /no config key "nope"/);
    expect(() => loadConfig({ DGGS_CONFIG: file, DGGS__collections__first__title: 'x' })).to.throw(ConfigError, /no config key "first"/);
  });

  it('stops with a message naming the bad key', () => {
    const bad = (content: unknown, key: RegExp, env: Record<string, string> = {}) =>
      expect(() => loadConfig({ DGGS_CONFIG: fileWith(content), ...env })).to.throw(ConfigError, key);
    bad({ server: { port: 'eighty' } }, /key "server\.port"/);
    bad({ collections: [{ id: '../etc', title: 'x', backing: { kind: 'parquet-lake' } }] }, /key "collections\.0\.id"/);
    bad({ collections: [{ id: 'a', title: 'x', backing: { kind: 'ftp' } }] }, /key "collections\.0\.backing\.kind"/);
    bad({ datastore: { kind: 'postgres' } }, /key "datastore\.url"/);
    bad({ auth: { tokenSha256: ['plaintext-token'] } }, /key "auth\.tokenSha256\.0"/);
    bad({}, /no config key "NOPE"/, { DGGS__NOPE: '1' });
    expect(() => loadConfig({ DGGS_CONFIG: '/no/such/file.json' })).to.throw(ConfigError, /cannot read config file/);
  });
});
