import { inject, injectable } from 'inversify';
import { TOKENS } from './tokens.js';
import type { DatastoreAdmin } from '../ports/datastore.js';
import { DatastoreNotInitializedError } from '../ports/errors.js';

/**
 * Whether the datastore is initialised, remembered once it is. While the process runs it can only
 * become so, never stop being so: initialisation and migrations only add (here or in another
 * replica), and the migrations this process knows are fixed when it is built. So the routes that
 * need it (the conformance declaration, concepts, orders) ask the database until the answer is
 * yes, and never again: a static route makes no round trip per request.
 */
@injectable()
export class DatastoreReadiness {
  private initialized = false;
  /** One question at a time: requests arriving meanwhile share its answer. */
  private asking?: Promise<boolean>;

  constructor(@inject(TOKENS.DatastoreAdmin) private readonly admin: Pick<DatastoreAdmin, 'status'>) {}

  /** Resolves once the datastore is initialised; else throws DatastoreNotInitializedError (503). */
  async check(): Promise<void> {
    if (this.initialized) return;
    this.asking ??= this.admin
      .status()
      .then((s) => (this.initialized ||= s.initialized))
      .finally(() => (this.asking = undefined));
    if (!(await this.asking)) throw new DatastoreNotInitializedError();
  }
}
