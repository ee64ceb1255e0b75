/**
 * The zone pyramid store on a ClickHouse cluster (18.16 and later), over HTTP. Tables and
 * statements: ./statements.ts; values: ./sql-literal.ts; faults: ./faults.ts.
 *
 * Cells are inserted through the generation's Distributed table with `insert_distributed_sync=1`:
 * the server routes each row to its shard by the table's own sharding key and answers only once
 * every shard has its rows, so the adapter never copies ClickHouse's hash, and a failed insert is
 * an error here rather than a file queued on some server. A retried part first drops its partition
 * on every shard, so it leaves no duplicate. Reads go to the shards in turn, each coordinating one
 * Distributed query; the generation metadata is on every shard and read from the first that answers.
 */
import { UnavailableError, ValidationError } from '../../ports/errors.js';
import type { PyramidCell, PyramidLayout, PyramidReadRequest, PyramidRef, ZonePyramidStore } from '../../ports/zone-pyramid-store.js';
import { parseCellLine, encodeCells, parseInteger } from './cell-rows.js';
import { ShardClient, ShardStatementError } from './shard-client.js';
import { sqlIdentifier } from './sql-literal.js';
import * as sql from './statements.js';

/** The `clickhouse` config section. */
export interface ClickHouseOptions {
  /** HTTP URL of one server per shard, in the cluster's order. */
  shards: string[];
  cluster: string;
  database: string;
  username: string;
  password: string;
  timeoutMs: number;
  maxConnections: number;
  retryAfterSeconds: number;
}

/** How long a process trusts the published generation it last read before asking again. */
const PUBLISHED_TTL_MS = 5000;
/** Bytes of RowBinary one INSERT carries at most. */
const INSERT_BYTES = 8 * 1024 * 1024;
const MAX_PART_CHARS = 256;

interface Published {
  generation: string;
  layout: PyramidLayout;
  readAt: number;
}

type PrepareLayout = Pick<PyramidLayout, 'dggrsId' | 'levels' | 'coarseLevel' | 'fields' | 'period'>;

export function createClickHouseZonePyramidStore(options: ClickHouseOptions): ClickHouseZonePyramidStore {
  return new ClickHouseZonePyramidStore(options);
}

export class ClickHouseZonePyramidStore implements ZonePyramidStore {
  private readonly shards: ShardClient[];
  private readonly published = new Map<string, Published>();
  private nextCoordinator = 0;
  private lastAt = 0;

  constructor(
    private readonly options: ClickHouseOptions,
    /** Bytes of RowBinary per INSERT (tests make it small to write a part in many inserts). */
    private readonly insertBytes = INSERT_BYTES,
  ) {
    // Identifiers from the config are checked once here, before any statement is built from them.
    sqlIdentifier(options.database);
    sqlIdentifier(options.cluster);
    this.shards = options.shards.map((url) => new ShardClient({ url, ...options }));
  }

  async layout(ref: PyramidRef, signal?: AbortSignal): Promise<PyramidLayout | undefined> {
    return (await this.fetchPublished(ref, signal))?.layout;
  }

  async read(ref: PyramidRef, request: PyramidReadRequest): Promise<PyramidCell[]> {
    this.requireShards();
    if (request.keys.length === 0) return [];
    let published = await this.currentPublished(ref, request.signal);
    for (let attempt = 0; ; attempt++) {
      if (!published) return [];
      const fieldIndexes = request.fields.map((f) => {
        const i = published!.layout.fields.indexOf(f);
        if (i < 0) throw new ValidationError('Unknown pyramid field', `The pyramid "${ref.table}" holds the fields ${published!.layout.fields.join(', ')}; "${f}" is not one of them.`);
        return i;
      });
      const statement = sql.selectCells(this.tables(ref, published.generation), { level: request.level, keys: request.keys, coarse: request.coarse, fieldIndexes, periods: request.periods });
      const n = request.fields.length;
      try {
        return await this.coordinator().rows(statement, (line) => parseCellLine(line, n), { signal: request.signal });
      } catch (err) {
        // A newer generation was published elsewhere and this one dropped: read the new one, once.
        if (attempt === 0 && err instanceof ShardStatementError && err.unknownTable) {
          published = await this.fetchPublished(ref, request.signal);
          continue;
        }
        throw mapped(err);
      }
    }
  }

