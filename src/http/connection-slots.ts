import { isIPv6 } from 'node:net';

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

  /** `perPeer` false: the connection counts in the total only (a trusted proxy's, which carries many clients). */
  admit(conn: C, peerKey: string, perPeer = true): Admission<C> {
    const peer = this.peers.get(peerKey) ?? { open: 0, idle: new Set<C>() };
    if (perPeer && peer.open >= this.maxPerPeer) return { admitted: false, scope: 'peer' };
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

/**
 * Requests in flight per client, for the clients a trusted proxy forwards: their connections are
 * the proxy's, so the per-peer connection bound cannot tell them apart.
 */
export class ClientRequests {
  private readonly inFlight = new Map<string, number>();

  constructor(private readonly maxPerClient: number) {}

  /** Counts a request of `clientKey`; false (and not counted) when the client already has its maximum in flight. */
  start(clientKey: string): boolean {
    const n = this.inFlight.get(clientKey) ?? 0;
    if (n >= this.maxPerClient) return false;
    this.inFlight.set(clientKey, n + 1);
    return true;
  }

  end(clientKey: string): void {
    const n = this.inFlight.get(clientKey) ?? 0;
    if (n <= 1) this.inFlight.delete(clientKey);
    else this.inFlight.set(clientKey, n - 1);
  }
}

/** Clients are counted per IPv4 address, and per /64 for IPv6 (one host usually holds a whole /64); other names as they are. */
export function peerKey(address: string | null | undefined): string {
  const a = (address ?? '').replace(/^::ffff:/, '');
  if (!isIPv6(a)) return a;
  const [head = '', tail = ''] = a.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = a.includes('::') ? [...left, ...Array(8 - left.length - right.length).fill('0'), ...right] : left;
  return groups.slice(0, 4).map((g) => g.replace(/^0+(?=.)/, '').toLowerCase()).join(':') + '::/64';
}
