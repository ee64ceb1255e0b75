/**
 * The messages the supervisor (src/supervisor.ts) and its HTTP processes exchange over the cluster
 * IPC channel. Every one carries `dggs`, so that messages of others on the channel (prom-client,
 * Node's own) are told apart.
 */
export type GroupMessage =
  /** A process listens and serves: `port` is the bound port (the port 0 of tests resolved). */
  | { dggs: 'ready'; port: number }
  /** A question: from a process to the supervisor or (through it) to the process at place `to`; or from the supervisor to a process. */
  | { dggs: 'ask'; id: number; to: 'supervisor' | number; topic: string; body: unknown }
  /** The answer to the question `id` of whoever asked it. */
  | { dggs: 'answer'; id: number; body?: unknown; error?: string };

export function isGroupMessage(m: unknown): m is GroupMessage {
  return typeof m === 'object' && m !== null && typeof (m as { dggs?: unknown }).dggs === 'string';
}

/** Where the supervisor tells a process its place and the group's size. */
export const PLACE_ENV = 'DGGS_PROCESS_PLACE';
export const SIZE_ENV = 'DGGS_PROCESS_COUNT';
