import type { Link } from './schemas/common.js';
import { F_VALUE, mediaType, type Format } from './formats.js';

/** Builds absolute links from the service's public base URL. */
export class Links {
  constructor(readonly baseUrl: string) {}

  href(path: string, query: Record<string, string | number | boolean | undefined> = {}): string {
    const url = new URL(this.baseUrl.replace(/\/$/, '') + path);
    for (const [k, v] of Object.entries(query)) if (v !== undefined) url.searchParams.set(k, String(v));
    return url.toString();
  }

  link(rel: string, path: string, opts: { type?: string; title?: string; query?: Record<string, string | number | boolean | undefined> } = {}): Link {
    return { href: this.href(path, opts.query), rel, ...(opts.type ? { type: opts.type } : {}), ...(opts.title ? { title: opts.title } : {}) };
  }

  /** `self` in the answered format plus `alternate` for each other format the route offers. */
  selfAndAlternates(path: string, current: Format, formats: readonly Format[], query: Record<string, string | number | boolean | undefined> = {}, title?: string): Link[] {
    return formats.map((format) => ({
      href: this.href(path, { ...query, f: F_VALUE[format] }),
      rel: format === current ? 'self' : 'alternate',
      type: mediaType(format),
      title: `${title ?? 'This document'} as ${format.toUpperCase()}`,
    }));
  }
}
