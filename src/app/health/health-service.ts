import { inject, injectable } from 'inversify';
import { TOKENS } from '../tokens.js';
import type { DatastoreAdmin, DatastoreStatus } from '../../ports/datastore.js';
import type { Logger } from '../../ports/logger.js';
import type { SourceProbe } from '../collections/collection-sources.js';
import { TimeBoxedCheck, type Boxed } from '../time-boxed-check.js';
import { worst, type HealthCheck, type HealthReport, type HealthStatus } from './health-report.js';

export interface HealthOptions {
  /** Longest each readiness check may take; one that does not answer in time fails. */
  checkTimeoutMs: number;
  /** A readiness answer is reused this long. */
  cacheMs: number;
}

/** One collection's source probe (see sourceProbes). */
export interface SourceProbeEntry {
  id: string;
  probe: () => Promise<SourceProbe>;
}

const DATASTORE = 'datastore:initialized';
const SOURCES = 'collections:source';

/**
 * Liveness and readiness. Live: the process answers. Ready: the datastore answers and is
 * initialised, and every collection's local source is in place. A missing source of a collection
 * marked `optional` degrades that collection (`warn`) without making the service unready: the
 * operator said the service runs without it, and taking every replica out of the load balancer
 * for it would take all the other collections down too.
 *
 * Each check is time-boxed and runs once at a time (a hung datastore neither hangs the probe nor
 * piles queries up), and an answer is reused for `cacheMs`, so probes arriving together or often
 * cost one round of checks. Each change of a check's status is logged once, with the detail the
 * public answer leaves out.
 */
@injectable()
export class HealthService {
  private readonly datastore: TimeBoxedCheck<DatastoreStatus>;
  private readonly sources: { id: string; check: TimeBoxedCheck<SourceProbe> }[];
  private last?: { at: number; report: HealthReport };
  private evaluating?: Promise<HealthReport>;
  /** The status last logged of each check instance. */
  private readonly logged = new Map<string, HealthStatus>();
  /** Set once the service starts stopping: no new traffic should come here. */
  private stoppingSince?: string;

  constructor(
    @inject(TOKENS.DatastoreAdmin) admin: Pick<DatastoreAdmin, 'status'>,
    @inject(TOKENS.CollectionSourceProbes) probes: SourceProbeEntry[],
    @inject(TOKENS.HealthOptions) private readonly opts: HealthOptions,
    @inject(TOKENS.Logger) private readonly log: Logger,
  ) {
    this.datastore = new TimeBoxedCheck(() => admin.status(), opts.checkTimeoutMs);
    this.sources = probes.map((p) => ({ id: p.id, check: new TimeBoxedCheck(p.probe, opts.checkTimeoutMs) }));
  }

  live(): HealthReport {
    return { status: 'pass' };
  }

  /**
   * The service is stopping: readiness fails from now on, so a load balancer sends new requests to
   * the other replicas while this one finishes the requests it holds.
   */
  stopping(): void {
    this.stoppingSince ??= new Date().toISOString();
  }

  ready(): Promise<HealthReport> {
    if (this.stoppingSince) {
      const check: HealthCheck = { componentType: 'system', status: 'fail', output: 'The service is stopping: it finishes the requests it holds and takes no new work.', time: this.stoppingSince };
      return Promise.resolve({ status: 'fail', checks: { 'service:stopping': [check] } });
    }
    if (this.last && performance.now() - this.last.at < this.opts.cacheMs) return Promise.resolve(this.last.report);
    this.evaluating ??= this.evaluate().finally(() => (this.evaluating = undefined));
    return this.evaluating;
  }

  private async evaluate(): Promise<HealthReport> {
    const [datastore, ...sources] = await Promise.all([this.datastore.ask(), ...this.sources.map((s) => s.check.ask())]);
    const time = new Date().toISOString();
    const checks: Record<string, HealthCheck[]> = { [DATASTORE]: [this.datastoreCheck(datastore!, time)] };
    if (this.sources.length > 0) checks[SOURCES] = sources.map((s, i) => this.sourceCheck(this.sources[i]!.id, s as Boxed<SourceProbe>, time));
    const report: HealthReport = { status: worst(Object.values(checks).flatMap((list) => list.map((c) => c.status))), checks };
    this.last = { at: performance.now(), report };
    return report;
  }

  private datastoreCheck(found: Boxed<DatastoreStatus>, time: string): HealthCheck {
    const check = (status: HealthStatus, output?: string, detail?: object): HealthCheck => {
      this.logChange(DATASTORE, status, output, detail);
      return { componentType: 'datastore', status, ...(output ? { output } : {}), time };
    };
    if ('timedOut' in found) return check('fail', `The datastore did not answer within ${this.opts.checkTimeoutMs} ms.`);
    if ('error' in found) return check('fail', 'The datastore did not answer (the service log says why).', { err: found.error });
    if (!found.value.initialized) return check('fail', 'The datastore is not initialised: an operator initialises it with POST /admin/initialize (or sets datastore.autoInitialize).', { pending: found.value.pending });
    return check('pass');
  }

  private sourceCheck(id: string, found: Boxed<SourceProbe>, time: string): HealthCheck {
    const check = (status: HealthStatus, output?: string, detail?: object): HealthCheck => {
      this.logChange(`${SOURCES} ${id}`, status, output, { collection: id, ...detail });
      return { componentId: id, componentType: 'collection', status, ...(output ? { output } : {}), time };
    };
    if ('timedOut' in found) return check('fail', `The check of the collection's source did not answer within ${this.opts.checkTimeoutMs} ms.`);
    if ('error' in found) return check('fail', 'The check of the collection\'s source failed (the service log says why).', { err: found.error });
    const probe = found.value;
    if (probe.missingAtStart) {
      return check('warn', 'The collection\'s source was missing when the service started; it is optional, so its data routes answer 503 until the source is in place and the service restarts.');
    }
    if (probe.problem) {
      const { key, what } = probe.problem;
      const output = `The collection's source (config key ${key}) is missing.`;
      return probe.optional ? check('warn', `${output} It is optional: the service serves the other collections.`, { what }) : check('fail', output, { what });
    }
    return check('pass');
  }

  private logChange(check: string, status: HealthStatus, output: string | undefined, detail: object = {}): void {
    const before = this.logged.get(check);
    if (before === status) return;
    this.logged.set(check, status);
    // A first pass is the normal state: only changes after start are news.
    if (before === undefined && status === 'pass') return;
    if (status === 'pass') this.log.info({ check, ...detail }, 'readiness check passes again');
    else this.log.warn({ check, status, output, ...detail }, 'readiness check does not pass');
  }
}
