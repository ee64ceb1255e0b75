import type { Request } from 'restify';
import type { Principal, TokenVerifier } from '../ports/token-verifier.js';
import type { DatastoreReadiness } from '../app/datastore-readiness.js';
import { DatastoreNotInitializedError, NotAuthenticatedError } from '../ports/errors.js';

/**
 * Admits requests to secured routes: reads `Authorization: Bearer <token>`, asks the token
 * verifier, and remembers who each admitted request acts for, which the routes then ask.
 */
export class BearerGuard {
  private readonly principals = new WeakMap<Request, Principal>();

  constructor(
    private readonly verifier: TokenVerifier,
    private readonly readiness: Pick<DatastoreReadiness, 'check'>,
  ) {}

  /** Throws NotAuthenticatedError (401) unless the request carries a token the verifier accepts. */
  async authenticate(req: Request): Promise<void> {
    const header = req.header('authorization') ?? '';
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match) throw new NotAuthenticatedError();
    let principal: Principal | undefined;
    try {
      principal = await this.verifier.verify(match[1]!);
    } catch (err) {
      // Stored tokens live in the datastore: before initialisation there are none to check.
      await this.readiness.check().catch((notReady: unknown) => {
        if (notReady instanceof DatastoreNotInitializedError) throw notReady;
      });
      throw err;
    }
    if (!principal) throw new NotAuthenticatedError();
    this.principals.set(req, principal);
  }

  /** The owner the request acts for. */
  ownerOf(req: Request): string {
    const principal = this.principals.get(req);
    // Reached only when authentication did not run for this request: refuse rather than guess.
    if (!principal) throw new NotAuthenticatedError();
    return principal.owner;
  }
}
