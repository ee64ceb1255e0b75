import { expect } from 'chai';
import { EventEmitter } from 'node:events';
import { PgWorkerLease, type LeaseConnection } from '../../src/adapters/datastore/worker-lease.js';

/** A connection whose advisory lock is granted or not, and that can be lost. */
class FakeConnection extends EventEmitter implements LeaseConnection {
  queries: unknown[][] = [];
  ended = false;
  constructor(private readonly granted: boolean) {
    super();
  }
  async query(_text: string, values: unknown[]) {
    this.queries.push(values);
    return { rows: [{ held: this.granted }] };
  }
}

describe('PgWorkerLease', () => {
  const setup = (grants: boolean[]) => {
    const opened: FakeConnection[] = [];
    const lease = new PgWorkerLease(
      async () => {
        const conn = new FakeConnection(grants[Math.min(opened.length, grants.length - 1)]!);
        opened.push(conn);
        return conn;
      },
      async (conn) => {
        (conn as FakeConnection).ended = true;
      },
      'svc',
    );
    return { lease, opened };
  };

  it('takes the lock of the schema and worker on a connection of its own, once', async () => {
    const { lease, opened } = setup([true]);
    expect(await lease.hold('host:1')).to.equal(true);
    expect(await lease.hold('host:1')).to.equal(true);
    expect(opened).to.have.length(1);
    expect(opened[0]!.queries).to.deep.equal([[0x64676773, 'svc/host:1']]);
    await lease.release();
    expect(opened[0]!.ended).to.equal(true);
  });

  it('takes the lease back on a new connection once its connection is lost', async () => {
    const { lease, opened } = setup([true]);
    await lease.hold('host:1');
    opened[0]!.emit('end');
    expect(await lease.hold('host:1')).to.equal(true);
    expect(opened).to.have.length(2);
    expect(opened[0]!.ended, 'the lost connection is let go').to.equal(true);
  });

  it('answers false, and keeps no connection, while another live process holds the name', async () => {
    const { lease, opened } = setup([false, true]);
    expect(await lease.hold('host:1')).to.equal(false);
    expect(opened[0]!.ended).to.equal(true);
    expect(await lease.hold('host:1')).to.equal(true, 'asked again at the next sweep');
  });
});
