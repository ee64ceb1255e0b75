/** Pieces of a body of unknown length start this small and double... */
const FIRST_PIECE = 64 * 1024;
/**
 * ...up to just over 32 MiB: a C allocation this large is always mapped pages of its own
 * (glibc's largest mmap threshold), given back to the system when freed, and its freeing does not
 * raise that threshold for smaller ones.
 */
const LARGEST_PIECE = 32 * 1024 * 1024 + 64 * 1024;

/**
 * A response body gathered as it arrives. Each chunk is copied out at once, so the chunk can be
 * freed and its memory reused by the next read: chunks kept until the end (thousands of 64 KiB
 * socket buffers) scatter over the C heap, which then stays as large as their peak long after
 * they are freed. Copies go into one array of the declared length, or, when the length is not
 * known, into pieces of growing size that are joined once at the end.
 */
export class ByteCollector {
  private readonly pieces: Uint8Array[] = [];
  /** Bytes used in the last piece. */
  private used = 0;
  private total = 0;

  /** `expected`: the declared length, when the sender gave one (the bytes past it get a piece of their own). */
  constructor(private readonly expected?: number) {}

  get size(): number {
    return this.total;
  }

  add(chunk: Uint8Array): void {
    let from = 0;
    while (from < chunk.length) {
      let last = this.pieces[this.pieces.length - 1];
      if (!last || this.used === last.length) {
        last = new Uint8Array(this.nextPieceSize(chunk.length - from));
        this.pieces.push(last);
        this.used = 0;
      }
      const n = Math.min(last.length - this.used, chunk.length - from);
      last.set(chunk.subarray(from, from + n), this.used);
      this.used += n;
      from += n;
    }
    this.total += chunk.length;
  }

  /** The whole body in one array: the only piece itself, or one copy of all of them. Drops the pieces. */
  bytes(): Uint8Array {
    const pieces = this.pieces.splice(0);
    if (pieces.length === 0) return new Uint8Array(0);
    if (pieces.length === 1) return pieces[0]!.subarray(0, this.total);
    const out = new Uint8Array(this.total);
    let at = 0;
    for (const p of pieces) {
      const n = Math.min(p.length, this.total - at);
      out.set(n === p.length ? p : p.subarray(0, n), at);
      at += n;
    }
    return out;
  }

  private nextPieceSize(needed: number): number {
    if (this.pieces.length === 0 && this.expected !== undefined && this.expected > 0) return this.expected;
    return Math.max(needed, this.pieces.length === 0 ? FIRST_PIECE : LARGEST_PIECE);
  }
}
