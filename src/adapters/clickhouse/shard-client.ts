/**
 * One shard server over HTTP: a bounded connection pool, every statement bounded in time (the
 * client's socket timeout, the server's `max_execution_time` and a timer of our own over the
 * whole exchange), aborted with the caller's signal, and every failure turned into an error kind.
 */
import { Readable } from 'node:stream';
import { randomUUID } from 'node:crypto';
import { ClickHouseLogLevel, createClient, type ClickHouseClient, type ClickHouseSettings } from '@clickhouse/client';
import { UpstreamError, UpstreamTimeoutError } from '../../ports/errors.js';
import { clickHouseFault, isUnknownTable, type FaultOrigin } from './faults.js';
import { killQuery } from './statements.js';

export interface ShardConnection {
  url: string;
  cluster: string;
  username: string;
  password: string;
  timeoutMs: number;
  maxConnections: number;
  retryAfterSeconds: number;
}

/** A statement's error before mapping, kept so callers can tell a missing table from other faults. */
export class ShardStatementError extends Error {
  constructor(
    readonly original: unknown,
    readonly mapped: Error,
  ) {
    super(mapped.message);
  }
  get unknownTable(): boolean {
    return isUnknownTable(this.original);
  }
}

/** The longest error text kept from a stream that stopped being rows. */
const MAX_TRAILER_CHARS = 4096;

export class ShardClient {
  readonly origin: FaultOrigin;
  private readonly client: ClickHouseClient;

  constructor(private readonly conn: ShardConnection) {
    const url = new URL(conn.url);
    // The origin names the server in hints and logs; credentials never appear in it.
    this.origin = { cluster: conn.cluster, server: url.origin, retryAfterSeconds: conn.retryAfterSeconds };
    this.client = createClient({
      url: url.origin,
      username: conn.username,
      password: conn.password,
      request_timeout: conn.timeoutMs,
      max_open_connections: conn.maxConnections,
      application: 'dggs-api',
      // Failures reach the caller as error kinds, logged once by whoever answers the request.
      log: { level: ClickHouseLogLevel.OFF },
      // 18.16 closes idle keep-alive connections after 3 s; the pool drops them sooner, so a reused socket is never a closed one.
      keep_alive: { enabled: true, idle_socket_ttl: 2000 },
    });
  }

  private settings(extra: ClickHouseSettings = {}): ClickHouseSettings {
    return { max_execution_time: Math.max(1, Math.ceil(this.conn.timeoutMs / 1000)), ...extra };
  }

  /** Runs `work` under the caller's signal and our timer over the whole exchange; failures become error kinds. */
  private async bounded<T>(signal: AbortSignal | undefined, work: (signal: AbortSignal, queryId: string) => Promise<T>): Promise<T> {
    signal?.throwIfAborted();
    const queryId = randomUUID();
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new UpstreamTimeoutError('Zone pyramid store timed out', `ClickHouse cluster "${this.origin.cluster}" via ${this.origin.server} did not answer within clickhouse.timeoutMs (${this.conn.timeoutMs} ms).`)), this.conn.timeoutMs);
    const onAbort = () => controller.abort(signal!.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      return await work(controller.signal, queryId);
    } catch (err) {
      if (controller.signal.aborted) {
        // The server may still be working for the request that left: stop it (best effort, not awaited).
        this.client.command({ query: killQuery(queryId), clickhouse_settings: this.settings() }).catch(() => {});
        throw controller.signal.reason;
      }
      if (err instanceof ShardStatementError) throw err;
      throw new ShardStatementError(err, clickHouseFault(err, this.origin));
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
  }

  /** A statement without rows (DDL, INSERT ... SELECT, ALTER). */
  async command(sql: string, signal?: AbortSignal): Promise<void> {
    await this.bounded(signal, async (abort_signal, query_id) => {
      await this.client.command({ query: sql, abort_signal, query_id, clickhouse_settings: this.settings({ wait_end_of_query: 1 }) });
    });
  }

  /**
   * The rows of a TabSeparated SELECT, each line through `parse`; a line `parse` refuses ends the
   * read with an error carrying the rest of the stream (ClickHouse appends its error text to a
   * stream that fails after its first bytes were sent), so an error is never returned as a row.
   * `wait_end_of_query=1` makes the server hold the answer until the query ended, so failures
   * arrive as an HTTP error status instead; the check stays for anything else.
   */
  async rows<T>(sql: string, parse: (line: string) => T | undefined, options: { signal?: AbortSignal; settings?: ClickHouseSettings } = {}): Promise<T[]> {
    return this.bounded(options.signal, async (abort_signal, query_id) => {
      const settings = this.settings({ wait_end_of_query: 1, max_query_size: String(Math.max(262_144, Buffer.byteLength(sql) + 1024)), ...options.settings });
      const result = await this.client.exec({ query: sql, abort_signal, query_id, clickhouse_settings: settings });
      const out: T[] = [];
      const decoder = new TextDecoder('utf-8', { fatal: false });
      let pending = '';
      let bad: string | undefined;
      try {
        for await (const chunk of result.stream as AsyncIterable<Buffer>) {
          const text = pending + decoder.decode(chunk, { stream: true });
          if (bad !== undefined) {
            bad = (bad + text).slice(0, MAX_TRAILER_CHARS);
            pending = '';
            if (bad.length >= MAX_TRAILER_CHARS) break;
            continue;
          }
          const lines = text.split('\n');
          pending = lines.pop()!;
          for (let i = 0; i < lines.length; i++) {
            const row = parse(lines[i]!);
            if (row === undefined) {
              bad = lines.slice(i).join('\n').slice(0, MAX_TRAILER_CHARS);
              break;
            }
            out.push(row);
          }
          if (bad !== undefined) {
            bad = `${bad}\n${pending}`.slice(0, MAX_TRAILER_CHARS);
            pending = '';
          }
        }
      } finally {
        result.stream.destroy();
      }
      const tail = pending + decoder.decode();
      if (bad === undefined && tail !== '') bad = tail;
      if (bad !== undefined) {
        // The text in place of a row is the server's error (or an answer this reader does not understand).
        const fault = clickHouseFault(new Error(bad), this.origin);
        throw new ShardStatementError(new Error(bad), fault.kind === 'upstream-failed' ? new UpstreamError('Zone pyramid store failed', `ClickHouse cluster "${this.origin.cluster}" via ${this.origin.server} answered a line that is not a row: ${JSON.stringify(bad.slice(0, 240))}`) : fault);
      }
      return out;
    });
  }

  /** `INSERT ... FORMAT RowBinary` of `body`, one request bounded like any statement. */
  async insert(sql: string, body: Buffer, settings: ClickHouseSettings, signal?: AbortSignal): Promise<void> {
    await this.bounded(signal, async (abort_signal, query_id) => {
      const result = await this.client.exec({ query: sql, values: Readable.from([body]), abort_signal, query_id, clickhouse_settings: this.settings({ ...settings, wait_end_of_query: 1 }) });
      // The answer of an INSERT is empty; read it to its end so the connection returns to the pool.
      for await (const _ of result.stream as AsyncIterable<Buffer>);
    });
  }

  close(): Promise<void> {
    return this.client.close();
  }
}