  async prepare(ref: PyramidRef, layout: PrepareLayout): Promise<string> {
    this.requireShards();
    if (layout.fields.length === 0) throw new ValidationError('A pyramid needs fields', 'Give the ingest at least one numeric field.');
    const generation = `g${Date.now().toString(36).padStart(9, '0')}${Math.floor(Math.random() * 36 ** 6).toString(36).padStart(6, '0')}`;
    const t = this.tables(ref, generation);
    const db = this.options.database;
    const at = this.nextAt();
    const json = JSON.stringify({ dggrsId: layout.dggrsId, levels: layout.levels, coarseLevel: layout.coarseLevel, fields: layout.fields, ...(layout.period ? { period: layout.period } : {}) });
    await this.onEveryShard(async (shard) => {
      await shard.command(sql.createDatabase(db));
      await shard.command(sql.createGenerationsTable(db));
      await shard.command(sql.createLocalCells(t, layout.fields.length));
      await shard.command(sql.createDistributedCells(t, this.options.cluster));
      await shard.command(sql.recordGeneration(db, ref.table, generation, 'prepared', at, json));
    });
    return generation;
  }

  async writePart(ref: PyramidRef, generation: string, part: string, cells: AsyncIterable<PyramidCell[]>, signal?: AbortSignal): Promise<void> {
    this.requireShards();
    if (part.length === 0 || part.length > MAX_PART_CHARS) throw new ValidationError('Bad pyramid part name', `A part name has 1 to ${MAX_PART_CHARS} characters.`);
    const t = this.tables(ref, generation);
    const prepared = await this.generationRecord(ref, generation, signal);
    const fieldCount = prepared.layout.fields.length;
    // Whatever an earlier attempt of this part left, on any shard, goes first.
    await this.onEveryShard((shard) => shard.command(sql.dropPart(t, part), signal));
    // Cells are sent in inserts of a few megabytes, each a whole request bounded by timeoutMs, so a
    // part computed slowly never leaves a request idle; the partition drop above makes the part's
    // inserts together replace any earlier attempt.
    const insert = sql.insertCells(t, fieldCount);
    let chunks: Buffer[] = [];
    let bytes = 0;
    const flush = async () => {
      if (bytes === 0) return;
      const body = Buffer.concat(chunks, bytes);
      chunks = [];
      bytes = 0;
      await this.coordinator().insert(insert, body, { insert_distributed_sync: 1 }, signal);
    };
    try {
      for await (const batch of cells) {
        if (batch.length === 0) continue;
        const encoded = encodeCells(part, batch, fieldCount);
        chunks.push(encoded);
        bytes += encoded.length;
        if (bytes >= this.insertBytes) await flush();
      }
      await flush();
    } catch (err) {
      throw mapped(err);
    }
  }

  async publish(ref: PyramidRef, generation: string, layout: PyramidLayout): Promise<void> {
    this.requireShards();
    const prepared = await this.generationRecord(ref, generation);
    if (prepared.layout.fields.join('\u0000') !== layout.fields.join('\u0000')) {
      throw new ValidationError('Pyramid layout mismatch', `Generation ${generation} was prepared with the fields ${prepared.layout.fields.join(', ')}; the published layout names ${layout.fields.join(', ')}.`);
    }
    const db = this.options.database;
    await this.onEveryShard((shard) => shard.command(sql.recordGeneration(db, ref.table, generation, 'published', this.nextAt(prepared.at), JSON.stringify(layout))));
    this.published.set(ref.table, { generation, layout, readAt: Date.now() });
    // The generation published before, and any abandoned one prepared earlier, go now.
    const rows = await this.firstAnswering((shard) => shard.rows(sql.selectGenerations(db, ref.table), parseGenerationRow));
    const stale = rows.filter((g) => g.generation !== generation && g.state !== 'dropped' && (g.state === 'published' || g.preparedAt < prepared.at));
    for (const g of stale) {
      const old = this.tables(ref, g.generation);
      await this.onEveryShard(async (shard) => {
        await shard.command(sql.dropTable(db, old.distributed));
        await shard.command(sql.dropTable(db, old.local));
        await shard.command(sql.recordGeneration(db, ref.table, g.generation, 'dropped', this.nextAt(), ''));
      });
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.shards.map((s) => s.close()));
  }

  private requireShards(): void {
    if (this.shards.length === 0) {
      throw new UnavailableError('Zone pyramid store not configured', 'The `clickhouse` section names no shards: set clickhouse.shards to the HTTP URL of one server per shard of the cluster holding the pyramids.');
    }
  }

  private tables(ref: PyramidRef, generation: string): sql.GenerationTables {
    sqlIdentifier(ref.table);
    return sql.generationTables(this.options.database, ref.table, generation);
  }

