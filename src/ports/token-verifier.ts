/** Who a request acts for: every order belongs to one owner. */
export interface Principal {
  owner: string;
}

/** Decides whether a bearer token is accepted, and for whom. Tokens are never stored in clear. */
export interface TokenVerifier {
  verify(token: string): Promise<Principal | undefined>;
}
