import { expect } from 'chai';
import { spawn, spawnSync } from 'node:child_process';
import { REPO_ROOT } from '../support/test-server.js';

/**
 * scripts/check-dockerfile.sh: with a working container engine the image must build and become
 * healthy (exit 0); without one the stages are replayed on this machine, which must succeed, and
 * the script exits 77, never 0, since the image itself was not checked.
 */

/** A container engine that answers, found the way the script finds it. */
function workingEngine(): string | undefined {
  const works = (cmd: string, args: string[]) => spawnSync(cmd, args, { stdio: 'ignore', timeout: 20_000 }).status === 0;
  if (works('docker', ['info'])) return 'docker';
  if (works('podman', ['info'])) return 'podman';
  if (works('buildah', ['version'])) return 'buildah';
  return undefined;
}

function run(): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn('sh', ['scripts/check-dockerfile.sh'], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('close', (code) => resolve({ code, out }));
  });
}

describe('Dockerfile: scripts/check-dockerfile.sh', function () {
  const engine = workingEngine();
  // An image build downloads base images and every dependency; the replay is under two minutes.
  this.timeout(engine ? 900_000 : 240_000);

  it(engine ? `builds the image with ${engine} and it becomes healthy (exit 0)` : 'without a container engine: the replay of the stages passes, and the script exits 77 (not checked), not 0', async () => {
    const { code, out } = await run();
    if (engine) {
      expect(code, out.slice(-4000)).to.equal(0);
      expect(out).to.match(/^check-dockerfile: PASS: image built with \w+, (container healthy|\/health\/live answered) in \d+ s$/m);
    } else {
      expect(code, out.slice(-4000)).to.equal(77);
      expect(out).to.match(/^replay OK: the runtime stage \(node:24-[a-z]+-slim, npm ci --omit=dev: \d+ packages\) runs the service and the worker from dist\//m);
      expect(out).to.include('THE IMAGE WAS NOT BUILT AND NOT RUN');
    }
  });
});
