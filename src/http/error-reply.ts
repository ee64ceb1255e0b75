import type { Request } from 'restify';
import type { Reply } from './route.js';
import type { ApiError } from './schemas/common.js';
import { negotiate } from './formats.js';
import { renderHtml } from './html/render.js';
import { FORMAT_RECORDS, type Format } from '../formats/registry.js';

/**
 * The answer to a failed request: the ApiError as JSON, or, when the client asked for HTML
 * (`f=html`; or, with no `f` naming a format, an Accept that ranks text/html first as a
 * browser's does, negotiated as the routes negotiate), a page of the service's HTML showing the
 * same status, message and hint, with a way home (and, for a failure of ours, the request id to
 * report). Either way the answer varies on `Accept`. `home` is the service's public root.
 */
export function errorReply(req: Request, error: ApiError, headers: Record<string, string>, home: string, requestId?: string): Reply {
  const varied = { ...headers, Vary: 'Accept' };
  if (!asksForHtml(req)) return { status: error.code, contentType: 'application/json', body: error, headers: varied };
  const page = renderHtml('error', { title: `${error.code} ${error.message}`, crumbs: [['Home', home], [`Error ${error.code}`, '']], ...error, home, requestId: error.code >= 500 ? requestId : undefined }, error.code);
  return { ...page, headers: varied };
}

/** Every format: an `f` or Accept naming another one than HTML asks for a machine's answer. */
const ALL_FORMATS = Object.keys(FORMAT_RECORDS) as Format[];

function asksForHtml(req: Request): boolean {
  const accept = req.headers.accept;
  let f: string | undefined;
  try {
    // The query's last `f`, as routes read it; the request may not have reached the query parser.
    f = (req.getUrl() as unknown as URL).searchParams.getAll('f').at(-1);
  } catch {
    // A request target that cannot be parsed: Accept alone decides.
  }
  try {
    return negotiate(f, accept, ALL_FORMATS, 'json') === 'html';
  } catch {
    // An `f` naming no format at all (the 406 it gets): a browser that asked for it still reads a page.
    return negotiate(undefined, accept, ALL_FORMATS, 'json') === 'html';
  }
}
