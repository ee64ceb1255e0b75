import type { ZoneData } from '../../domain/zone-data.js';
import { mediaType, type Format } from '../../formats/registry.js';
import { encodeZoneData, zoneDataEncoding } from '../../formats/zone-data/encodings.js';
import { profileUri } from '../../formats/zone-data/encoding.js';
import type { Reply } from '../route.js';
import { contentDisposition } from '../../formats/file-names.js';
import { zoneDataHtml } from './zone-data-html.js';
import type { ZoneDataView } from './zone-data-view.js';

/** Zone data in the negotiated format: the format's encoding, or the HTML page. */
export async function zoneDataReply(format: Format, data: ZoneData, view: ZoneDataView): Promise<Reply> {
  const encoding = zoneDataEncoding(format);
  if (!encoding) return zoneDataHtml(data, view);
  const body = await encodeZoneData(encoding, data, view);
  const name = encoding.fileName?.(data);
  const headers: Record<string, string> = {
    ...encoding.headers?.(data, view),
    ...(name ? { 'Content-Disposition': contentDisposition(name) } : {}),
    // OGC 21-038r1 /rec/data-*/profile-links: the profile written, beside the body's own metadata.
    ...(view.profile ? { Link: `<${profileUri(view.profile)}>; rel="profile"` } : {}),
  };
  return { contentType: mediaType(format), body, ...(Object.keys(headers).length > 0 ? { headers } : {}) };
}
