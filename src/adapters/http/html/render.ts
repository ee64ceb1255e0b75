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

/** Renders `templates/<view>.eta` inside the shared layout. */
export function renderHtml(view: string, model: PageModel, status = 200): Reply {
  const alternates = (model.links ?? []).filter((l) => l.rel === 'alternate');
  return { status, contentType: 'text/html', body: eta.render(view, { ...model, alternates }) };
}
