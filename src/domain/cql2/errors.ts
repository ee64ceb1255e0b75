/**
 * A filter that is not valid CQL2. `position` says where: a 0-based character offset into
 * CQL2-Text, or a JSON-pointer-like path (`/args/1/args/0`) into CQL2-JSON, so a client can
 * point at the mistake.
 */
export class Cql2SyntaxError extends Error {
  override readonly name = 'Cql2SyntaxError';
  constructor(
    readonly detail: string,
    readonly position: number | string,
  ) {
    super(typeof position === 'number' ? `${detail} at position ${position}` : `${detail} at ${position || '/'}`);
  }
}
