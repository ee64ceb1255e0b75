import { once } from 'node:events';
import { chmodSync, lstatSync, rmSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';

/** Where a listener listens: a TCP address, or a Unix socket file. */
export type ListenAt = { host: string; port: number } | { socket: string };

/**
 * Listens at a TCP address or on a Unix socket; resolves with where it listens (the bound port
 * for port 0, the socket's absolute path). A socket file is created owner-only (0600); one left
 * by a process that stopped without removing it is replaced, while one a live process serves,
 * or a file that is not a socket, stops the start.
 */
export async function listenAt(server: net.Server, at: ListenAt, opts: { exclusive?: boolean } = {}): Promise<ListenAt> {
  // In a cluster worker a listener is the primary's, shared by all workers, unless exclusive:
  // then this process binds it itself (and a socket file gets this process's mask).
  const exclusive = opts.exclusive ?? false;
  if ('socket' in at) {
    const file = path.resolve(at.socket);
    await clearStaleSocket(file);
    const listening = once(server, 'listening');
    // The socket is bound inside listen(): the mask covers its creation, so it is never open to others.
    const mask = process.umask(0o177);
    try {
      server.listen({ path: file, exclusive });
    } finally {
      process.umask(mask);
    }
    await listening;
    chmodSync(file, 0o600);
    return { socket: file };
  }
  const listening = once(server, 'listening');
  server.listen({ port: at.port, host: at.host, exclusive });
  await listening;
  return { host: at.host, port: (server.address() as net.AddressInfo).port };
}

/** Stops listening (waiting for open requests) and removes the socket file of a Unix listener. */
export async function closeListener(server: net.Server, at: ListenAt | undefined): Promise<void> {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (at && 'socket' in at) rmSync(at.socket, { force: true });
}

/** `http://host:port`, or `unix:/path` for a socket: where an operator reaches a listener. */
export function describeListener(at: ListenAt): string {
  if ('socket' in at) return `unix:${at.socket}`;
  return `http://${at.host.includes(':') ? `[${at.host}]` : at.host}:${at.port}`;
}

async function clearStaleSocket(file: string): Promise<void> {
  let stat;
  try {
    stat = lstatSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  if (!stat.isSocket()) throw new Error(`${file} exists and is not a socket: remove it or choose another socket path`);
  const live = await new Promise<boolean>((resolve) => {
    const probe = net.connect(file);
    probe.once('connect', () => {
      probe.destroy();
      resolve(true);
    });
    probe.once('error', () => resolve(false));
  });
  if (live) throw new Error(`${file}: a running process listens on this socket`);
  rmSync(file, { force: true });
}
