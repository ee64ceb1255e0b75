/** Pieces of a body of unknown length start this small and double... */
const FIRST_PIECE = 64 * 1024;
/**
 * ...up to just over 32 MiB: a C allocation this large is always mapped pages of its own
 * (glibc's largest mmap threshold), given back to the system when freed, and its freeing does not
 * raise that threshold for smaller ones.
 */
const LARGEST_PIECE = 32 * 1024 * 1024 + 64 * 1024;

/** Bytes held across bodies being received at once (the process's in-flight budget). */
export interface HeldBytes {
  /** Takes `n` more bytes, or throws (taking nothing) when they do not fit. */
  take(n: number): void;
  release(n: number): void;
}

/**
 * A response body gathered as it arrives. Each chunk is copied out at once, so the chunk can be
 * freed and its memory reused by the next read: chunks kept until the end (thousands of 64 KiB
 * socket buffers) scatter over the C heap, which then stays as large as their peak long after
 * they are freed. Copies go into one array of the declared length, or, when the length is not
 * known, into pieces of growing size that are joined once at the end. With `held`, the bytes
 * gathered count there until the body is taken (`bytes`) or dropped (`discard`).
 */
export class ByteCollector {
  private readonly pieces: Uint8Array[] = [];
  /** Bytes used in the last piece. */
  private used = 0;
  private total = 0;

  /** `expected`: the declared length, when the sender gave one (the bytes past it get a piece of their own). */
  constructor(
    private readonly expected?: number,
    private readonly held?: HeldBytes,
  ) {}

  get size(): number {
    return this.total;
  }

  /** Copies the chunk in; throws, adding nothing, when `held` refuses its bytes. */
  add(chunk: Uint8Array): void {
    this.held?.take(chunk.length);
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

  /** The whole body in one array: the only piece itself, or one copy of all of them. Drops the pieces and gives back what `held` counts. */
  bytes(): Uint8Array {
    const pieces = this.pieces.splice(0);
    const total = this.total;
    this.discard();
    if (pieces.length === 0) return new Uint8Array(0);
    if (pieces.length === 1) return pieces[0]!.subarray(0, total);
    const out = new Uint8Array(total);
    let at = 0;
    for (const p of pieces) {
      const n = Math.min(p.length, total - at);
      out.set(n === p.length ? p : p.subarray(0, n), at);
      at += n;
    }
    return out;
  }

  /** Drops what was gathered and gives back what `held` counts (the exchange failed or was abandoned). */
  discard(): void {
    this.pieces.length = 0;
    this.held?.release(this.total);
    this.total = 0;
    this.used = 0;
  }

  private nextPieceSize(needed: number): number {
    if (this.pieces.length === 0 && this.expected !== undefined && this.expected > 0) return this.expected;
    return Math.max(needed, this.pieces.length === 0 ? FIRST_PIECE : LARGEST_PIECE);
  }
}
