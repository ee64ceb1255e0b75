/** Injection tokens: one per port and per shared value. */
export const TOKENS = {
  Config: Symbol.for('Config'),
  Logger: Symbol.for('Logger'),
  GridRegistry: Symbol.for('GridRegistry'),
  CollectionCatalog: Symbol.for('CollectionCatalog'),
  FieldSources: Symbol.for('FieldSources'),
  DatastoreAdmin: Symbol.for('DatastoreAdmin'),
  ConceptStore: Symbol.for('ConceptStore'),
  OrderStore: Symbol.for('OrderStore'),
  TokenVerifier: Symbol.for('TokenVerifier'),
  LakeReader: Symbol.for('LakeReader'),
  RasterReader: Symbol.for('RasterReader'),
  CollectionsService: Symbol.for('CollectionsService'),
  ZoneDataService: Symbol.for('ZoneDataService'),
} as const;
