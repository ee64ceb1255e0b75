import { expect } from 'chai';
import net from 'node:net';
import { probePostgres } from '../../support/postgres-probe.js';

/** A port nothing listens on: one the system just handed out and took back. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function failure(url: string, timeoutMs: number): Promise<{ lines: string[]; ms: number }> {
  const t0 = performance.now();
  try {
    await probePostgres(url, timeoutMs);
  } catch (err) {
    return { lines: (err as Error).message.split('\n'), ms: performance.now() - t0 };
  }
  throw new Error('the probe succeeded');
}

const FIRST_LINE = /^PostgreSQL unreachable for the tests at .*: set DGGS_TEST_POSTGRES_URL=postgres:\/\/user@host:port\/db\b/;

describe('test support: the PostgreSQL probe the suites run first', () => {
  it('says on its first line that PostgreSQL is unreachable and how to point the suite at one, when the port is closed', async () => {
    const port = await closedPort();
    const { lines, ms } = await failure(`postgres://nobody@127.0.0.1:${port}/none`, 1000);
    expect(lines[0]).to.match(FIRST_LINE);
    expect(lines[0]).to.contain(`postgres://nobody@127.0.0.1:${port}/none`);
    expect(lines[1]).to.contain('ECONNREFUSED');
    expect(ms).to.be.below(1000);
  });

  it('gives up after its timeout on a server that accepts and never answers, and never prints the password', async () => {
    const sockets: net.Socket[] = [];
    const silent = net.createServer((s) => sockets.push(s));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as net.AddressInfo;
    try {
      const { lines, ms } = await failure(`postgres://svc:s3cret@127.0.0.1:${port}/db`, 300);
      expect(lines[0]).to.match(FIRST_LINE);
      expect(lines.join('\n')).not.to.contain('s3cret');
      expect(lines[0]).to.contain(`postgres://svc:***@127.0.0.1:${port}/db`);
      expect(ms).to.be.within(250, 2000);
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});
