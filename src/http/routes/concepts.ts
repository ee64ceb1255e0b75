import { z } from '../schemas/zod.js';
import { ConceptIdResponse, ConceptsResponse } from '../schemas/concepts.js';
import { defineRoute, json } from '../route.js';
import { responses } from '../responses.js';
import { renderHtml } from '../html/render.js';
import { formatParam, queryInteger } from '../schemas/query.js';
import { NotFoundError } from '../../ports/errors.js';
import type { RouteModule } from '../route-module.js';
import type { ConceptStore } from '../../ports/datastore.js';
import { offeredBy } from '../../formats/registry.js';

const FORMATS = offeredBy('resource');

/** The taxonomy of concepts tied to collections and processing settings. */
/** `ready` throws (503) until the datastore is initialised. */
export function conceptRoutes(store: ConceptStore, ready: () => Promise<void>): RouteModule {
  return {
    routes: [
      defineRoute({
        method: 'get',
        path: '/concepts',
        operationId: 'getConcepts',
        summary: 'The taxonomy of concepts',
        tags: ['Concepts'],
        query: z.object({ f: formatParam(FORMATS) }),
        formats: FORMATS,
        responses: responses({ description: 'All concepts', schema: ConceptsResponse, formats: FORMATS }, [406, 503]),
        // Seeded by the version's migrations, never written by requests.
        validators: 'request',
        handler: async ({ links, format }) => {
          await ready();
          const concepts = await store.listConcepts();
          const selfLinks = links.selfAndAlternates('/concepts', format, FORMATS, {}, 'Concepts');
          if (format === 'html') return renderHtml('concepts', { title: 'Concepts', crumbs: [['Home', links.href('/')], ['Concepts', '']], links: selfLinks, concepts, href: (id: number) => links.href(`/concepts/${id}`, { f: 'html' }) });
          return json({ concepts, links: selfLinks });
        },
      }),
      defineRoute({
        method: 'get',
        path: '/concepts/{concept_id}',
        operationId: 'getConcept',
        summary: 'One concept',
        tags: ['Concepts'],
        params: z.object({ concept_id: queryInteger('Concept identifier', { min: 0, max: 2 ** 31 - 1 }).unwrap() }),
        query: z.object({ f: formatParam(FORMATS) }),
        formats: FORMATS,
        responses: responses({ description: 'The concept', schema: ConceptIdResponse, formats: FORMATS }, [400, 404, 406, 503]),
        validators: 'request',
        handler: async ({ params, links, format }) => {
          await ready();
          const concept = await store.getConcept(params.concept_id);
          if (!concept) throw new NotFoundError('Concept not found', 'List the concepts at /concepts.');
          if (format === 'html') {
            return renderHtml('concept', {
              title: concept.ui_label,
              crumbs: [['Home', links.href('/')], ['Concepts', links.href('/concepts', { f: 'html' })], [concept.ui_label, '']],
              links: links.selfAndAlternates(`/concepts/${concept.id}`, format, FORMATS),
              concept,
              collectionHref: (id: string) => links.href(`/collections/${encodeURIComponent(id)}`, { f: 'html' }),
            });
          }
          return json(concept);
        },
      }),
    ],
  };
}
