import type { ProcessGroup } from '../../ports/process-group.js';
import { isGroupMessage, type GroupMessage } from './ipc-messages.js';

/**
 * A process of the group forked by the supervisor (node:cluster): questions travel over the IPC
 * channel to the supervisor, which answers them or passes them to the process they are for.
 */
export class IpcProcessGroup implements ProcessGroup {
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void; timer: NodeJS.Timeout }>();
  private readonly handlers = new Map<string, (body: unknown) => Promise<unknown>>();

  constructor(
    readonly index: number,
    readonly size: number,
    private readonly channel: Pick<NodeJS.Process, 'send' | 'on'> = process,
  ) {
    channel.on('message', (m: unknown) => {
      if (isGroupMessage(m)) this.received(m);
    });
  }

  ask(to: 'supervisor' | number, topic: string, body: unknown, timeoutMs: number): Promise<unknown> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        reject(new Error(`no answer to ${topic} from ${to === 'supervisor' ? 'the supervisor' : `process ${to}`} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiting.set(id, { resolve, reject, timer });
      this.send({ dggs: 'ask', id, to, topic, body });
    });
  }

  answer(topic: string, handler: (body: unknown) => Promise<unknown>): void {
    this.handlers.set(topic, handler);
  }

  /** Tells the supervisor this process serves, on `port`. */
  ready(port: number): void {
    this.send({ dggs: 'ready', port });
  }

  private send(m: GroupMessage): void {
    // A channel closing (the supervisor gone) makes every question unanswerable: they time out.
    if (this.channel.send) this.channel.send(m, undefined, undefined, () => {});
  }

  private received(m: GroupMessage): void {
    if (m.dggs === 'answer') {
      const w = this.waiting.get(m.id);
      if (!w) return;
      this.waiting.delete(m.id);
      clearTimeout(w.timer);
      if (m.error !== undefined) w.reject(new Error(m.error));
      else w.resolve(m.body);
    } else if (m.dggs === 'ask') {
      const handler = this.handlers.get(m.topic);
      const reply = (a: { body?: unknown; error?: string }) => this.send({ dggs: 'answer', id: m.id, ...a });
      if (!handler) return reply({ error: `process ${this.index} does not answer ${m.topic}` });
      handler(m.body).then(
        (body) => reply({ body }),
        (err: unknown) => reply({ error: err instanceof Error ? err.message : String(err) }),
      );
    }
  }
}
