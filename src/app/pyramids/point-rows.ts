/**
 * A lake's rows as plain columns (points, numbers, instants) for the pyramid ingest, whatever the
 * reader offers: its `scanPoints` when it has one (DuckDB on local files), else its `scan` read
 * row by row (the object-store reader), each row's point taken from its WKB exactly as the lake's
 * on-the-fly zone data takes it.
 */
import { pointOfWkb } from '../../domain/aggregation/wkb-point.js';
import type { Collection } from '../../domain/collection.js';
import type { LakePointScanRequest, LakeReader, PointBatch } from '../../ports/lake-reader.js';

const BATCH_ROWS = 16_384;

export async function scanPointRows(lake: LakeReader, collection: Collection, request: LakePointScanRequest, onBatch: (batch: PointBatch) => Promise<void>): Promise<void> {
  if (lake.scanPoints) return lake.scanPoints(collection, request, onBatch);
  const dataset = await lake.describe(collection);
  const geometry = dataset.geometryColumn;
  if (!geometry) throw new Error(`collection "${collection.id}" has no geometry column to place its rows`);
  const dt = request.time ? dataset.datetimeColumn : undefined;
  const columns = [...new Set([geometry, ...request.fields, ...(dt ? [dt] : [])])];
  const fresh = (): PointBatch => ({
    size: 0,
    x: new Float64Array(BATCH_ROWS),
    y: new Float64Array(BATCH_ROWS),
    values: request.fields.map(() => new Float64Array(BATCH_ROWS)),
    ...(request.time ? { time: new Float64Array(BATCH_ROWS).fill(NaN) } : {}),
  });
  let batch = fresh();
  const { fields: _fields, time: _time, ...rows } = request;
  await lake.scan(collection, { ...rows, columns }, async (chunk) => {
    const geoms = chunk.columns[geometry]!;
    const values = request.fields.map((f) => chunk.columns[f]!);
    const times = dt ? chunk.columns[dt]! : undefined;
    for (let r = 0; r < chunk.size; r++) {
      const g = geoms[r];
      const p = g instanceof Uint8Array ? pointOfWkb(g) : undefined;
      const i = batch.size++;
      batch.x[i] = p ? p[0] : NaN;
      batch.y[i] = p ? p[1] : NaN;
      values.forEach((column, f) => {
        const v = column[r];
        batch.values[f]![i] = typeof v === 'number' && Number.isFinite(v) ? v : NaN;
      });
      if (times) {
        const t = times[r];
        batch.time![i] = typeof t === 'string' ? Date.parse(t) : NaN;
      }
      if (batch.size === BATCH_ROWS) {
        await onBatch(batch);
        batch = fresh();
      }
    }
  });
  if (batch.size > 0) await onBatch(batch);
}
