/**
 * The representative point of a WKB geometry read straight from its bytes: the same answer, to
 * the last bit, as `representativePoint(decodeWkb(bytes))` (geometry/representative-point.ts and
 * geometry/wkb.ts), without building the geometry's arrays. Aggregating a lake of lines or
 * polygons takes one point per row, and the decoded tree was most of that row's cost.
 *
 * The bytes are walked once to check them exactly as the decoder does (anything it refuses has no
 * point here either), then once per dimension the centroid tries (areas, then lengths, then
 * points), then for the envelope's centre: the same sums in the same order as the decoder's
 * callers compute them.
 */

/** Nesting the decoder accepts (a collection in a collection...). */
const MAX_DEPTH = 8;

const enum Pass {
  Check,
  Areas,
  Lengths,
  Points,
  Envelope,
}

class Malformed extends Error {}

export class WkbPointReader {
  private bytes: Uint8Array = new Uint8Array(0);
  private view: DataView = new DataView(this.bytes.buffer);
  private pass = Pass.Check;
  private w = 0;
  private x = 0;
  private y = 0;
  private e0 = 0;
  private e1 = 0;
  private e2 = 0;
  private e3 = 0;
  /** The point found by the last `read` that returned true. */
  readonly point = new Float64Array(2);

  /** Finds the representative point into `point`; false when the geometry has none or is not valid WKB. */
  read(bytes: Uint8Array): boolean {
    this.bytes = bytes;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    try {
      this.pass = Pass.Check;
      const top = this.topType();
      this.walk(0, 0);
      if (top === 1) return this.single();
      for (const pass of [Pass.Areas, Pass.Lengths, Pass.Points]) {
        this.pass = pass;
        this.w = this.x = this.y = 0;
        this.walk(0, 0);
        if (this.w > 0) return this.found(this.x / this.w, this.y / this.w);
      }
      this.pass = Pass.Envelope;
      this.e0 = this.e1 = Infinity;
      this.e2 = this.e3 = -Infinity;
      this.walk(0, 0);
      return this.e0 <= this.e2 && this.found((this.e0 + this.e2) / 2, (this.e1 + this.e3) / 2);
    } catch (e) {
      if (e instanceof Malformed || e instanceof RangeError) return false;
      throw e;
    }
  }

  private found(x: number, y: number): boolean {
    this.point[0] = x;
    this.point[1] = y;
    return true;
  }

  /** A lone point is its own representative unless its x is NaN (an empty point). */
  private single(): boolean {
    const { offset, little } = this.header(0);
    const x = this.view.getFloat64(offset, little);
    return !Number.isNaN(x) && this.found(x, this.view.getFloat64(offset + 8, little));
  }

  /** The top-level type code (after the header's flags), or 0 when even the header is short. */
  private topType(): number {
    if (this.bytes.byteLength < 5) return 0;
    return this.header(0).type;
  }

  private need(offset: number, n: number): void {
    if (offset + n > this.bytes.byteLength) throw new Malformed();
  }

  private header(offset: number): { little: boolean; type: number; dims: number; offset: number } {
    this.need(offset, 5);
    const little = this.view.getUint8(offset) === 1;
    let code = this.view.getUint32(offset + 1, little);
    offset += 5;
    let hasZ = (code & 0x80000000) !== 0;
    let hasM = (code & 0x40000000) !== 0;
    if (code & 0x20000000) {
      this.need(offset, 4);
      offset += 4; // SRID
    }
    code &= 0x0fffffff;
    const iso = Math.floor(code / 1000);
    if (iso === 1 || iso === 3) hasZ = true;
    if (iso === 2 || iso === 3) hasM = true;
    return { little, type: code % 1000, dims: 2 + (hasZ ? 1 : 0) + (hasM ? 1 : 0), offset };
  }

  private count(offset: number, little: boolean): number {
    this.need(offset, 4);
    return this.view.getUint32(offset, little);
  }

