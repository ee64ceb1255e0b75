/**
 * Small inline SVG maps (equirectangular, no tiles, no network): polygons, points and boxes over
 * a labelled graticule. x is longitude scaled by the cosine of the frame's middle latitude, y is
 * minus latitude, so shapes keep their proportions near the frame's centre.
 */
export interface SvgShape {
  d: string;
  cls: string;
  href?: string;
  title: string;
}

export interface SvgPoint {
  cx: number;
  cy: number;
  cls: string;
  href?: string;
  title: string;
}

export interface SvgLabel {
  x: number;
  y: number;
  text: string;
  anchor: 'start' | 'middle' | 'end';
}

export interface SvgMap {
  viewBox: string;
  width: number;
  height: number;
  shapes: SvgShape[];
  points?: SvgPoint[];
  /** Path of the graticule lines and their labels. */
  graticule?: { d: string; labels: SvgLabel[]; fontSize: number };
  strokeWidth: number;
  /** Radius of point markers, in map units. */
  pointRadius?: number;
}

/** [west, south, east, north] in degrees; east may exceed 180 when a frame crosses the antimeridian. */
export type Frame = [number, number, number, number];

export interface MapContent {
  /** Closed rings, or open lines when `open`. */
  polygons?: { rings: number[][][]; cls: string; href?: string; title: string; open?: boolean }[];
  points?: { lon: number; lat: number; cls: string; href?: string; title: string }[];
  /** The area shown; by default the content's bounds with a margin. */
  frame?: Frame;
  graticule?: boolean;
  width?: number;
  /** Thin outlines, for maps of many small shapes. */
  thin?: boolean;
}

const round = (v: number) => Math.round(v * 1e6) / 1e6;
const STEPS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 45, 90];

/** The content's bounds, grown by a margin (at least `minSpan` degrees across), kept on the globe's latitudes. */
export function frameAround(w: number, s: number, e: number, n: number, margin = 0.08, minSpan = 0.02): Frame {
  const cx = (w + e) / 2, cy = (s + n) / 2;
  const half = (v: number) => Math.max(v / 2, minSpan / 2) * (1 + 2 * margin);
  const hw = half(e - w), hh = half(n - s);
  return [cx - hw, Math.max(-90, cy - hh), cx + hw, Math.min(90, cy + hh)];
}

export function svgMap(content: MapContent): SvgMap | undefined {
  const polygons = content.polygons ?? [];
  const points = content.points ?? [];
  let frame = content.frame;
  if (!frame) {
    let w = Infinity, s = Infinity, e = -Infinity, n = -Infinity;
    for (const p of polygons) for (const ring of p.rings) for (const [x, y] of ring) {
      w = Math.min(w, x!); e = Math.max(e, x!); s = Math.min(s, y!); n = Math.max(n, y!);
    }
    for (const p of points) {
      w = Math.min(w, p.lon); e = Math.max(e, p.lon); s = Math.min(s, p.lat); n = Math.max(n, p.lat);
    }
    if (w > e) return undefined;
    frame = frameAround(w, s, e, n, 0.04, points.length && !polygons.length ? 0.5 : 0);
  }
  const [fw, fs, fe, fn] = widened(frame);
  const k = Math.max(0.2, Math.cos((((fs + fn) / 2) * Math.PI) / 180));
  const vx = fw * k, vy = -fn, vw = Math.max((fe - fw) * k, 1e-9), vh = Math.max(fn - fs, 1e-9);
  // The box takes the frame's proportions: a tall frame narrows the map rather than leave margins.
  const height = Math.max(120, Math.min(480, Math.round(((content.width ?? 480) * vh) / vw)));
  const width = Math.min(content.width ?? 480, Math.max(120, Math.round((height * vw) / vh)));
  const unit = Math.max(vw, vh);
  // Coordinates to a tenth of a pixel or so: exact enough to draw, and a world of zones stays small.
  const digits = Math.max(0, Math.min(9, Math.ceil(-Math.log10(unit / Math.max(width, height) / 8))));
  const q = (v: number) => Number(v.toFixed(digits));
  // One path per entry, its rings as sub-paths (drawn even-odd, so holes stay open).
  const shapes = polygons.map((p) => ({
    d: p.rings.map((ring) => 'M' + ring.map(([x, y]) => `${q(x! * k)},${q(-y!)}`).join('L') + (p.open ? '' : 'Z')).join(''),
    cls: p.cls,
    title: p.title,
    ...(p.href ? { href: p.href } : {}),
  }));
  const map: SvgMap = { viewBox: `${round(vx)} ${round(vy)} ${round(vw)} ${round(vh)}`, width, height, shapes, strokeWidth: round(unit / (content.thin ? 2000 : 400)) };
  if (points.length) {
    map.points = points.map((p) => ({ cx: q(p.lon * k), cy: q(-p.lat), cls: p.cls, title: p.title, ...(p.href ? { href: p.href } : {}) }));
    map.pointRadius = round(unit / 120);
  }
  if (content.graticule) map.graticule = graticule([fw, fs, fe, fn], k, unit);
  return map;
}

/** A frame at least 4:3 on screen (wider in longitude when needed), so a few points do not make a thin strip. */
function widened([w, s, e, n]: Frame): Frame {
  const k = Math.max(0.2, Math.cos((((s + n) / 2) * Math.PI) / 180));
  const minWidth = ((n - s) * 4) / 3 / k;
  if (e - w >= minWidth) return [w, s, e, n];
  const grow = (minWidth - (e - w)) / 2;
  return [w - grow, s, e + grow, n];
}

/** Meridians and parallels at a round step giving a few lines across, labelled on the west and south edges. */
function graticule([w, s, e, n]: Frame, k: number, unit: number): NonNullable<SvgMap['graticule']> {
  const target = Math.max(e - w, n - s) / 10;
  const step = STEPS.find((v) => v >= target) ?? 90;
  const fontSize = round(unit / 45);
  const parts: string[] = [];
  const labels: SvgLabel[] = [];
  const fmt = (v: number, pos: string, neg: string) => {
    const a = Math.abs(v);
    const t = Number.isInteger(step) ? String(Math.round(a)) : a.toFixed(Math.min(2, Math.ceil(-Math.log10(step))));
    return `${t}°${v > 0 ? pos : v < 0 ? neg : ''}`;
  };
  // Labels sit along the south (meridians) and west (parallels) edges, kept off the corner they share.
  const clear = fontSize * 3.5;
  for (let lon = Math.ceil(w / step) * step; lon <= e + 1e-9; lon += step) {
    parts.push(`M${round(lon * k)},${round(-n)}V${round(-s)}`);
    const wrapped = ((((lon + 180) % 360) + 360) % 360) - 180;
    if ((lon - w) * k > clear && (e - lon) * k > fontSize * 2.5) labels.push({ x: round(lon * k + fontSize * 0.25), y: round(-s - fontSize * 0.4), text: fmt(wrapped === -180 && lon > 0 ? 180 : wrapped, 'E', 'W'), anchor: 'start' });
  }
  for (let lat = Math.ceil(s / step) * step; lat <= n + 1e-9; lat += step) {
    parts.push(`M${round(w * k)},${round(-lat)}H${round(e * k)}`);
    if (lat - s > fontSize * 1.5 && n - lat > fontSize * 1.2) labels.push({ x: round(w * k + fontSize * 0.3), y: round(-lat - fontSize * 0.3), text: fmt(lat, 'N', 'S'), anchor: 'start' });
  }
  return { d: parts.join(''), labels, fontSize };
}
