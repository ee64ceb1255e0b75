import 'reflect-metadata';
import { expect } from 'chai';
import { JobRunner, type JobRunnerOptions } from '../../src/app/orders/job-runner.js';
import { ValidationError } from '../../src/ports/errors.js';
import type { Claim, Job, JobLedger, JobStatus, OrderStore } from '../../src/ports/datastore.js';
import type { JobQueue } from '../../src/ports/job-queue.js';
import type { JobResults } from '../../src/ports/job-results.js';
import type { ZoneData } from '../../src/domain/zone-data.js';
import { capturedLogs, type CapturedLogs, type LogLine } from '../support/captured-logs.js';

const OPTS: JobRunnerOptions = { worker: 'host:1', maxAttempts: 2, retryDelayMs: 0, sweepIntervalMs: 60_000, sweepAfterMs: 60_000 };

const JOB = { id: 7, orderId: 3, collection: 'c', dggrs: 'IVEA7H', zoneId: 'F4-120-B', zoneDepth: 1 } as Job;

const DATA: ZoneData = { dggrsId: 'IVEA7H', zoneId: 'F4-120-B', fields: {}, sources: [], depths: [{ depth: 1, zones: ['a', 'b', 'c'], values: {} }] as unknown as ZoneData['depths'] };

interface Setup {
  claim?: Claim;
  compute?: () => Promise<ZoneData>;
  /** reportProgress answers this (false: the attempt no longer holds the job). */
  held?: boolean;
  /** The job's status when the runner looks after losing it. */
  statusAfterLoss?: JobStatus;
}

/** A runner on an in-memory ledger, whose attempt `attempt` is claimed; its log lines are captured. */
function runner(attempt: number, s: Setup = {}): { runner: JobRunner; logs: CapturedLogs; removed: number[] } {
  const logs = capturedLogs('debug');
  const removed: number[] = [];
  const store: Partial<JobLedger & OrderStore> = {
    claimJob: async () => s.claim ?? { kind: 'run', job: JOB, attempt },
    reportProgress: async () => s.held ?? true,
    completeJob: async () => true,
    failAttempt: async () => s.held ?? true,
    getJob: async () => ({ ...JOB, status: s.statusAfterLoss ?? 'dismissed' }),
  };
  const results: JobResults = {
    write: async () => 1234,
    remove: async (_order: number, jobs: number[]) => void removed.push(...jobs),
  } as unknown as JobResults;
  const zoneData = { collectionZoneData: s.compute ?? (async () => DATA) };
  const r = new JobRunner(store as JobLedger & OrderStore, {} as JobQueue, results, zoneData as never, OPTS, logs.logger);
  return { runner: r, logs, removed };
}

const delivery = (signal = new AbortController().signal) => ({ job: { jobId: JOB.id, orderId: JOB.orderId }, delivery: 1, signal });
const attemptLines = (logs: CapturedLogs) => logs.lines.filter((l) => l.msg.startsWith('job attempt'));

function expectStartAndEnd(logs: CapturedLogs, attempt: number): LogLine {
  const [start, end, ...more] = attemptLines(logs);
  expect(more, 'one line as the attempt starts and one as it ends').to.have.length(0);
  expect(start).to.include({ msg: 'job attempt started', orderId: 3, jobId: 7, attempt, delivery: 1, worker: 'host:1' });
  expect(end).to.include({ msg: 'job attempt ended', orderId: 3, jobId: 7, attempt, delivery: 1, worker: 'host:1' });
  expect(end!.ms).to.be.a('number').at.least(0);
  return end!;
}

describe('job runner log', () => {
  it('logs an attempt that succeeds: its start, and its end with rows, bytes and duration', async () => {
    const { runner: r, logs } = runner(1);
    await r.run(delivery());
    const end = expectStartAndEnd(logs, 1);
    expect(end).to.include({ level: 30, outcome: 'succeeded', rows: 3, bytes: 1234 });
  });

  it('logs a failed attempt that will be retried as retrying, with the error, as a warning', async () => {
    const { runner: r, logs } = runner(1, { compute: async () => Promise.reject(new Error('lake unreachable')) });
    let thrown: unknown;
    await r.run(delivery()).catch((err: unknown) => (thrown = err));
    expect(thrown, 'the queue is asked to deliver the job again').to.be.instanceOf(Error);
    const end = expectStartAndEnd(logs, 1);
    expect(end).to.include({ level: 40, outcome: 'retrying', reason: 'lake unreachable' });
    expect(end.err).to.include({ message: 'lake unreachable' });
  });

  it('logs the last attempt that fails as failed', async () => {
    const { runner: r, logs } = runner(2, { compute: async () => Promise.reject(new Error('lake unreachable')) });
    await r.run(delivery());
    expect(expectStartAndEnd(logs, 2)).to.include({ level: 40, outcome: 'failed', reason: 'lake unreachable' });
  });

  it('logs a request the zone-data use case refuses as failed at once (no retry)', async () => {
    const { runner: r, logs } = runner(1, { compute: async () => Promise.reject(new ValidationError('Invalid zone', 'no such zone')) });
    await r.run(delivery());
    expect(expectStartAndEnd(logs, 1)).to.include({ outcome: 'failed', reason: 'Invalid zone: no such zone' });
  });

  it('logs an attempt whose order was dismissed meanwhile as dismissed', async () => {
    const { runner: r, logs, removed } = runner(1, { held: false, statusAfterLoss: 'dismissed' });
    await r.run(delivery());
    expect(expectStartAndEnd(logs, 1)).to.include({ level: 30, outcome: 'dismissed' });
    expect(removed).to.deep.equal([7]);
  });

  it('logs an attempt another one took over as superseded', async () => {
    const { runner: r, logs } = runner(1, { held: false, statusAfterLoss: 'running' });
    await r.run(delivery());
    expect(expectStartAndEnd(logs, 1)).to.include({ outcome: 'superseded' });
  });

  it('logs an attempt its worker stopped as retrying, with why', async () => {
    const ctl = new AbortController();
    ctl.abort(new Error('the queue stopped'));
    const { runner: r, logs } = runner(1);
    let thrown: unknown;
    await r.run(delivery(ctl.signal)).catch((err: unknown) => (thrown = err));
    expect(thrown).to.be.instanceOf(Error);
    expect(expectStartAndEnd(logs, 1)).to.include({ outcome: 'retrying', reason: 'the worker stopped during the attempt' });
  });

  it('logs no attempt for a delivery of a job that needs none, and a failure when its attempts were used up', async () => {
    const skipped = runner(1, { claim: { kind: 'skip', status: 'successful' } });
    await skipped.runner.run(delivery());
    expect(attemptLines(skipped.logs)).to.have.length(0);
    expect(skipped.logs.lines.find((l) => l.msg === 'job delivery skipped')).to.include({ level: 20, orderId: 3, jobId: 7, status: 'successful' });

    const exhausted = runner(1, { claim: { kind: 'exhausted', job: { ...JOB, message: 'interrupted 2 times' } } });
    await exhausted.runner.run(delivery());
    expect(attemptLines(exhausted.logs)).to.have.length(0);
    expect(exhausted.logs.lines.find((l) => l.msg === 'job failed: attempts used up')).to.include({ level: 40, orderId: 3, jobId: 7 });
  });
});
