#!/bin/sh
# npm test [-- spec...]: the whole suite, or only the given spec files/globs. Tests through external
# clients (GDAL, headless Chromium) live in test/clients and run with `npm run test:clients`.
cd "$(dirname "$0")/.."
[ $# -eq 0 ] && set -- 'test/**/*.test.ts' --ignore 'test/clients/**'
exec sh scripts/node.sh --import tsx node_modules/mocha/bin/mocha.js "$@"
