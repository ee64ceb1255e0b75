import type { FieldMeta } from '../domain/collection.js';
import type { SourceLink, ZoneData } from '../domain/zone-data.js';

/** Turns zone data into the bytes of a (Geo)Parquet file; the composition root hands in a zone-data encoding. */
export type ZoneDataFileEncoder = (data: ZoneData) => Promise<Uint8Array>;

/** What the file does not say itself: the request and the field metadata. */
export interface ResultMeta {
  dggrsId: string;
  zoneId: string;
  fields: Record<string, FieldMeta>;
  sources: SourceLink[];
}

/**
 * Where finished jobs leave their zone data: `<root>/<order id>/data/part-<job id>.parquet`,
 * the layout of a lake, so a finished order reads as the lake collection `<order id>`.
 */
export interface JobResults {
  /** Writes atomically (a reader sees the whole file or none); returns the byte size. */
  write(orderId: number, jobId: number, data: ZoneData): Promise<number>;
  /** Reads a result back as zone data; undefined when the file is absent. */
  read(orderId: number, jobId: number, meta: ResultMeta): Promise<ZoneData | undefined>;
  /** Removes the results of these jobs of the order (and what a write cut short left); absent ones are fine. */
  remove(orderId: number, jobIds: number[]): Promise<void>;
  /** The lake collection id of the order's results. */
  collectionId(orderId: number): string;
}
