import { expect } from 'chai';
import { DatastoreReadiness } from '../../src/app/datastore-readiness.js';
import { DatastoreNotInitializedError } from '../../src/ports/errors.js';
import type { DatastoreStatus } from '../../src/ports/datastore.js';

describe('DatastoreReadiness', () => {
  const admin = (answers: boolean[]) => {
    const asked = { n: 0 };
    const status = async (): Promise<DatastoreStatus> => {
      const initialized = answers[Math.min(asked.n++, answers.length - 1)]!;
      await new Promise((r) => setTimeout(r, 5));
      return { initialized, migrations: [], pending: [] };
    };
    return { asked, status };
  };

  it('refuses (503) while the datastore is not initialised, asking each time', async () => {
    const a = admin([false, false, true]);
    const ready = new DatastoreReadiness(a);
    for (let i = 0; i < 2; i++) {
      const err = await ready.check().catch((e: unknown) => e);
      expect(err).to.be.instanceOf(DatastoreNotInitializedError);
    }
    await ready.check();
    expect(a.asked.n).to.equal(3);
  });

  it('remembers yes: no question once the datastore answered initialised', async () => {
    const a = admin([true, false]);
    const ready = new DatastoreReadiness(a);
    for (let i = 0; i < 5; i++) await ready.check();
    expect(a.asked.n).to.equal(1);
  });

  it('asks one question at a time: checks arriving meanwhile share its answer', async () => {
    const a = admin([true]);
    const ready = new DatastoreReadiness(a);
    await Promise.all(Array.from({ length: 20 }, () => ready.check()));
    expect(a.asked.n).to.equal(1);
  });

  it('passes a failing question on, and asks again next time', async () => {
    let n = 0;
    const ready = new DatastoreReadiness({
      status: async () => {
        if (n++ === 0) throw new Error('unreachable');
        return { initialized: true, migrations: [], pending: [] };
      },
    });
    expect(await ready.check().catch((e: Error) => e.message)).to.equal('unreachable');
    await ready.check();
    expect(n).to.equal(2);
  });
});
