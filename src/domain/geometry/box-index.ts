/**
 * A static packed R-tree over axis-aligned boxes (sort-tile-recursive packing, 16 entries a
 * node): built once in O(n log n), it visits the boxes meeting a query box in about
 * O(log n + k). The domain takes no packages, so this stands in for a library such as flatbush.
 */

const NODE_SIZE = 16;

export class BoxIndex {
  /** minX, minY, maxX, maxY per position: the items (level 0), then each level of nodes, the root last. */
  private readonly boxes: Float64Array;
  /** Per position: the item's number (level 0) or the position of the node's first child. */
  private readonly refs: Uint32Array;
  /** End position of each level. */
  private readonly levelEnds: number[] = [];

  /** `itemBoxes` holds minX, minY, maxX, maxY for each item, in item order. */
  constructor(itemBoxes: Float64Array) {
    const n = itemBoxes.length / 4;
    const boxes: number[] = [];
    const refs: number[] = [];
    let level: { box: number[]; ref: number }[] = [];
    for (let i = 0; i < n; i++) level.push({ box: [itemBoxes[4 * i]!, itemBoxes[4 * i + 1]!, itemBoxes[4 * i + 2]!, itemBoxes[4 * i + 3]!], ref: i });
    while (level.length > 0) {
      const start = refs.length;
      for (const e of packOrder(level)) {
        boxes.push(...e.box);
        refs.push(e.ref);
      }
      this.levelEnds.push(refs.length);
      if (level.length === 1 && this.levelEnds.length > 1) break;
      const parents: { box: number[]; ref: number }[] = [];
      for (let p = start; p < refs.length; p += NODE_SIZE) {
        const box = [Infinity, Infinity, -Infinity, -Infinity];
        for (let c = p; c < Math.min(p + NODE_SIZE, refs.length); c++) {
          box[0] = Math.min(box[0]!, boxes[4 * c]!);
          box[1] = Math.min(box[1]!, boxes[4 * c + 1]!);
          box[2] = Math.max(box[2]!, boxes[4 * c + 2]!);
          box[3] = Math.max(box[3]!, boxes[4 * c + 3]!);
        }
        parents.push({ box, ref: p });
      }
      level = parents;
    }
    this.boxes = Float64Array.from(boxes);
    this.refs = Uint32Array.from(refs);
  }

  /** Scratch stack of the search (searches do not nest). */
  private readonly stack: number[] = [];

  /** Appends to `out` each item whose box meets the query box (edges included), in no set order. */
  search(minX: number, minY: number, maxX: number, maxY: number, out: number[]): void {
    const { boxes, refs, levelEnds, stack } = this;
    if (levelEnds.length < 2) return;
    stack.push(refs.length - 1, levelEnds.length - 1);
    while (stack.length > 0) {
      const level = stack.pop()!;
      const node = stack.pop()!;
      const first = refs[node]!;
      const end = Math.min(first + NODE_SIZE, levelEnds[level - 1]!);
      for (let c = first; c < end; c++) {
        if (boxes[4 * c]! > maxX || boxes[4 * c + 1]! > maxY || boxes[4 * c + 2]! < minX || boxes[4 * c + 3]! < minY) continue;
        if (level === 1) out.push(refs[c]!);
        else stack.push(c, level - 1);
      }
    }
  }
}

/** Sort-tile-recursive order: vertical slices by centre x, each sorted by centre y, so runs of NODE_SIZE make compact nodes. */
function packOrder<T extends { box: number[] }>(entries: T[]): T[] {
  const cx = (e: T) => e.box[0]! + e.box[2]!;
  const cy = (e: T) => e.box[1]! + e.box[3]!;
  const sorted = [...entries].sort((a, b) => cx(a) - cx(b));
  const slice = NODE_SIZE * Math.ceil(Math.sqrt(Math.ceil(entries.length / NODE_SIZE)));
  const out: T[] = [];
  for (let s = 0; s < sorted.length; s += slice) out.push(...sorted.slice(s, s + slice).sort((a, b) => cy(a) - cy(b)));
  return out;
}
