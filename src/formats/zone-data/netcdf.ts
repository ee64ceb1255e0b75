import type { ZoneData } from '../../domain/zone-data.js';
import { profileUri, type ZoneDataContext, type ZoneDataEncoding } from './encoding.js';
import { charLength, writeNetcdf3, type NcAttribute, type NcDimension, type NcVariable } from '../netcdf3-writer.js';
import { CONF } from '../conformance-classes.js';
import { fileName } from '../file-names.js';

/**
 * Zone data as classic netCDF-3 (OGC 21-038r1 /req/data-netcdf/content), in the two DGGS-optimized
 * profiles of netCDF-3:
 * - `netcdf3-dggs` (default): each depth's sub-zone dimension has the coordinate variable of the
 *   local sub-zone indices 1..n in the DGGRS's deterministic sub-zone order (DGGS-JSON's order);
 * - `netcdf3-dggs-zoneids`: that coordinate variable holds the global zone ids as text. netCDF-3 has
 *   neither strings nor 64-bit integers, so the ids are a char array [zone, strlen] (as xarray and
 *   the netCDF user guide write strings), marked `_Encoding = "utf-8"`; the grids' 64-bit ids are not written.
 * The `netcdf3` and `netcdf4*` profiles are not offered (/per/data-netcdf/supported-profiles).
 *
 * Layout: netCDF-3 has no groups, so each relative depth d has its own dimension `zone_d<d>` with its
 * coordinate variable of the same name, and one double variable `<field>_d<d>` per field on it
 * (nulls are the `_FillValue` NaN). The DGGRS's space and time are not dimensions: one axis is the
 * sub-zones, as the requirement asks. The global attributes carry the profile URI, the DGGRS URI
 * and the parent zone id (the requirement's metadata), the depths and, for a time selection, its
 * interval (ACDD's time_coverage_*).
 */
const DGGRS_REL = 'https://www.opengis.net/def/rel/ogc/1.0/dggrs';

export const NETCDF_PROFILES = ['netcdf3-dggs', 'netcdf3-dggs-zoneids'] as const;

/** A netCDF name from a field name: letters, digits and `_.@+-`, not starting with a digit or sign. */
function ncName(name: string): string {
  const safe = name.replace(/[^A-Za-z0-9_.@+-]/g, '_');
  return /^[A-Za-z_]/.test(safe) ? safe : `_${safe}`;
}

/**
 * The coordinate variables are `zone_d<d>` and a field's are `<name>_d<d>`: a field named `zone`
 * would collide with them, so `zone` is taken before any field is named (it becomes `zone_2`).
 */
const COORDINATE_BASE = 'zone';

/** Variable names of the fields, unique even when two field names become the same netCDF name or the coordinates'. */
function fieldVariableNames(fields: readonly string[]): string[] {
  const taken = new Set<string>([COORDINATE_BASE]);
  return fields.map((f) => {
    let n = ncName(f);
    for (let k = 2; taken.has(n); k++) n = `${ncName(f)}_${k}`;
    taken.add(n);
    return n;
  });
}

export function netcdfFile(data: ZoneData, ctx: ZoneDataContext): { dimensions: NcDimension[]; attributes: NcAttribute[]; variables: NcVariable[] } {
  const profile = ctx.profile ?? NETCDF_PROFILES[0];
  const zoneIds = profile === 'netcdf3-dggs-zoneids';
  const fields = Object.keys(data.fields);
  const names = fieldVariableNames(fields);
  const parentLevel = ctx.grid.zoneLevel(data.zoneId);
  const dimensions: NcDimension[] = [];
  const variables: NcVariable[] = [];
  for (const d of data.depths) {
    const zone = `${COORDINATE_BASE}_d${d.depth}`;
    const n = d.zones.length;
    dimensions.push({ name: zone, length: n });
    const where: NcAttribute[] = [
      { name: 'depth', type: 'int', values: [d.depth] },
      { name: 'zone_level', type: 'int', values: [parentLevel + d.depth] },
    ];
    if (zoneIds) {
      const strlen = `${zone}_strlen`;
      dimensions.push({ name: strlen, length: charLength(d.zones) });
      variables.push({
        name: zone,
        dimensions: [zone, strlen],
        type: 'char',
        strings: d.zones,
        attributes: [{ name: 'long_name', text: `global zone identifier (${data.dggrsId}) of the sub-zones of ${data.zoneId} at relative depth ${d.depth}` }, { name: '_Encoding', text: 'utf-8' }, ...where],
      });
    } else {
      const indices = new Int32Array(n);
      for (let i = 0; i < n; i++) indices[i] = i + 1;
      variables.push({
        name: zone,
        dimensions: [zone],
        type: 'int',
        values: indices,
        attributes: [{ name: 'long_name', text: `local sub-zone index (1-based, ${data.dggrsId} sub-zone order) of the sub-zones of ${data.zoneId} at relative depth ${d.depth}` }, ...where],
      });
    }
    fields.forEach((f, k) => {
      const meta = data.fields[f]!;
      variables.push({
        name: `${names[k]}_d${d.depth}`,
        dimensions: [zone],
        type: 'double',
        values: d.values[f] ?? new Array<null>(n).fill(null),
        attributes: [
          { name: 'long_name', text: meta.title || f },
          ...(meta.svc_unit ? [{ name: 'units', text: meta.svc_unit }] : []),
          ...(meta.description ? [{ name: 'comment', text: meta.description }] : []),
          { name: '_FillValue', type: 'double', values: [Number.NaN] },
          { name: 'coordinates', text: zone },
          { name: 'field', text: f },
          ...where,
        ],
      });
    });
  }
  const depths = data.depths.map((d) => d.depth);
  // The service's description of the DGGRS, as the answer's links give it.
  const dggrsLink = ctx.links.find((l) => l.rel === DGGRS_REL || l.rel === '[ogc-rel:dggrs]')?.href;
  const attributes: NcAttribute[] = [
    // CF for what the file uses of it (long_name, units, _FillValue, coordinate variables); the sub-zone axis is not a CF spatial coordinate.
    { name: 'Conventions', text: 'CF-1.8' },
    { name: 'title', text: `${data.dggrsId} zone ${data.zoneId}: data of its sub-zones at relative depth${depths.length > 1 ? 's' : ''} ${depths.join(', ')}` },
    { name: 'profile', text: profileUri(profile) },
    { name: 'dggrs', text: ctx.grid.uri },
    { name: 'dggrs_id', text: data.dggrsId },
    ...(dggrsLink ? [{ name: 'dggrs_link', text: dggrsLink }] : []),
    { name: 'zone_id', text: data.zoneId },
    { name: 'zone_level', type: 'int', values: [parentLevel] },
    { name: 'zone_depths', type: 'int', values: depths },
    ...(ctx.datetime?.start ? [{ name: 'time_coverage_start', text: ctx.datetime.start }] : []),
    ...(ctx.datetime?.end ? [{ name: 'time_coverage_end', text: ctx.datetime.end }] : []),
  ];
  return { dimensions, attributes, variables };
}

export const netcdf: ZoneDataEncoding = {
  format: 'netcdf',
  conformance: [CONF.dggsDataNetcdf],
  profiles: NETCDF_PROFILES,
  encode: (data, ctx) => writeNetcdf3(netcdfFile(data, ctx), ctx.signal),
  fileName: (data) => fileName(`${data.dggrsId}-${data.zoneId}-data`, 'netcdf'),
};