  /** The shard coordinating the next distributed statement: each in turn, to spread the work. */
  private coordinator(): ShardClient {
    const shard = this.shards[this.nextCoordinator % this.shards.length]!;
    this.nextCoordinator = (this.nextCoordinator + 1) % this.shards.length;
    return shard;
  }

  /** A strictly increasing instant (µs) for the generation rows this process writes. */
  private nextAt(after = 0): number {
    this.lastAt = Math.max(Date.now() * 1000, this.lastAt + 1, after + 1);
    return this.lastAt;
  }

  private async onEveryShard(work: (shard: ShardClient) => Promise<void>): Promise<void> {
    const results = await Promise.allSettled(this.shards.map(work));
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw mapped(failed.reason);
  }

  /** The answer of the first shard that answers (metadata is the same on each); a shard down is skipped. */
  private async firstAnswering<T>(work: (shard: ShardClient) => Promise<T>): Promise<T> {
    let last: unknown;
    for (const shard of this.shards) {
      try {
        return await work(shard);
      } catch (err) {
        if (!(err instanceof ShardStatementError) || err.mapped.name !== 'UnavailableError') throw err;
        last = err;
      }
    }
    throw mapped(last);
  }

  private async currentPublished(ref: PyramidRef, signal?: AbortSignal): Promise<Published | undefined> {
    const cached = this.published.get(ref.table);
    if (cached && Date.now() - cached.readAt < PUBLISHED_TTL_MS) return cached;
    return this.fetchPublished(ref, signal);
  }

  private async fetchPublished(ref: PyramidRef, signal?: AbortSignal): Promise<Published | undefined> {
    this.requireShards();
    sqlIdentifier(ref.table);
    try {
      const rows = await this.firstAnswering((shard) => shard.rows(sql.selectPublished(this.options.database, ref.table), parsePublishedRow, { signal }));
      const row = rows[0];
      if (!row) {
        this.published.delete(ref.table);
        return undefined;
      }
      const published = { generation: row.generation, layout: JSON.parse(row.layout) as PyramidLayout, readAt: Date.now() };
      this.published.set(ref.table, published);
      return published;
    } catch (err) {
      // No pyramid was ever prepared in this database.
      if (err instanceof ShardStatementError && err.unknownTable) return undefined;
      throw mapped(err);
    }
  }

  private async generationRecord(ref: PyramidRef, generation: string, signal?: AbortSignal): Promise<{ layout: PrepareLayout; at: number }> {
    this.tables(ref, generation);
    let rows: { state: string; layout: string; at: number }[];
    try {
      rows = await this.firstAnswering((shard) => shard.rows(sql.selectGeneration(this.options.database, ref.table, generation), parseGenerationRecord, { signal }));
    } catch (err) {
      if (!(err instanceof ShardStatementError && err.unknownTable)) throw mapped(err);
      rows = [];
    }
    const row = rows[0];
    if (!row || row.state === 'dropped') throw new ValidationError('Unknown pyramid generation', `Generation ${generation} of pyramid "${ref.table}" was not prepared here or was dropped; prepare a new one.`);
    return { layout: JSON.parse(row.layout) as PrepareLayout, at: row.at };
  }
}

function mapped(err: unknown): unknown {
  return err instanceof ShardStatementError ? err.mapped : err;
}

const NAME = /^[0-9a-z_]+$/;
const HEX = /^(?:[0-9A-F]{2})*$/;

function fromHex(hex: string): string {
  return Buffer.from(hex, 'hex').toString('utf8');
}

function parsePublishedRow(line: string): { generation: string; layout: string } | undefined {
  const [generation, hex, ...rest] = line.split('\t');
  if (rest.length > 0 || !generation || !NAME.test(generation) || hex === undefined || !HEX.test(hex)) return undefined;
  return { generation, layout: fromHex(hex) };
}

function parseGenerationRecord(line: string): { state: string; layout: string; at: number } | undefined {
  const [state, hex, at, ...rest] = line.split('\t');
  const atValue = at === undefined ? undefined : parseInteger(at);
  if (rest.length > 0 || !state || !NAME.test(state) || hex === undefined || !HEX.test(hex) || atValue === undefined) return undefined;
  return { state, layout: fromHex(hex), at: atValue };
}

function parseGenerationRow(line: string): { generation: string; state: string; preparedAt: number } | undefined {
  const [generation, state, at, ...rest] = line.split('\t');
  const preparedAt = at === undefined ? undefined : parseInteger(at);
  if (rest.length > 0 || !generation || !NAME.test(generation) || !state || !NAME.test(state) || preparedAt === undefined) return undefined;
  return { generation, state, preparedAt };
}
