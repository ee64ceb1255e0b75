import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { RequestLogLine, RequestObserver } from './request-log.js';
import type { ConnectionStats } from './connection-guard.js';
import type { AdmissionStats, CacheStats, ReportedCache } from '../ports/metrics.js';
import { TimeBoxedCheck } from '../app/time-boxed-check.js';

/** What the metrics read at each scrape, beside the requests they observe. */
export interface MetricsSources {
  /** Include the Node.js process series (CPU, memory, event-loop lag, GC). */
  processMetrics: boolean;
  caches(): ReportedCache[];
  /** The zone-data admission control. */
  admission?(): AdmissionStats;
  /** Jobs accepted and running, read from the datastore (bounded by `jobsTimeoutMs`). */
  openJobs?(): Promise<Record<'accepted' | 'running', number>>;
  jobsTimeoutMs: number;
  /**
   * In a group of processes (`server.processes`): the exposition summed over all of them, which
   * the supervisor gathers (each process's `localSeries()`); absent in a lone process.
   */
  groupSum?(): Promise<string>;
}

/** The questions of a group's metrics: the sum (to the supervisor), and one process's own series (to each process). */
export const METRICS_TOPICS = { sum: 'metrics.sum', local: 'metrics.local' } as const;

/** Methods a label may name; any other (Node parses some 30) counts as `other`. */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH']);
/** From a kept answer (a few ms) to the longest work a request may do (limits.lakeQuerySeconds, 30 s). */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/**
 * The process series belong to the process, not to one app: they are collected once into a
 * registry of their own (prom-client's global registry is never used), so several apps in one
 * process (the tests) each report them without registering them twice or adding a GC observer
 * and an event-loop monitor per app.
 */
