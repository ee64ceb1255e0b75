import { createReadStream } from 'node:fs';
import path from 'node:path';
import { z } from '../schemas/zod.js';
import { CollectionIdParam } from '../schemas/common.js';
import { defineRoute, type AnyRoute } from '../route.js';
import { responses } from '../responses.js';
import type { SourceFiles } from '../source-files.js';
import { byteRange } from '../byte-range.js';
import { HttpRefusal } from '../http-errors.js';
import { NotFoundError } from '../../ports/errors.js';
import { contentDisposition } from '../../formats/file-names.js';
import type { CollectionsService } from '../../app/collections/collections-service.js';

/** A local file a collection is read from, with byte ranges. */
export function collectionSourceFileRoute(service: CollectionsService, sources: SourceFiles): AnyRoute {
  return defineRoute({
    method: 'get',
    path: '/collections/{collection_id}/source/{name}',
    operationId: 'getCollectionSourceFile',
    summary: 'A local file the collection is read from (its raster, or its STAC catalog, items and assets), read-only, with byte ranges',
    description:
      'Only the files the collection\'s configuration names are served: a raster-url collection\'s file, and a static STAC catalog on disk with what it links. ' +
      '`name` is the path relative to the configured file\'s directory (one URL segment: `/` written `%2F`). `Range: bytes=a-b` answers 206, so GDAL and QGIS can read a COG in place (`/vsicurl/`). Remote sources are linked directly, never served here.',
    tags: ['Collections'],
    params: z.object({ collection_id: CollectionIdParam, name: z.string().max(1024).openapi({ param: { name: 'name', in: 'path' }, description: 'File path relative to the configured file\'s directory', example: 'elevation.tif' }) }),
    responses: {
      200: { description: 'The whole file', content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } } },
      206: { description: 'The requested byte range', content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } } },
      ...responses({ description: 'unused', schema: z.object({}) }, [404, 416]),
    },
    // The file's own size and modification time.
    validators: {
      source: async ({ params }) => {
        const f = await sources.open(service.get(params.collection_id), params.name);
        return f ? { id: `${f.size}:${f.mtimeMs}`, modifiedMs: f.mtimeMs } : undefined;
      },
    },
    handler: async ({ params, req, etag }) => {
      const c = service.get(params.collection_id);
      const f = await sources.open(c, params.name);
      if (!f) throw new NotFoundError('Source file not found', `Collection "${c.id}" serves only the local files its configuration names; its links with rel "source" point to them.`);
      const headers: Record<string, string> = { 'Accept-Ranges': 'bytes', 'Content-Disposition': contentDisposition(path.basename(f.file), 'inline') };
      const ifRange = req.header('if-range');
      const range = ifRange === undefined || ifRange === etag ? byteRange(req.header('range'), f.size) : undefined;
      if (range === 'unsatisfiable') throw new HttpRefusal(416, 'Range not satisfiable', `The file has ${f.size} bytes; ask for bytes=0-${Math.max(0, f.size - 1)} or a part of them.`, { 'Content-Range': `bytes */${f.size}` });
      if (range) {
        headers['Content-Range'] = `bytes ${range.start}-${range.end}/${f.size}`;
        headers['Content-Length'] = String(range.end - range.start + 1);
        return { status: 206, contentType: f.type, body: createReadStream(f.file, range), headers };
      }
      headers['Content-Length'] = String(f.size);
      return { contentType: f.type, body: createReadStream(f.file), headers };
    },
  });
}
