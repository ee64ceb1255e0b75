import { UnavailableError } from '../../ports/errors.js';

/**
 * The answer of a health probe in the shape of the IETF draft "Health Check Response Format for
 * HTTP APIs" (draft-inadarei-api-health-check): `pass`, `warn` (serving, something degraded) or
 * `fail`, and the checks behind it by `component:measurement`, one entry per component instance.
 */
export type HealthStatus = 'pass' | 'warn' | 'fail';

export interface HealthCheck {
  componentId?: string;
  componentType: string;
  status: HealthStatus;
  /** Why the check warns or fails; never server paths or driver messages (those go to the log). */
  output?: string;
  /** When the check was made (RFC 3339). */
  time: string;
}

export interface HealthReport {
  status: HealthStatus;
  checks?: Record<string, HealthCheck[]>;
}

/** The worst of some statuses: `fail` over `warn` over `pass`. */
export function worst(statuses: Iterable<HealthStatus>): HealthStatus {
  let out: HealthStatus = 'pass';
  for (const s of statuses) {
    if (s === 'fail') return 'fail';
    if (s === 'warn') out = 'warn';
  }
  return out;
}

/** The service should get no traffic now: the readiness probe's refusal, naming the failing checks. */
export class NotReadyError extends UnavailableError {
  constructor(report: HealthReport) {
    const failing = Object.entries(report.checks ?? {}).flatMap(([key, checks]) => checks.filter((c) => c.status === 'fail').map((c) => (c.componentId ? `${key} (${c.componentId})` : key)));
    super('Service not ready', `Failing checks: ${failing.join(', ') || 'none named'}. Each entry of "checks" says why; the service log has the details.`);
  }
}
