/**
 * How the colours of a value-encoded raster tile turn into numbers. Transparent pixels (alpha 0)
 * are nodata in every encoding: tile sets mark "no data here" that way, not with a value.
 */
export const VALUE_ENCODINGS = ['terrarium', 'mapbox-terrain-rgb', 'gray'] as const;
export type ValueEncoding = (typeof VALUE_ENCODINGS)[number];

/** Names archives use in their metadata `encoding` (TileJSON-style); `mapbox` is the usual short form. */
export function parseValueEncoding(v: unknown): ValueEncoding | undefined {
  if (typeof v !== 'string') return undefined;
  const s = v.toLowerCase();
  if (s === 'mapbox' || s === 'terrain-rgb') return 'mapbox-terrain-rgb';
  return (VALUE_ENCODINGS as readonly string[]).includes(s) ? (s as ValueEncoding) : undefined;
}

/** Values of RGBA pixels; NaN where alpha is 0. */
export function decodeValues(rgba: Uint8Array, encoding: ValueEncoding): Float32Array {
  const n = rgba.length >> 2;
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    const o = i * 4;
    const r = rgba[o]!, g = rgba[o + 1]!, b = rgba[o + 2]!;
    if (rgba[o + 3] === 0) out[i] = NaN;
    else if (encoding === 'terrarium') out[i] = r * 256 + g + b / 256 - 32768;
    else if (encoding === 'mapbox-terrain-rgb') out[i] = -10000 + (r * 65536 + g * 256 + b) * 0.1;
    else out[i] = r;
  }
  return out;
}
