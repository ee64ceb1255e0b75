/**
 * A ZonePyramidStore in memory, for tests of what uses the port (the pyramid source, the ingest)
 * without a ClickHouse. It keeps the port's promises that callers rely on: generations published
 * whole, parts replaced on a retry, reads of the wanted keys and periods only. The real adapter is
 * held to the same promises by the contract suite (test/contracts/zone-pyramid-store.contract.ts).
 */
import { ALL_TIME, type PyramidCell, type PyramidLayout, type PyramidReadRequest, type PyramidRef, type ZonePyramidStore } from '../../src/ports/zone-pyramid-store.js';

interface Generation {
  fields: string[];
  parts: Map<string, PyramidCell[]>;
}

export class MemoryPyramidStore implements ZonePyramidStore {
  private readonly generations = new Map<string, Generation>();
  private readonly published = new Map<string, { generation: string; layout: PyramidLayout }>();
  private next = 1;
  /** Reads made, for tests that count them. */
  reads: PyramidReadRequest[] = [];
  /** When set, every read throws it (a shard down). */
  failReads?: Error;

  async layout(ref: PyramidRef): Promise<PyramidLayout | undefined> {
    return this.published.get(ref.table)?.layout;
  }

  async read(ref: PyramidRef, request: PyramidReadRequest): Promise<PyramidCell[]> {
    this.reads.push(request);
    if (this.failReads) throw this.failReads;
    request.signal?.throwIfAborted();
    const pub = this.published.get(ref.table);
    if (!pub) return [];
    const gen = this.generations.get(pub.generation)!;
    const keys = new Set(request.keys);
    const columns = request.fields.map((f) => gen.fields.indexOf(f));
    const out: PyramidCell[] = [];
    for (const cells of gen.parts.values()) {
      for (const c of cells) {
        if (c.level !== request.level || !keys.has(c.key)) continue;
        const inPeriods = request.periods ? c.period !== ALL_TIME && c.period >= request.periods.from && c.period < request.periods.to : c.period === ALL_TIME;
        if (!inPeriods) continue;
        out.push({ ...c, fields: columns.map((i) => ({ ...c.fields[i]! })) });
      }
    }
    return out;
  }

  async prepare(_ref: PyramidRef, layout: Pick<PyramidLayout, 'fields'>): Promise<string> {
    const generation = `g${this.next++}`;
    this.generations.set(generation, { fields: [...layout.fields], parts: new Map() });
    return generation;
  }

  async writePart(_ref: PyramidRef, generation: string, part: string, cells: AsyncIterable<PyramidCell[]>): Promise<void> {
    const gen = this.generations.get(generation);
    if (!gen) throw new Error(`no generation ${generation}`);
    const kept: PyramidCell[] = [];
    for await (const batch of cells) kept.push(...batch.map((c) => ({ ...c, fields: c.fields.map((f) => ({ ...f })) })));
    gen.parts.set(part, kept);
  }

  async publish(ref: PyramidRef, generation: string, layout: PyramidLayout): Promise<void> {
    const before = this.published.get(ref.table);
    this.published.set(ref.table, { generation, layout });
    if (before && before.generation !== generation) this.generations.delete(before.generation);
  }

  async close(): Promise<void> {}
}
