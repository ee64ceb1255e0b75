import type { ZoneDataContext } from '../../formats/zone-data/encoding.js';
import type { Link } from '../schemas/common.js';

/** What a zone-data answer is drawn from: the encoders' context, and the page's title and crumbs. */
export interface ZoneDataView extends ZoneDataContext {
  links: Link[];
  title: string;
  crumbs: [string, string][];
}
