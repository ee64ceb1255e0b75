import { remoteZoneDataSuite } from '../support/remote/remote-zone-data-suite.js';

// MapServer's run of the same suite is in test/clients/mapserver.test.ts (npm run test:clients).
remoteZoneDataSuite(false);
