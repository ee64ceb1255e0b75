import type { IncomingMessage } from 'node:http';

/**
 * The WWW-Authenticate value of a 401 (RFC 6750 §3): no error code when the request carried no
 * bearer credentials, `invalid_token` when it carried one we do not accept.
 */
export function bearerChallenge(req: IncomingMessage, realm: string): string {
  const challenge = `Bearer realm="${realm}"`;
  const credentials = req.headers.authorization;
  if (!credentials || !/^bearer(\s|$)/i.test(credentials)) return challenge;
  return `${challenge}, error="invalid_token", error_description="The bearer token is not valid"`;
}
