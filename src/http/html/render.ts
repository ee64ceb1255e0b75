import path from 'node:path';
import { Eta } from 'eta';
import type { Link } from '../schemas/common.js';
import type { Reply } from '../route.js';

const eta = new Eta({ views: path.join(import.meta.dirname, 'templates'), autoEscape: true, cache: true, autoTrim: false });

export interface PageModel {
  title: string;
  /** Breadcrumb trail: [label, href] pairs, the last one being the current page. */
  crumbs: [string, string][];
  links?: Link[];
  [key: string]: unknown;
}

/** Short names for the format links of the breadcrumb bar (the media type stays in their title). */
const FORMAT_LABELS: Record<string, string> = {
  'application/json': 'JSON',
  'text/html': 'HTML',
  'application/geo+json': 'GeoJSON',
  'application/vnd.ogc.dggs+json': 'DGGS-JSON',
  'application/vnd.apache.parquet': 'Parquet',
  'application/vnd.geo+parquet': 'GeoParquet',
  'application/schema+json': 'JSON Schema',
  'application/vnd.mapbox.tile+json': 'TileJSON',
};

/** A hexagon in the header's colours, inline so that no request is made for it. */
const FAVICON = `data:image/svg+xml,${encodeURIComponent(
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><path d="M16 1.5 28.6 8.8v14.4L16 30.5 3.4 23.2V8.8z" fill="#1d2733"/><path d="M16 8.5 22.5 12.25v7.5L16 23.5 9.5 19.75v-7.5z" fill="#0b6bcb"/></svg>',
)}`;

/** Renders `templates/<view>.eta` inside the shared layout. */
export function renderHtml(view: string, model: PageModel, status = 200): Reply {
  const alternates = (model.links ?? [])
    .filter((l) => l.rel === 'alternate')
    .map((l) => ({ ...l, label: FORMAT_LABELS[(l.type ?? '').split(';')[0]!.trim()] ?? l.type ?? 'other' }));
  return { status, contentType: 'text/html', body: eta.render(view, { ...model, alternates, favicon: FAVICON }) };
}
