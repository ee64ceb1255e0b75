/**
 * The HTTP processes serving one port (`server.processes`), as one of them sees the group: its
 * place in it, and questions to the supervisor or to another process. A lone process is a group of
 * one, in which nobody else can be asked.
 */
export interface ProcessGroup {
  /** This process's place, 1..size; a restarted process takes the place of the one it replaces. */
  readonly index: number;
  readonly size: number;
  /**
   * Asks the supervisor, or the process at place `to`, and resolves with its answer; rejects when
   * it is not there (not started, restarting) or gives no answer within `timeoutMs`.
   */
  ask(to: 'supervisor' | number, topic: string, body: unknown, timeoutMs: number): Promise<unknown>;
  /** Answers the questions of `topic` put to this process (one handler per topic). */
  answer(topic: string, handler: (body: unknown) => Promise<unknown>): void;
}

/** The group of a service running in one process. */
export const SOLE_PROCESS: ProcessGroup = {
  index: 1,
  size: 1,
  ask: async (to, topic) => {
    throw new Error(`no ${typeof to === 'number' ? `process ${to}` : 'supervisor'} to ask ${topic}: the service runs in one process`);
  },
  answer: () => {},
};
