/**
 * The one reading of an Accept header (RFC 9110 §12.5.1) for format negotiation and the OpenAPI
 * document's media type: ranges split on the commas outside quoted strings, each a lower-case media
 * range with its parameters (names lower case, quoted values unquoted and unescaped), in header order.
 * A profile URI list in quotes may hold commas (RFC 6906 allows any URI there).
 */

export interface MediaRange {
  /** `type/subtype`, lower case. */
  type: string;
  /** Parameters by lower-case name (the first of a repeated name), values as sent (unquoted). */
  params: ReadonlyMap<string, string>;
  /** The `q` parameter within 0..1, 1 when absent, 0 when not a number. */
  q: number;
  /** Position in the header. */
  index: number;
}

/** The pieces of `text` between the `separator`s that lie outside double-quoted strings. */
function splitOutsideQuotes(text: string, separator: string): string[] {
  const pieces: string[] = [];
  let start = 0, quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted && c === '\\') i++;
    else if (c === '"') quoted = !quoted;
    else if (!quoted && c === separator) {
      pieces.push(text.slice(start, i));
      start = i + 1;
    }
  }
  pieces.push(text.slice(start));
  return pieces;
}

/** A parameter value: a quoted string without its quotes and escapes, or the token as written. */
function paramValue(raw: string): string {
  const v = raw.trim();
  return v.length >= 2 && v.startsWith('"') && v.endsWith('"') ? v.slice(1, -1).replace(/\\(.)/g, '$1') : v;
}

/** The ranges of an Accept header, in header order (empty ranges left out). */
export function mediaRanges(accept: string): MediaRange[] {
  const ranges: MediaRange[] = [];
  splitOutsideQuotes(accept, ',').forEach((part, index) => {
    const [type, ...rawParams] = splitOutsideQuotes(part, ';');
    const t = (type ?? '').trim().toLowerCase();
    if (t === '') return;
    const params = new Map<string, string>();
    for (const p of rawParams) {
      const eq = p.indexOf('=');
      if (eq < 0) continue;
      const name = p.slice(0, eq).trim().toLowerCase();
      if (!params.has(name)) params.set(name, paramValue(p.slice(eq + 1)));
    }
    const q = params.has('q') ? Number(params.get('q')) : 1;
    ranges.push({ type: t, params, q: Number.isFinite(q) ? Math.min(1, Math.max(0, q)) : 0, index });
  });
  return ranges;
}
