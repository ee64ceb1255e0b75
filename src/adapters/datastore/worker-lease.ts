/** The part of a node-postgres client the lease uses. */
export interface LeaseConnection {
  query(text: string, values: unknown[]): Promise<{ rows: { held?: boolean }[] }>;
  on(event: 'error' | 'end', listener: () => void): unknown;
}

/** First key of every worker lease's advisory lock ("dggs" in ASCII); the second is a hash of the lease's name. */
const LEASE_SPACE = 0x64676773;

/** A worker's lease, named by the schema too: several services may share one database. */
function leaseName(schema: string | undefined, worker: string): string {
  return `${schema ?? 'public'}/${worker}`;
}

/**
 * SQL (and its bindings) that is true when no live process holds `worker`'s lease, run inside a
 * transaction: it takes the lease's lock for the transaction's length, so the worker cannot take
 * its lease back meanwhile.
 */
export function leaseFree(schema: string | undefined, worker: string): [string, unknown[]] {
  return ['SELECT pg_try_advisory_xact_lock(?, hashtext(?)) AS free', [LEASE_SPACE, leaseName(schema, worker)]];
}

/**
 * The lease by which a process running jobs on PostgreSQL shows it is alive: a session advisory
 * lock on a connection of its own. PostgreSQL drops the lock the moment that connection ends,
 * which a killed process's connection does at once (its socket closes with it), so any other
 * process can tell a dead worker's attempts from a live one's without waiting for a heartbeat.
 */
export class PgWorkerLease {
  private held?: { conn: LeaseConnection; worker: string; lost: boolean };

  constructor(
    private readonly connect: () => Promise<LeaseConnection>,
    private readonly disconnect: (conn: LeaseConnection) => Promise<void>,
    private readonly schema?: string,
  ) {}

  /** Takes (or takes again, after its connection was lost) `worker`'s lease; false while another live process holds it. */
  async hold(worker: string): Promise<boolean> {
    if (this.held && this.held.worker === worker && !this.held.lost) return true;
    await this.release();
    const conn = await this.connect();
    const lease = { conn, worker, lost: false };
    const lose = () => (lease.lost = true);
    conn.on('error', lose);
    conn.on('end', lose);
    try {
      const { rows } = await conn.query('SELECT pg_try_advisory_lock($1, hashtext($2)) AS held', [LEASE_SPACE, leaseName(this.schema, worker)]);
      if (!rows[0]?.held) throw new LeaseTaken();
    } catch (err) {
      await this.disconnect(conn).catch(() => {});
      if (err instanceof LeaseTaken) return false;
      throw err;
    }
    this.held = lease;
    return true;
  }

  /** Ends the lease (closing its connection releases the lock). */
  async release(): Promise<void> {
    const lease = this.held;
    this.held = undefined;
    if (!lease) return;
    const closed = this.disconnect(lease.conn).catch(() => {});
    // A connection already lost may never answer the goodbye: do not wait on it.
    if (!lease.lost) await closed;
  }
}

class LeaseTaken extends Error {}
