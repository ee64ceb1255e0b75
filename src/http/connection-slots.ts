/** What admitting a new connection decided. */
export type Admission<C> =
  | { admitted: true; /** A connection that gave up its slot for this one: answer and close it. */ evicted?: C }
  | { admitted: false; scope: 'peer' | 'server' };

interface Peer<C> {
  open: number;
  /** Connections of this peer serving no request (new, still sending a head, or idle between requests), oldest first. */
  idle: Set<C>;
}

/**
 * The connection slots of a server: at most `maxTotal` open connections, at most `maxPerPeer` per
 * peer. At the total cap, a connection that serves no request (one still sending its head, or idle
 * between requests) gives its slot to the newcomer: the oldest such connection of the peer holding
 * the most of them. Slow clients from many addresses then cannot lock the others out, and requests
 * in progress keep their slots; only when every slot serves a request is the newcomer refused.
 */
export class ConnectionSlots<C> {
  private readonly peers = new Map<string, Peer<C>>();
  private readonly held = new Map<C, { peer: string; serving: number }>();

  constructor(
    private readonly maxTotal: number,
    private readonly maxPerPeer: number,
  ) {}

  get open(): number {
    return this.held.size;
  }

  admit(conn: C, peerKey: string): Admission<C> {
    const peer = this.peers.get(peerKey) ?? { open: 0, idle: new Set<C>() };
    if (peer.open >= this.maxPerPeer) return { admitted: false, scope: 'peer' };
    let evicted: C | undefined;
    if (this.held.size >= this.maxTotal) {
      evicted = this.idlest();
      if (evicted === undefined) return { admitted: false, scope: 'server' };
      this.release(evicted);
    }
    peer.open++;
    peer.idle.add(conn);
    this.peers.set(peerKey, peer);
    this.held.set(conn, { peer: peerKey, serving: 0 });
    return evicted === undefined ? { admitted: true } : { admitted: true, evicted };
  }

  /** Whether a request of the connection has its head and is not answered yet. */
  serving(conn: C): boolean {
    return (this.held.get(conn)?.serving ?? 0) > 0;
  }

  /** A request of the connection has its head: the slot is no longer given up while it is served. */
  requestStarted(conn: C): void {
    const h = this.held.get(conn);
    if (!h) return;
    if (h.serving++ === 0) this.peers.get(h.peer)!.idle.delete(conn);
  }

  /** A request of the connection was answered (or abandoned). */
  requestEnded(conn: C): void {
    const h = this.held.get(conn);
    if (!h || h.serving === 0) return;
    if (--h.serving === 0) this.peers.get(h.peer)!.idle.add(conn);
  }

  /** The connection closed (or was evicted); idempotent. */
  release(conn: C): void {
    const h = this.held.get(conn);
    if (!h) return;
    this.held.delete(conn);
    const peer = this.peers.get(h.peer)!;
    peer.idle.delete(conn);
    if (--peer.open === 0) this.peers.delete(h.peer);
  }

  /** The oldest idle connection of the peer with the most idle connections. */
  private idlest(): C | undefined {
    let most: Peer<C> | undefined;
    for (const peer of this.peers.values()) if (peer.idle.size > (most?.idle.size ?? 0)) most = peer;
    return most?.idle.values().next().value;
  }
}
