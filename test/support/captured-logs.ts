import { Writable } from 'node:stream';
import pino, { type Logger } from 'pino';

export type LogLine = Record<string, any>;

export interface CapturedLogs {
  logger: Logger;
  /** Every line written so far, parsed. */
  lines: LogLine[];
  /** The first line, written already or to come, that `match` accepts; fails after `timeoutMs` without one. */
  first(match: (line: LogLine) => boolean, timeoutMs?: number): Promise<LogLine>;
}

/** A pino logger at `level` whose lines are kept in memory, for tests that read what an operator would. */
export function capturedLogs(level: pino.LevelWithSilent = 'debug'): CapturedLogs {
  const lines: LogLine[] = [];
  const waiting = new Set<{ match: (line: LogLine) => boolean; resolve: (line: LogLine) => void }>();
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const text of chunk.toString('utf8').split('\n')) {
        if (!text) continue;
        const line = JSON.parse(text) as LogLine;
        lines.push(line);
        for (const w of waiting) {
          if (!w.match(line)) continue;
          waiting.delete(w);
          w.resolve(line);
        }
      }
      done();
    },
  });
  return {
    logger: pino({ level }, stream),
    lines,
    first(match, timeoutMs = 5000) {
      const seen = lines.find(match);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const w = {
          match,
          resolve: (line: LogLine) => {
            clearTimeout(timer);
            resolve(line);
          },
        };
        const timer = setTimeout(() => {
          waiting.delete(w);
          reject(new Error(`no such log line within ${timeoutMs} ms; lines: ${JSON.stringify(lines.slice(-5))}`));
        }, timeoutMs);
        waiting.add(w);
      });
    },
  };
}
