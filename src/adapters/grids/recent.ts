/**
 * The last few results of a costly computation, by key: a zone list asks a grid for a parent's count and
 * then for one page of the same sub-zones, and each would otherwise redo the whole search.
 */
export class Recent<V> {
  private readonly entries = new Map<string, V>();

  constructor(private readonly capacity: number) {}

  get(key: string, make: () => V): V {
    const hit = this.entries.get(key);
    if (hit !== undefined) {
      // Re-inserted: the Map's order is the order of last use.
      this.entries.delete(key);
      this.entries.set(key, hit);
      return hit;
    }
    const value = make();
    this.entries.set(key, value);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
    return value;
  }
}
