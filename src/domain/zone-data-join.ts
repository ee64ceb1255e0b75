import type { FieldMeta } from './collection.js';
import type { DepthValues, SourceLink, ZoneData } from './zone-data.js';

/**
 * The cross-collection join: several zone-data answers for the same zone and depths become one
 * wide table keyed on zone id, each column named `{prefix}__{field}`.
 */
export interface JoinPart {
  /** The selection's alias, else its collection id. */
  prefix: string;
  data: ZoneData;
}

export const JOIN_SEPARATOR = '__';

export function joinedColumn(prefix: string, field: string): string {
  return `${prefix}${JOIN_SEPARATOR}${field}`;
}

export class ZoneDataJoinError extends Error {
  override readonly name = 'ZoneDataJoinError';
}

/**
 * Joins on zone id, depth by depth. Rows are the union of the parts' zones in the order the
 * first part lists them (then any zone only a later part has, in its order); a zone a part does
 * not report gets null in that part's columns. Parts from one grid and depth list report the
 * same zones, so in practice every row is complete and the order is the grid's sub-zone order.
 */
export function joinZoneData(dggrsId: string, zoneId: string, depths: readonly number[], parts: readonly JoinPart[]): ZoneData {
  const fields: Record<string, FieldMeta> = {};
  const columns: { name: string; part: number; field: string }[] = [];
  parts.forEach((p, i) => {
    if (p.data.dggrsId !== dggrsId || p.data.zoneId !== zoneId) throw new ZoneDataJoinError(`part "${p.prefix}" is for ${p.data.dggrsId}/${p.data.zoneId}, not ${dggrsId}/${zoneId}`);
    for (const [field, meta] of Object.entries(p.data.fields)) {
      const name = joinedColumn(p.prefix, field);
      if (name in fields) throw new ZoneDataJoinError(`column "${name}" would appear twice`);
      fields[name] = { ...meta, title: `${meta.title} (${p.prefix})` };
      columns.push({ name, part: i, field });
    }
  });

  const out: DepthValues[] = depths.map((depth) => {
    const perPart = parts.map((p) => p.data.depths.find((d) => d.depth === depth));
    const zones: string[] = [];
    const row = new Map<string, number>();
    for (const d of perPart) {
      for (const z of d?.zones ?? []) {
        if (!row.has(z)) {
          row.set(z, zones.length);
          zones.push(z);
        }
      }
    }
    const values: Record<string, (number | null)[]> = {};
    for (const c of columns) values[c.name] = new Array<number | null>(zones.length).fill(null);
    perPart.forEach((d, i) => {
      if (!d) return;
      const mine = columns.filter((c) => c.part === i);
      d.zones.forEach((z, k) => {
        const r = row.get(z)!;
        for (const c of mine) values[c.name]![r] = d.values[c.field]?.[k] ?? null;
      });
    });
    return { depth, zones, values };
  });

  const sources: SourceLink[] = [];
  const seen = new Set<string>();
  for (const p of parts) {
    for (const s of p.data.sources) {
      const key = `${p.prefix}\n${s.href}`;
      if (seen.has(key)) continue;
      seen.add(key);
      sources.push({ ...s, title: `${p.prefix}: ${s.title ?? s.href}` });
    }
  }
  return { dggrsId, zoneId, fields, depths: out, sources };
}