  /** Walks the geometry at `offset`; returns its type and where it ends. */
  private walk(offset: number, depth: number): { type: number; end: number } {
    if (depth > MAX_DEPTH) throw new Malformed();
    const h = this.header(offset);
    const { little, dims } = h;
    let at = h.offset;
    switch (h.type) {
      case 1:
        this.need(at, 8 * dims);
        if (this.pass === Pass.Points) this.addPoint(this.view.getFloat64(at, little), this.view.getFloat64(at + 8, little));
        else if (this.pass === Pass.Envelope) this.extend(this.view.getFloat64(at, little), this.view.getFloat64(at + 8, little));
        return { type: 1, end: at + 8 * dims };
      case 2:
        return { type: 2, end: this.positions(at, little, dims, this.pass === Pass.Lengths ? 'line' : undefined) };
      case 3: {
        const rings = this.count(at, little);
        at += 4;
        for (let r = 0; r < rings; r++) at = this.positions(at, little, dims, this.pass === Pass.Areas ? (r === 0 ? 'shell' : 'hole') : this.pass === Pass.Lengths ? 'line' : undefined);
        return { type: 3, end: at };
      }
      case 4:
      case 5:
      case 6:
      case 7: {
        const parts = this.count(at, little);
        at += 4;
        for (let i = 0; i < parts; i++) {
          const part = this.walk(at, depth + 1);
          if (h.type !== 7 && part.type !== h.type - 3) throw new Malformed(); // a multi-geometry holds its own kind only
          at = part.end;
        }
        return { type: h.type, end: at };
      }
      default:
        throw new Malformed();
    }
  }

  /** A run of positions (a line or a ring): checked, then summed as the pass asks. */
  private positions(offset: number, little: boolean, dims: number, as: 'line' | 'shell' | 'hole' | undefined): number {
    const n = this.count(offset, little);
    offset += 4;
    if (n * 8 * dims > this.bytes.byteLength - offset) throw new Malformed();
    const end = offset + n * 8 * dims;
    if (this.pass === Pass.Envelope) {
      for (let at = offset; at < end; at += 8 * dims) this.extend(this.view.getFloat64(at, little), this.view.getFloat64(at + 8, little));
      return end;
    }
    if (as === undefined || n < 2) return end;
    const v = this.view, step = 8 * dims;
    let x0 = v.getFloat64(offset, little), y0 = v.getFloat64(offset + 8, little);
    if (as === 'line') {
      for (let at = offset + step; at < end; at += step) {
        const x1 = v.getFloat64(at, little), y1 = v.getFloat64(at + 8, little);
        const len = Math.hypot(x1 - x0, y1 - y0);
        this.w += len;
        this.x += len * ((x0 + x1) / 2);
        this.y += len * ((y0 + y1) / 2);
        x0 = x1;
        y0 = y1;
      }
      return end;
    }
    let a = 0, cx = 0, cy = 0;
    for (let at = offset + step; at < end; at += step) {
      const x1 = v.getFloat64(at, little), y1 = v.getFloat64(at + 8, little);
      const cross = x0 * y1 - x1 * y0;
      a += cross;
      cx += (x0 + x1) * cross;
      cy += (y0 + y1) * cross;
      x0 = x1;
      y0 = y1;
    }
    // Rings are signed by orientation; weigh by |area| with the ring's role (shell +, hole -).
    const area = Math.abs(a / 2);
    if (area === 0) return end;
    const sign = as === 'shell' ? 1 : -1;
    this.w += sign * area;
    this.x += sign * area * (cx / (3 * a));
    this.y += sign * area * (cy / (3 * a));
    return end;
  }

  private addPoint(x: number, y: number): void {
    this.w += 1;
    this.x += x;
    this.y += y;
  }

  private extend(x: number, y: number): void {
    this.e0 = Math.min(this.e0, x);
    this.e1 = Math.min(this.e1, y);
    this.e2 = Math.max(this.e2, x);
    this.e3 = Math.max(this.e3, y);
  }
}

const reader = new WkbPointReader();

/**
 * A WKB geometry's representative point (the point, or the centroid of a line or polygon), read
 * from the bytes as the decoder would; undefined for an empty or undecodable one. For row-by-row
 * readers: a fresh pair per row.
 */
export function pointOfWkb(bytes: Uint8Array): [number, number] | undefined {
  return reader.read(bytes) ? [reader.point[0]!, reader.point[1]!] : undefined;
}
