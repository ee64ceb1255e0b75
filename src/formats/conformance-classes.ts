/** Conformance class URIs, exactly as the standards write them. Routes and formats declare the ones they implement. */
const DGGS = 'https://www.opengis.net/spec/ogcapi-dggs-1/1.0/conf';
const COMMON1 = 'http://www.opengis.net/spec/ogcapi-common-1/1.0/conf';
const COMMON2 = 'http://www.opengis.net/spec/ogcapi-common-2/1.0/conf';
const FEATURES1 = 'http://www.opengis.net/spec/ogcapi-features-1/1.0/conf';
const FEATURES3 = 'http://www.opengis.net/spec/ogcapi-features-3/1.0/conf';
const CQL2 = 'http://www.opengis.net/spec/cql2/1.0/conf';
const TILES1 = 'http://www.opengis.net/spec/ogcapi-tiles-1/1.0/conf';

/** `{ key: 'name' }` under a base URI: `{ key: '<base>/name' }`. */
export function uris<K extends string>(base: string, names: Record<K, string>): Record<K, string> {
  return Object.fromEntries(Object.entries(names).map(([k, name]) => [k, `${base}/${name as string}`])) as Record<K, string>;
}

export const CONF = {
  ...uris(COMMON1, { commonCore: 'core', commonLandingPage: 'landing-page', commonJson: 'json', commonHtml: 'html', commonOas30: 'oas30' }),
  ...uris(COMMON2, { collections: 'collections', collectionsHtml: 'html', collectionsJson: 'json' }),
  ...uris(DGGS, {
    dggsCore: 'core',
    dggsRoot: 'root-dggs',
    dggsCollection: 'collection-dggs',
    dggsZoneQuery: 'zone-query',
    dggsZoneHtml: 'zone-html',
    dggsZoneGeojson: 'zone-geojson',
    dggsDataRetrieval: 'data-retrieval',
    dggsDataCustomDepths: 'data-custom-depths',
    dggsDataSubsetting: 'data-subsetting',
    dggsDataJson: 'data-json',
    dggsDataUbjson: 'data-ubjson',
    dggsDataJsonFg: 'data-dggs-jsonfg',
    dggsDataUbjsonFg: 'data-dggs-ubjsonfg',
    dggsDataZarr: 'data-zarr',
    dggsZoneUint64: 'zone-uint64',
    dggsDataGeojson: 'data-geojson',
    dggsDataCql2Filter: 'data-cql2-filter',
    dggsZoneQueryCql2Filter: 'zone-query-cql2-filter',
    dggsDataGeotiff: 'data-geotiff',
    dggsZoneGeotiff: 'zone-geotiff',
    dggsOperationIds: 'operation-ids',
    dggsDataNetcdf: 'data-netcdf',
    dggsDataCoveragejson: 'data-coveragejson',
    dggsDataPng: 'data-png',
    dggsDataJpegxl: 'data-jpegxl',
  }),
  ...uris(FEATURES1, { featuresCore: 'core', featuresGeojson: 'geojson', featuresHtml: 'html', featuresOas30: 'oas30' }),
  ...uris(FEATURES3, { featuresFilter: 'filter', featuresFeaturesFilter: 'features-filter', featuresQueryables: 'queryables' }),
  ...uris(TILES1, { tilesCore: 'core', tilesTileset: 'tileset', tilesTilesetsList: 'tilesets-list', tilesGeodataTilesets: 'geodata-tilesets', tilesMvt: 'mvt' }),
  ...uris(CQL2, {
    cql2Text: 'cql2-text',
    cql2Json: 'cql2-json',
    cql2Basic: 'basic-cql2',
    cql2AdvancedComparison: 'advanced-comparison-operators',
    cql2CaseInsensitive: 'case-insensitive-comparison',
    cql2AccentInsensitive: 'accent-insensitive-comparison',
    cql2BasicSpatial: 'basic-spatial-functions',
    cql2BasicSpatialPlus: 'basic-spatial-functions-plus',
    cql2Spatial: 'spatial-functions',
    cql2Temporal: 'temporal-functions',
    cql2Arithmetic: 'arithmetic',
    cql2PropertyProperty: 'property-property',
  }),
};
