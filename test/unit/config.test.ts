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
    // Switching the variant by a variable leaves the file's keys of the other variant behind: not a mistake.
    const pg = loadConfig({ DGGS_CONFIG: file, DGGS__datastore__kind: 'postgres', DGGS__datastore__url: 'postgres://u@h/db', DGGS__datastore__schema: 'svc' });
    expect(pg.datastore).to.deep.include({ kind: 'postgres', url: 'postgres://u@h/db', schema: 'svc' });
    // In one source, a key of another variant is.
    expect(() => loadConfig({ DGGS_CONFIG: fileWith({ datastore: { kind: 'postgres', url: 'postgres://u@h/db', file: 'x' } }) })).to.throw(ConfigError, /unknown config key "datastore\.file" in config file/);
    expect(() => loadConfig({ DGGS_CONFIG: file, DGGS__datastore__nope: '1' })).to.throw(ConfigError, /no config key "nope"/);
    expect(() => loadConfig({ DGGS_CONFIG: file, DGGS__collections__first__title: 'x' })).to.throw(ConfigError, /no config key "first"/);
  });

  it('stops with a message naming the bad key', () => {
    const bad = (content: unknown, key: RegExp, env: Record<string, string> = {}) =>
      expect(() => loadConfig({ DGGS_CONFIG: fileWith(content), ...env })).to.throw(ConfigError, key);
    bad({ server: { port: 'eighty' } }, /key "server\.port"/);
    bad({ collections: [{ id: '../etc', title: 'x', backing: { kind: 'parquet-lake' } }] }, /key "collections\[0\]\.id"/);
    bad({ collections: [{ id: 'a', title: 'x', backing: { kind: 'ftp' } }] }, /key "collections\[0\]\.backing\.kind"/);
    bad({ datastore: { kind: 'postgres' } }, /key "datastore\.url"/);
    bad({ auth: { tokenSha256: ['plaintext-token'] } }, /key "auth\.tokenSha256\[0\]"/);
    bad({}, /no config key "NOPE"/, { DGGS__NOPE: '1' });
    expect(() => loadConfig({ DGGS_CONFIG: '/no/such/file.json' })).to.throw(ConfigError, /cannot read config file/);
  });

  describe('refuses mistakes, naming the key and where it came from', () => {
    const raster = (id: string, backing: Record<string, unknown> = {}) => ({ id, title: id, backing: { kind: 'raster-url', url: 'x.tif', ...backing } });
    const message = (env: Record<string, string>): string => {
      try {
        loadConfig(env);
      } catch (err) {
        expect(err).to.be.instanceOf(ConfigError);
        return (err as Error).message;
      }
      throw new Error('the config loaded');
    };

    it('an unknown key in the file: its path, the file, and the near key', () => {
      const file = fileWith({ collections: [raster('a'), raster('b'), raster('c', { noDta: -9999 })] });
      expect(message({ DGGS_CONFIG: file })).to.equal(`unknown config key "collections[2].backing.noDta" in config file ${file}; did you mean "noData"?`);
    });

    it('unknown keys anywhere, every one listed; no near key lists the known ones', () => {
      const file = fileWith({ sever: { port: 1 }, limits: { maxZonesPerPag: 3 }, datastore: { kind: 'sqlite', flie: 'x' }, zzz: 1 });
      const lines = message({ DGGS_CONFIG: file }).split('\n');
      expect(lines).to.have.length(4);
      expect(lines[0]).to.equal(`unknown config key "sever" in config file ${file}; did you mean "server"?`);
      expect(lines[1]).to.equal(`unknown config key "limits.maxZonesPerPag" in config file ${file}; did you mean "maxZonesPerPage"?`);
      expect(lines[2]).to.equal(`unknown config key "datastore.flie" in config file ${file}; did you mean "file"?`);
      expect(lines[3]).to.match(/^unknown config key "zzz" in config file .*; known keys here: server, datastore, lake, /);
    });

    it('records keep the operator\'s own names: field names and headers are not unknown keys', () => {
      const file = fileWith({ collections: [raster('a', { fields: { myBand: { title: 'B', type: 'number' } } })] });
      expect(loadConfig({ DGGS_CONFIG: file }).collections[0]!.backing).to.deep.include({ fields: { myBand: { title: 'B', type: 'number' } } });
      const bad = fileWith({ collections: [raster('a', { fields: { myBand: { title: 'B', type: 'number', unit: 'm' } } })] });
      expect(message({ DGGS_CONFIG: bad })).to.match(/^unknown config key "collections\[0\]\.backing\.fields\.myBand\.unit" in config file /);
    });

    it('an unknown key from a DGGS__ variable names the variable', () => {
      const file = fileWith({ collections: [raster('a')] });
      expect(message({ DGGS_CONFIG: file, DGGS__LAKE__ROT: 'x' })).to.equal('unknown config key "lake.ROT" in environment variable DGGS__LAKE__ROT: no config key "ROT" there; did you mean "root"?');
      // A JSON value brings its own keys: the variable is named, not the file.
      expect(message({ DGGS_CONFIG: file, DGGS__COLLECTIONS__0__BACKING: '{"kind":"raster-url","url":"y.tif","noDta":1}' })).to.equal(
        'unknown config key "collections[0].backing.noDta" in environment variable DGGS__COLLECTIONS__0__BACKING; did you mean "noData"?',
      );
    });

    it('a bad value from PORT, HOST or a DGGS__ variable names that variable, not the file', () => {
      expect(message({ DGGS_CONFIG: DEFAULT, PORT: 'eighty' })).to.match(/^invalid config in environment variable PORT \("eighty"\): key "server\.port": /);
      expect(message({ DGGS_CONFIG: DEFAULT, PORT: '70000' })).to.match(/^invalid config in environment variable PORT \("70000"\): key "server\.port": .*65535/);
      expect(message({ DGGS_CONFIG: DEFAULT, DGGS__limits__maxZonesPerPage: '-1' })).to.match(/^invalid config in environment variable DGGS__limits__maxZonesPerPage: key "limits\.maxZonesPerPage": /);
      expect(message({ DGGS_CONFIG: DEFAULT, DGGS__collections__1__backing__url: '' })).to.match(/^invalid config in environment variable DGGS__collections__1__backing__url: key "collections\[1\]\.backing\.url": /);
      // The same value in the file is blamed on the file.
      const file = fileWith({ server: { port: 70000 } });
      expect(message({ DGGS_CONFIG: file })).to.match(new RegExp(`^invalid config in config file ${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: key "server\\.port"`));
    });

    it('a repeated collection id', () => {
      const file = fileWith({ collections: [raster('a'), raster('b'), raster('a')] });
      expect(message({ DGGS_CONFIG: file })).to.equal(`invalid config in config file ${file}: key "collections[2].id": collection id "a" is already the id of collections[0]; ids must be unique`);
      expect(message({ DGGS_CONFIG: fileWith({ collections: [raster('a'), raster('b')] }), DGGS__collections__1__id: 'a' })).to.match(/^invalid config in environment variable DGGS__collections__1__id: key "collections\[1\]\.id": collection id "a"/);
    });

    it('the default config and the optional-source flag load', () => {
      const c = loadConfig({ DGGS_CONFIG: DEFAULT });
      expect(c.collections.map((col) => (col.backing as { optional?: boolean }).optional)).to.deep.equal([false, false, false, undefined]);
      const file = fileWith({ collections: [raster('a', { optional: true })] });
      expect(loadConfig({ DGGS_CONFIG: file }).collections[0]!.backing).to.deep.include({ optional: true });
    });
  });
});
