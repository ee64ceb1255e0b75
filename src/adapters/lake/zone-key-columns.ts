/**
 * Stored zone-key columns (`npm run ingest`): one BIGINT column per grid and level holding the
 * grid's numeric key of the zone that holds each row's representative point (NULL where the
 * row has no place). A file declares its zone columns in its own parquet key/value metadata, so
 * a column is trusted only where the file that holds it says what it is: a column that happens
 * to share the name is never read as zone keys.
 */

/** The parquet key/value metadata entry declaring a file's zone-key columns. */
export const ZONE_COLUMNS_KEY = 'dggs_zone_columns';

export interface ZoneKeyColumn {
  column: string;
  dggrs: string;
  level: number;
}

/** `zone_<grid id in lower case>_l<level>`, e.g. `zone_ivea7h_l5`. */
export function zoneKeyColumnName(dggrsId: string, level: number): string {
  return `zone_${dggrsId.toLowerCase()}_l${level}`;
}

/** The metadata value: `{"version":1,"columns":[{"column","dggrs","level"}...]}`. */
export function zoneColumnsJson(columns: readonly ZoneKeyColumn[]): string {
  return JSON.stringify({ version: 1, columns: columns.map(({ column, dggrs, level }) => ({ column, dggrs, level })) });
}

/** The columns a metadata value declares; none for anything malformed. */
export function parseZoneColumns(json: string): ZoneKeyColumn[] {
  try {
    const v = JSON.parse(json) as { version?: unknown; columns?: unknown };
    if (v.version !== 1 || !Array.isArray(v.columns)) return [];
    return v.columns.filter(
      (c): c is ZoneKeyColumn =>
        typeof c === 'object' && c !== null && typeof c.column === 'string' && typeof c.dggrs === 'string' && Number.isInteger(c.level) && c.level >= 0 && c.column === zoneKeyColumnName(c.dggrs, c.level),
    );
  } catch {
    return [];
  }
}
