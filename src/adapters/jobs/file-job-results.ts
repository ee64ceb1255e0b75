import { mkdir, open, readdir, rename, rm, rmdir } from 'node:fs/promises';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import zlib from 'node:zlib';
import { asyncBufferFromFile, parquetReadObjects } from 'hyparquet';
import type { ZoneData, DepthValues } from '../../domain/zone-data.js';
import type { JobResults, ResultMeta, ZoneDataFileEncoder } from '../../ports/job-results.js';

/** A job's result file, or a temporary file of its write: the job id is group 1 or 2. */
const JOB_FILE = /^(?:part-(\d+)\.parquet|\.part-(\d+)\..*\.tmp)$/;

const isMissing = (err: unknown) => (err as NodeJS.ErrnoException)?.code === 'ENOENT';

/** The zone-data encoder writes ZSTD (DuckDB); hyparquet decodes it with Node's zlib (Node 22.15+). */
const compressors = {
  ZSTD: (input: Uint8Array) => {
    const zstd = (zlib as unknown as { zstdDecompressSync?: (b: Uint8Array) => Buffer }).zstdDecompressSync;
    if (!zstd) throw new Error('reading job results needs a Node.js with zlib zstd support (22.15 or later)');
    return new Uint8Array(zstd(input));
  },
};

/**
 * Job results as files under a root laid out like the lake: `<root>/<order>/data/part-<job>.parquet`.
 * A file is written to a hidden temporary name, flushed to disk, then renamed into place, so a
 * reader (or a process that restarts after a crash) sees a whole file or none; the lake skips
 * hidden files, so a leftover temporary file is never read as data.
 */
export class FileJobResults implements JobResults {
  private readonly root: string;

  constructor(
    root: string,
    private readonly encode: ZoneDataFileEncoder,
  ) {
    this.root = path.resolve(root);
  }

  collectionId(orderId: number): string {
    return String(orderId);
  }

  private dir(orderId: number): string {
    return path.join(this.root, this.collectionId(orderId), 'data');
  }

  private file(orderId: number, jobId: number): string {
    return path.join(this.dir(orderId), `part-${jobId}.parquet`);
  }

  async write(orderId: number, jobId: number, data: ZoneData): Promise<number> {
    const bytes = await this.encode(data);
    const dir = this.dir(orderId);
    await mkdir(dir, { recursive: true });
    await this.removeTemporaries(dir, jobId);
    const tmp = path.join(dir, `.part-${jobId}.${randomUUID()}.tmp`);
    const handle = await open(tmp, 'wx');
    try {
      await handle.writeFile(bytes);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(tmp, this.file(orderId, jobId));
    // The rename itself survives a power cut only once the directory is flushed too.
    const d = await open(dir, 'r').catch(() => undefined);
    if (d) await d.sync().catch(() => {}).finally(() => d.close());
    return bytes.byteLength;
  }

  async read(orderId: number, jobId: number, meta: ResultMeta): Promise<ZoneData | undefined> {
    let file;
    try {
      file = await asyncBufferFromFile(this.file(orderId, jobId));
    } catch (err) {
      if (isMissing(err)) return undefined;
      throw err;
    }
    const names = Object.keys(meta.fields);
    const rows = await parquetReadObjects({ file, compressors, columns: ['zone_id', 'depth', ...names] });
    const depths: DepthValues[] = [];
    for (const row of rows) {
      const depth = Number(row.depth);
      let d = depths[depths.length - 1];
      if (!d || d.depth !== depth) {
        d = { depth, zones: [], values: Object.fromEntries(names.map((n) => [n, []])) };
        depths.push(d);
      }
      d.zones.push(String(row.zone_id));
      for (const n of names) d.values[n]!.push(row[n] === null || row[n] === undefined ? null : Number(row[n]));
    }
    return { dggrsId: meta.dggrsId, zoneId: meta.zoneId, fields: meta.fields, depths, sources: meta.sources };
  }

  async remove(orderId: number, jobIds: number[]): Promise<void> {
    if (jobIds.length === 0) return;
    const dir = this.dir(orderId);
    const ids = new Set(jobIds);
    // With the results, any temporary file a write cut short left (a job writing now removes its
    // own file once it finds itself dismissed).
    const doomed = (await readdir(dir).catch(() => [] as string[])).filter((n) => {
      const m = JOB_FILE.exec(n);
      return m !== null && ids.has(Number(m[1] ?? m[2]));
    });
    for (let i = 0; i < doomed.length; i += 64) await Promise.all(doomed.slice(i, i + 64).map((n) => rm(path.join(dir, n), { force: true })));
    // Leave no empty directories behind; a directory still holding results stays.
    await rmdir(dir).catch(() => {});
    await rmdir(path.dirname(dir)).catch(() => {});
  }

  /** Temporary files of this job left by a process that stopped mid-write. */
  private async removeTemporaries(dir: string, jobId: number): Promise<void> {
    const prefix = `.part-${jobId}.`;
    const names = await readdir(dir).catch(() => [] as string[]);
    await Promise.all(names.filter((n) => n.startsWith(prefix) && n.endsWith('.tmp')).map((n) => rm(path.join(dir, n), { force: true })));
  }
}
