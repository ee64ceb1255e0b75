import { UnsupportedFormatError } from '../ports/errors.js';
import { F_VALUE, FORMAT_BY_NAME, type Format } from '../formats/registry.js';
import { profileUri } from '../formats/zone-data/encoding.js';
import { mediaRanges } from './accept-header.js';

/** The negotiated format, and the profiles the client's Accept header asks of it. */
export interface Negotiated {
  format: Format;
  /**
   * The `profile` media-type parameter (RFC 6906) of the best Accept ranges naming `format`, as
   * profile names, best first: a URI of the standard's profiles (`https://www.opengis.net/def/
   * profile/ogc/0/jsonfg-dggs`) by its name, any other token as written (lower case). Ranges are
   * read by quality until one without a profile (the client then takes any profile there): empty
   * when the best range naming the format has none, or when no range names it.
   */
  profiles: string[];
}

interface AcceptRange {
  type: string;
  q: number;
  index: number;
  profiles: string[];
}

const PROFILE_BASE = profileUri('');

/** A profile token of an Accept range: the standard's profile URIs by their name. */
function profileName(token: string): string {
  const t = token.replace(/^http:/, 'https:');
  return t.startsWith(PROFILE_BASE) ? t.slice(PROFILE_BASE.length) : token;
}

/** The ranges of an Accept header, best first (quality, then order); q=0 ranges dropped. */
function acceptRanges(accept: string): AcceptRange[] {
  return mediaRanges(accept)
    .map(({ type, params, q, index }) => {
      const profiles = (params.get('profile') ?? '').split(/\s+/).filter(Boolean).map((p) => profileName(p.toLowerCase()));
      return { type, q, index, profiles };
    })
    .filter((r) => r.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index);
}

/**
 * Picks the response format: `f` wins (an unknown or unsupported value is 406); otherwise the
 * Accept header by quality; otherwise `fallback`. `f` is matched case-insensitively, and a `+`
 * that a browser turned into a space is restored.
 */
export function negotiate(f: string | undefined, accept: string | undefined, supported: readonly Format[], fallback: Format): Format {
  return negotiateWithProfiles(f, accept, supported, fallback).format;
}

/** As `negotiate`, with the profiles the Accept header asks of the format chosen (by `f` or by it). */
export function negotiateWithProfiles(f: string | undefined, accept: string | undefined, supported: readonly Format[], fallback: Format): Negotiated {
  const ranges = accept ? acceptRanges(accept) : [];
  const format = chosen(f, ranges, supported, fallback);
  const profiles: string[] = [];
  for (const range of ranges) {
    if (FORMAT_BY_NAME.get(range.type) !== format) continue;
    if (range.profiles.length === 0) break;
    profiles.push(...range.profiles);
  }
  return { format, profiles };
}

function chosen(f: string | undefined, ranges: readonly AcceptRange[], supported: readonly Format[], fallback: Format): Format {
  if (f !== undefined && f !== '') {
    const key = f.trim().toLowerCase().replace(/ /g, '+');
    const format = FORMAT_BY_NAME.get(key);
    if (!format || !supported.includes(format)) throw new UnsupportedFormatError(supported.map((s) => F_VALUE[s]));
    return format;
  }
  for (const range of ranges) {
    if (range.type === '*/*' || range.type === 'application/*') return fallback;
    const format = FORMAT_BY_NAME.get(range.type);
    if (format && supported.includes(format)) return format;
  }
  return fallback;
}
