#!/bin/sh
# npm run build: compiles src/ to dist/src/ (tsconfig.build.json) for `node dist/src/main.js`, and
# copies beside the JavaScript the files the code reads next to itself at run time (the HTML
# templates, found through import.meta.dirname), so dist/ runs without src/ or tsx.
set -e
cd "$(dirname "$0")/.."
rm -rf dist
sh scripts/node.sh node_modules/typescript/bin/tsc -p tsconfig.build.json
find src -type f ! -name '*.ts' | while read -r f; do
  mkdir -p "dist/$(dirname "$f")"
  cp "$f" "dist/$f"
done
echo "build: dist/src/main.js (service) and dist/src/worker.js (worker)"
