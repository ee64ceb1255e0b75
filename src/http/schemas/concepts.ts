import { z } from './zod.js';
import { Link, SchemaProperty } from './common.js';

export const ConceptCollectionResponse = z.object({ id: z.string(), properties: z.record(z.string(), SchemaProperty) }).openapi('ConceptCollectionResponse');
export const ConceptProcessingResponse = z
  .object({ derived_indice: z.string(), dggs_refinement_level: z.number().int(), color_ramp: z.string().nullish(), notes: z.string().nullish() })
  .openapi('ConceptProcessingResponse');
export const ConceptIdResponse = z
  .object({
    id: z.number().int().min(0),
    name: z.string(),
    ui_label: z.string(),
    ui_description: z.string(),
    category: z.string(),
    collections: z.array(ConceptCollectionResponse),
    processing: z.array(ConceptProcessingResponse),
  })
  .openapi('ConceptIdResponse');
export const ConceptsResponse = z.object({ concepts: z.array(ConceptIdResponse), links: z.array(Link) }).openapi('ConceptsResponse');
