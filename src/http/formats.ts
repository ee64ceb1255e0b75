import { UnsupportedFormatError } from '../ports/errors.js';
import { F_VALUE, FORMAT_BY_NAME, type Format } from '../formats/registry.js';

/**
 * Picks the response format: `f` wins (an unknown or unsupported value is 406); otherwise the
 * Accept header by quality; otherwise `fallback`. `f` is matched case-insensitively, and a `+`
 * that a browser turned into a space is restored.
 */
export function negotiate(f: string | undefined, accept: string | undefined, supported: readonly Format[], fallback: Format): Format {
  if (f !== undefined && f !== '') {
    const key = f.trim().toLowerCase().replace(/ /g, '+');
    const format = FORMAT_BY_NAME.get(key);
    if (!format || !supported.includes(format)) throw new UnsupportedFormatError(supported.map((s) => F_VALUE[s]));
    return format;
  }
  if (!accept) return fallback;
  const ranges = accept
    .split(',')
    .map((part, index) => {
      const [type, ...params] = part.trim().toLowerCase().split(';').map((s) => s.trim());
      const q = params.find((p) => p.startsWith('q='));
      return { type: type ?? '', q: q ? Number(q.slice(2)) : 1, index };
    })
    .filter((r) => r.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index);
  for (const range of ranges) {
    if (range.type === '*/*' || range.type === 'application/*') return fallback;
    const format = FORMAT_BY_NAME.get(range.type);
    if (format && supported.includes(format)) return format;
  }
  return fallback;
}
