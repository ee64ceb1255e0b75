/** Conformance class URIs, exactly as the standards write them. Routes declare the ones they implement. */
const DGGS = 'https://www.opengis.net/spec/ogcapi-dggs-1/1.0/conf';
const COMMON1 = 'http://www.opengis.net/spec/ogcapi-common-1/1.0/conf';
const COMMON2 = 'http://www.opengis.net/spec/ogcapi-common-2/1.0/conf';
const FEATURES1 = 'http://www.opengis.net/spec/ogcapi-features-1/1.0/conf';
const FEATURES3 = 'http://www.opengis.net/spec/ogcapi-features-3/1.0/conf';
const CQL2 = 'http://www.opengis.net/spec/cql2/1.0/conf';

export const CONF = {
  commonCore: `${COMMON1}/core`,
  commonLandingPage: `${COMMON1}/landing-page`,
  commonJson: `${COMMON1}/json`,
  commonHtml: `${COMMON1}/html`,
  commonOas30: `${COMMON1}/oas30`,
  collections: `${COMMON2}/collections`,
  collectionsHtml: `${COMMON2}/html`,
  collectionsJson: `${COMMON2}/json`,
  dggsCore: `${DGGS}/core`,
  dggsRoot: `${DGGS}/root-dggs`,
  dggsCollection: `${DGGS}/collection-dggs`,
  dggsZoneQuery: `${DGGS}/zone-query`,
  dggsZoneHtml: `${DGGS}/zone-html`,
  dggsZoneGeojson: `${DGGS}/zone-geojson`,
  dggsDataRetrieval: `${DGGS}/data-retrieval`,
  dggsDataCustomDepths: `${DGGS}/data-custom-depths`,
  dggsDataSubsetting: `${DGGS}/data-subsetting`,
  dggsDataJson: `${DGGS}/data-json`,
  dggsDataUbjson: `${DGGS}/data-ubjson`,
  dggsDataJsonFg: `${DGGS}/data-dggs-jsonfg`,
  dggsZoneUint64: `${DGGS}/zone-uint64`,
  dggsDataGeojson: `${DGGS}/data-geojson`,
  dggsDataCql2Filter: `${DGGS}/data-cql2-filter`,
  dggsZoneQueryCql2Filter: `${DGGS}/zone-query-cql2-filter`,
  dggsOperationIds: `${DGGS}/operation-ids`,
  featuresCore: `${FEATURES1}/core`,
  featuresGeojson: `${FEATURES1}/geojson`,
  featuresHtml: `${FEATURES1}/html`,
  featuresOas30: `${FEATURES1}/oas30`,
  featuresFilter: `${FEATURES3}/filter`,
  featuresFeaturesFilter: `${FEATURES3}/features-filter`,
  featuresQueryables: `${FEATURES3}/queryables`,
  cql2Text: `${CQL2}/cql2-text`,
  cql2Json: `${CQL2}/cql2-json`,
  cql2Basic: `${CQL2}/basic-cql2`,
  cql2AdvancedComparison: `${CQL2}/advanced-comparison-operators`,
  cql2CaseInsensitive: `${CQL2}/case-insensitive-comparison`,
  cql2AccentInsensitive: `${CQL2}/accent-insensitive-comparison`,
  cql2BasicSpatial: `${CQL2}/basic-spatial-functions`,
  cql2BasicSpatialPlus: `${CQL2}/basic-spatial-functions-plus`,
  cql2Spatial: `${CQL2}/spatial-functions`,
  cql2Temporal: `${CQL2}/temporal-functions`,
  cql2Arithmetic: `${CQL2}/arithmetic`,
  cql2PropertyProperty: `${CQL2}/property-property`,
} as const;
