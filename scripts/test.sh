#!/bin/sh
# npm test [-- spec...]: the whole suite, or only the given spec files/globs.
cd "$(dirname "$0")/.."
[ $# -eq 0 ] && set -- 'test/**/*.test.ts'
exec sh scripts/node.sh --import tsx node_modules/mocha/bin/mocha.js "$@"
