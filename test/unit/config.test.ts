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
