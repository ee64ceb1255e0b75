/** Decides whether a bearer token is accepted. Tokens are never stored in clear. */
export interface TokenVerifier {
  verify(token: string): boolean;
}
