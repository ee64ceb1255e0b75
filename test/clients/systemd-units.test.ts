import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from '../support/test-server.js';

/**
 * deploy/systemd/*.service: systemd's own `systemd-analyze verify` accepts them without a warning
 * (an unknown key or a bad value is only a warning to systemd, which then runs the unit without
 * it: a hardening line misspelt is a hardening line lost), and they hold what the reference
 * deployment promises.
 */
const UNITS = ['dggs-api.service', 'dggs-api-worker.service'];
/** How long the service lets open requests finish after SIGTERM (the worker's job grace is the same). */
const STOP_GRACE_S = Number(/STOP_GRACE_MS = ([\d_]+)/.exec(readFileSync(path.join(REPO_ROOT, 'src/main.ts'), 'utf8'))![1]!.replaceAll('_', '')) / 1000;

/** `Key=value` lines of a unit, by key (repeated keys keep every value). */
function directives(text: string): Map<string, string[]> {
  const map = new Map<string, string[]>();
  for (const line of text.split('\n')) {
    const m = /^(\w+)=(.*)$/.exec(line.trim());
    if (m) map.set(m[1]!, [...(map.get(m[1]!) ?? []), m[2]!]);
  }
  return map;
}

describe('systemd units (deploy/systemd)', function () {
  this.timeout(60_000);
  let dir: string;
  before(() => {
    if (spawnSync('systemd-analyze', ['--version']).status !== 0) throw new Error('systemd-analyze is missing (apt-get install systemd)');
    dir = mkdtempSync(path.join(tmpdir(), 'dggs-units-'));
  });
  after(() => dir && rmSync(dir, { recursive: true, force: true }));

  for (const unit of UNITS) {
    it(`${unit}: systemd-analyze verify passes without a warning`, () => {
      let text = readFileSync(path.join(REPO_ROOT, 'deploy/systemd', unit), 'utf8');
      // verify checks that ExecStart's program exists; where Node lives elsewhere, the copy names it.
      if (!existsSync('/usr/bin/node')) text = text.replace('ExecStart=/usr/bin/node ', `ExecStart=${process.execPath} `);
      const file = path.join(dir, unit);
      writeFileSync(file, text);
      const r = spawnSync('systemd-analyze', ['verify', file], { encoding: 'utf8' });
      expect(r.status, r.stderr).to.equal(0);
      expect(r.stderr.trim(), 'warnings').to.equal('');
    });

    it(`${unit}: a dedicated user, production env, restart on failure, a stop timeout beyond the service's grace, hardening`, () => {
      const d = directives(readFileSync(path.join(REPO_ROOT, 'deploy/systemd', unit), 'utf8'));
      const one = (k: string) => d.get(k)?.at(-1);
      expect(one('User')).to.equal('dggs-api');
      expect(one('WorkingDirectory')).to.equal('/opt/dggs-api');
      expect(one('Environment')).to.match(/\bNODE_ENV=production\b/).and.match(/\bDGGS_CONFIG=\/etc\/dggs-api\/config\.json\b/);
      expect(one('ExecStart')).to.match(unit === 'dggs-api.service' ? / dist\/src\/main\.js$/ : / dist\/src\/worker\.js$/);
      expect(one('Restart')).to.equal('on-failure');
      expect(Number.parseInt(one('TimeoutStopSec') ?? '0', 10)).to.be.greaterThan(STOP_GRACE_S);
      for (const k of ['NoNewPrivileges', 'ProtectHome', 'PrivateTmp', 'PrivateDevices', 'RestrictSUIDSGID', 'LockPersonality']) expect(one(k), k).to.equal('yes');
      expect(one('ProtectSystem')).to.equal('strict');
      expect(one('ReadWritePaths')).to.equal('/var/lib/dggs-api');
      expect(one('StateDirectory')).to.equal('dggs-api');
      expect(one('CapabilityBoundingSet')).to.equal('');
    });
  }

  it('dggs-api@.service (dggs-api.service installed as a template) with the instance drop-in: dggs-api@8081 passes systemd-analyze verify without a warning', () => {
    const units = path.join(dir, 'instances');
    mkdirSync(path.join(units, 'dggs-api@.service.d'), { recursive: true });
    let text = readFileSync(path.join(REPO_ROOT, 'deploy/systemd/dggs-api.service'), 'utf8');
    if (!existsSync('/usr/bin/node')) text = text.replace('ExecStart=/usr/bin/node ', `ExecStart=${process.execPath} `);
    writeFileSync(path.join(units, 'dggs-api@.service'), text);
    const dropIn = readFileSync(path.join(REPO_ROOT, 'deploy/systemd/dggs-api@.service.d/instance.conf'), 'utf8');
    writeFileSync(path.join(units, 'dggs-api@.service.d/instance.conf'), dropIn);
    // The unit path: these files first, then systemd's own directories (the trailing colon).
    const r = spawnSync('systemd-analyze', ['verify', path.join(units, 'dggs-api@8081.service')], { encoding: 'utf8', env: { ...process.env, SYSTEMD_UNIT_PATH: `${units}:` } });
    expect(r.status, r.stderr).to.equal(0);
    expect(r.stderr.trim(), 'warnings').to.equal('');
    const d = directives(dropIn);
    expect(d.get('Environment')).to.deep.equal(['PORT=%i DGGS__server__admin__socket=/run/dggs-api-%i/admin.sock']);
    expect(d.get('RuntimeDirectory')).to.deep.equal(['', 'dggs-api-%i']);
  });
});
