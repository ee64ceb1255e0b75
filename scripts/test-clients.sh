#!/bin/sh
# npm run test:clients: the checks that go through real external programs: clients (GDAL's OAPIF
# driver, GEOS through GDAL, rasterio, headless Chromium for the HTML pages), servers nobody here wrote
# (MapServer 8 as an OGC API Features backend, nginx in front of the service, two ClickHouse shard
# servers under the zone pyramid store) and the deployment
# files (systemd-analyze, the Dockerfile's check). Each must be installed (.ci/run installs them); a
# missing one fails the run, it is never skipped.
cd "$(dirname "$0")/.."
missing=""
for tool in ogrinfo ogr2ogr gdalinfo mapserv chromium nginx openssl systemd-analyze djxl; do command -v "$tool" >/dev/null || missing="$missing $tool"; done
# The pyramid store's tests start ClickHouse from its Debian path (or testcontainers where Docker is reachable).
if [ -z "${DOCKER_HOST:-}" ] && [ ! -S /var/run/docker.sock ] && [ ! -x "${DGGS_TEST_CLICKHOUSE_SERVER:-/usr/sbin/clickhouse-server}" ]; then missing="$missing clickhouse-server"; fi
for module in rasterio ubjson netCDF4 xarray zarr jsonschema; do
  "${PYTHON:-/usr/bin/python3}" -c "import $module" 2>/dev/null || missing="$missing python3 module $module"
done
if [ -n "$missing" ]; then
  echo "test:clients: missing program(s):$missing (apt-get install gdal-bin cgi-mapserver chromium nginx openssl systemd libjxl-tools clickhouse-server python3-rasterio python3-ubjson python3-netcdf4 python3-xarray python3-zarr python3-jsonschema)" >&2
  exit 1
fi
[ $# -eq 0 ] && set -- 'test/clients/**/*.test.ts'
exec sh scripts/node.sh --import tsx node_modules/mocha/bin/mocha.js "$@"
