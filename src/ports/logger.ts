/**
 * What the core logs through: fields first, then the message, as pino takes them, so the
 * composition root binds its pino logger as it is and use cases import no logging package.
 * Fields name ids as the HTTP request log does (`orderId`, `jobId`), so one query finds both.
 */
export interface Logger {
  debug(fields: object, msg: string): void;
  info(fields: object, msg: string): void;
  warn(fields: object, msg: string): void;
  error(fields: object, msg: string): void;
}
