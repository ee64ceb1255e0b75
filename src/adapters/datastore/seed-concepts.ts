import type { Concept } from '../../ports/datastore.js';

/** Reference concepts seeded by initialisation: what the demo collections measure. */
export const SEED_CONCEPTS: Concept[] = [
  {
    id: 1,
    name: 'surface_elevation',
    ui_label: 'Surface elevation',
    ui_description: 'Height of the terrain above the reference ellipsoid, aggregated per zone.',
    category: 'terrain',
    collections: [{ id: 'demo-elevation', properties: { elevation: { title: 'Elevation', type: 'number', svc_unit: 'm' } } }],
    processing: [{ derived_indice: 'mean_elevation', dggs_refinement_level: 7, color_ramp: 'terrain', notes: null }],
  },
  {
    id: 2,
    name: 'vegetation_index',
    ui_label: 'Vegetation index',
    ui_description: 'Normalised difference vegetation index from dated scenes of a STAC catalog.',
    category: 'land-cover',
    collections: [{ id: 'demo-ndvi', properties: { ndvi: { title: 'NDVI', type: 'number' } } }],
    processing: [{ derived_indice: 'ndvi_latest', dggs_refinement_level: 8, color_ramp: 'greens', notes: 'Cloud cover at most 20 %.' }],
  },
  {
    id: 3,
    name: 'weather_observations',
    ui_label: 'Weather observations',
    ui_description: 'Point observations from weather stations, aggregated per zone.',
    category: 'meteorology',
    collections: [{ id: 'demo-stations', properties: { temperature: { title: 'Temperature', type: 'number', svc_unit: '°C' } } }],
    processing: [{ derived_indice: 'mean_temperature', dggs_refinement_level: 5, color_ramp: 'thermal', notes: null }],
  },
];