let processRegistry: Registry | undefined;
function processSeries(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

/**
 * The service's metrics in the Prometheus text format: one registry per app. Requests are counted
 * from the request log's observations (one observer of requests, not two), labelled by the route
 * template that took them (`unmatched` when none did), never by the raw URL, so the series stay
 * few whatever clients ask. Caches, admission control, connections and jobs are read from their
 * own counts when scraped.
 */
export class ServiceMetrics implements RequestObserver {
  private readonly registry = new Registry();
  private readonly requests: Counter<'method' | 'route' | 'status'>;
  private readonly durations: Histogram<'method' | 'route' | 'status_class'>;
  private readonly bytes: Counter<'method' | 'route' | 'status'>;
  private readonly inFlight: Gauge;
  private connections?: () => ConnectionStats;

  constructor(private readonly sources: MetricsSources) {
    const registers = [this.registry];
    this.requests = new Counter({ name: 'http_requests_total', help: 'Requests answered, by method, route template and status.', labelNames: ['method', 'route', 'status'], registers });
    this.durations = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'Time from a request\'s arrival to the end of its response, by method, route template and status class.',
      labelNames: ['method', 'route', 'status_class'],
      buckets: DURATION_BUCKETS,
      registers,
    });
    this.bytes = new Counter({ name: 'http_response_bytes_total', help: 'Response body bytes sent (before any transfer coding), by method, route template and status.', labelNames: ['method', 'route', 'status'], registers });
    this.inFlight = new Gauge({ name: 'http_requests_in_flight', help: 'Requests whose response has not ended (the scrape reading this is one).', registers });
    new Gauge({ name: 'dggs_processes', help: 'HTTP processes whose series this scrape sums (server.processes; fewer while one restarts).', registers }).set(1);
    // Started now, so the event-loop delay and GC series cover the time before the first scrape.
    if (sources.processMetrics) processSeries();
    this.connectionSeries();
    this.cacheSeries();
    this.admissionSeries();
    this.jobSeries();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  started(): void {
    this.inFlight.inc();
  }

  ended(): void {
    this.inFlight.dec();
  }

  answered(line: RequestLogLine): void {
    const method = line.method === null ? 'none' : METHODS.has(line.method) ? line.method : 'other';
    const route = line.route ?? 'unmatched';
    const status = line.status === null ? 'none' : String(line.status);
    this.requests.inc({ method, route, status });
    this.bytes.inc({ method, route, status }, line.bytes);
    this.durations.observe({ method, route, status_class: line.status === null ? 'none' : `${Math.floor(line.status / 100)}xx` }, line.totalMs / 1000);
  }

  /** The connection guard's counts, read at each scrape. */
  watchConnections(stats: () => ConnectionStats): void {
    this.connections = stats;
  }

  /** The exposition, in the Prometheus text format (`contentType`): of every process of the group. */
  async exposition(): Promise<string> {
    if (this.sources.groupSum) return this.sources.groupSum();
    return this.ownRegistry().metrics();
  }

  /** This process's series, as prom-client's AggregatorRegistry sums them in the supervisor. */
  async localSeries(): Promise<unknown[]> {
    return this.ownRegistry().getMetricsAsJSON();
  }

  private ownRegistry(): Registry {
    return this.sources.processMetrics ? Registry.merge([this.registry, processSeries()]) : this.registry;
  }

  private connectionSeries(): void {
    const registers = [this.registry];
    const read = () => this.connections?.();
    new Gauge({
      name: 'dggs_connections_open',
      help: 'Client connections open now (server.maxConnections bounds them).',
      registers,
      collect() {
        const s = read();
        if (s) this.set(s.open);
      },
    });
    new Counter({
      name: 'dggs_connection_refusals_total',
      help: 'New connections refused: scope "peer" (429, server.maxConnectionsPerPeer) or "server" (503, every slot of server.maxConnections serving a request).',
      labelNames: ['scope'],
      registers,
      collect() {
        const s = read();
        if (!s) return;
        this.reset();
        this.inc({ scope: 'peer' }, s.refusedPeer);
        this.inc({ scope: 'server' }, s.refusedServer);
      },
    });
    new Counter({
      name: 'dggs_connection_evictions_total',
      help: 'Connections serving no request that gave their slot up to a newcomer at server.maxConnections.',
      registers,
      collect() {
        const s = read();
        if (!s) return;
        this.reset();
        this.inc(s.evicted);
      },
    });
  }

  private cacheSeries(): void {
    const caches = () => this.sources.caches();
    const registers = [this.registry];
    const counter = (name: string, help: string, pick: (s: CacheStats) => number) =>
      new Counter({
        name,
        help,
        labelNames: ['cache'],
        registers,
        collect() {
          this.reset();
          for (const c of caches()) this.inc({ cache: c.name }, pick(c.stats()));
        },
      });
    const gauge = (name: string, help: string, pick: (s: CacheStats) => number) =>
      new Gauge({
        name,
        help,
        labelNames: ['cache'],
        registers,
        collect() {
          this.reset();
          for (const c of caches()) this.set({ cache: c.name }, pick(c.stats()));
        },
      });
    counter('dggs_cache_hits_total', 'Lookups answered from a cache, by cache.', (s) => s.hits);
    counter('dggs_cache_misses_total', 'Lookups a cache could not answer (the entry was computed or fetched), by cache.', (s) => s.misses);
    gauge('dggs_cache_bytes', 'Bytes a cache holds now, as counted against its bound, by cache.', (s) => s.bytes);
    gauge('dggs_cache_entries', 'Entries a cache holds now, by cache.', (s) => s.entries);
  }

  private admissionSeries(): void {
    const read = this.sources.admission?.bind(this.sources);
    if (!read) return;
    const registers = [this.registry];
    const gauge = (name: string, help: string, pick: (s: AdmissionStats) => number) =>
      new Gauge({
        name,
        help,
        registers,
        collect() {
          this.set(pick(read()));
        },
      });
    const counter = (name: string, help: string, pick: (s: AdmissionStats) => number) =>
      new Counter({
        name,
        help,
        registers,
        collect() {
          this.reset();
          this.inc(pick(read()));
        },
      });
    gauge('dggs_zone_data_admission_capacity', 'Sub-zones all zone-data computations in progress may hold together (limits.maxSubZonesInFlight).', (s) => s.capacity);
    gauge('dggs_zone_data_admission_in_use', 'Sub-zones the zone-data computations in progress hold now.', (s) => s.used);
    gauge('dggs_zone_data_admission_queued', 'Zone-data computations waiting for room now.', (s) => s.queued);
    counter('dggs_zone_data_admissions_total', 'Zone-data computations admitted, at once or after waiting.', (s) => s.admitted);
    counter('dggs_zone_data_admission_waits_total', 'Zone-data computations that had to wait for room (admitted, refused or abandoned after).', (s) => s.waited);
    counter('dggs_zone_data_admission_wait_seconds_total', 'Seconds zone-data computations spent waiting for room, in all.', (s) => s.waitSeconds);
    new Counter({
      name: 'dggs_zone_data_admission_refusals_total',
      help: 'Zone-data computations refused with 503: reason "queue_full" (at once) or "timeout" (after limits.zoneDataQueueSeconds).',
      labelNames: ['reason'],
      registers,
      collect() {
        const s = read();
        this.reset();
        this.inc({ reason: 'queue_full' }, s.refusedQueueFull);
        this.inc({ reason: 'timeout' }, s.refusedTimeout);
      },
    });
  }

  private jobSeries(): void {
    const openJobs = this.sources.openJobs?.bind(this.sources);
    if (!openJobs) return;
    const registers = [this.registry];
    // One read at a time, each scrape waiting for it at most the bound: a slow datastore costs a
    // scrape its job series, never the scrape.
    const read = new TimeBoxedCheck(openJobs, this.sources.jobsTimeoutMs);
    const failures = new Counter({ name: 'dggs_jobs_read_failures_total', help: 'Scrapes whose read of the job counts failed or passed server.metrics.datastoreTimeoutMs (they leave dggs_jobs out).', registers });
    new Gauge({
      name: 'dggs_jobs',
      help: 'Jobs accepted (waiting to run) and running now, over all orders and processes, read from the datastore.',
      labelNames: ['state'],
      registers,
      // Every process reads the same datastore: a group's sum would count each job once per process.
      aggregator: 'max',
      async collect() {
        const got = await read.ask();
        this.reset();
        if (!('value' in got)) {
          failures.inc();
          return;
        }
        for (const [state, n] of Object.entries(got.value)) this.set({ state }, n);
      },
    });
  }
}
