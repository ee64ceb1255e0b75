#!/usr/bin/env python3
"""Makes the demo rasters, deterministically (no randomness: every value is a closed formula).

  data/demo/rasters/elevation.tif   synthetic elevation over lon 5..16, lat 44..48 (EPSG:4326),
                                    float32, nodata -9999 (a "lake" and the south-west corner),
                                    COG: 256x256 tiles, DEFLATE + floating-point predictor, overviews.
  data/demo/stac/catalog.json       static STAC catalog (collection-less: catalog -> item links)
  data/demo/stac/items/*.json       one item per dated NDVI scene, with eo:cloud_cover
  data/demo/stac/scenes/*.tif       the NDVI COGs (float32, nodata -1 where "clouds" are)

Needs GDAL's Python bindings and numpy (Debian: apt-get install -y gdal-bin python3-gdal python3-numpy).
Run from the repository root:  /usr/bin/python3 scripts/demo/make-rasters.py
The outputs are committed (about 1.5 MB together), so only rerun after changing this script.
"""
import json
import math
import os
import sys

import numpy as np
from osgeo import gdal, osr

gdal.UseExceptions()
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))


def write_cog(path, bands, west, north, res_x, res_y, nodata, epsg=4326, wkt=None, blocksize=256):
    """Writes float32 bands as a COG through an in-memory GTiff (the COG driver only copies)."""
    height, width = bands[0].shape
    mem = gdal.GetDriverByName('MEM').Create('', width, height, len(bands), gdal.GDT_Float32)
    mem.SetGeoTransform((west, res_x, 0, north, 0, -res_y))
    srs = osr.SpatialReference()
    if wkt:
        srs.ImportFromWkt(wkt)
    else:
        srs.ImportFromEPSG(epsg)
    mem.SetProjection(srs.ExportToWkt())
    for i, b in enumerate(bands):
        band = mem.GetRasterBand(i + 1)
        band.WriteArray(b.astype(np.float32))
        if nodata is not None:
            band.SetNoDataValue(nodata)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if os.path.exists(path):
        os.remove(path)
    gdal.GetDriverByName('COG').CreateCopy(
        path, mem,
        options=[f'BLOCKSIZE={blocksize}', 'COMPRESS=DEFLATE', 'PREDICTOR=YES', 'OVERVIEWS=IGNORE_EXISTING',
                 'RESAMPLING=AVERAGE', 'OVERVIEW_RESAMPLING=AVERAGE'])


def elevation():
    res = 0.01
    west, east, south, north = 5.0, 16.0, 44.0, 48.0
    w, h = round((east - west) / res), round((north - south) / res)
    lon = west + (np.arange(w) + 0.5) * res
    lat = north - (np.arange(h) + 0.5) * res
    x, y = np.meshgrid(lon, lat)
    # A ridge along 46.5N, a few peaks and gentle waves: smooth, so DEFLATE compresses it well.
    z = 300 + 1800 * np.exp(-((y - 46.5) / 0.9) ** 2)
    for px, py, amp, r in [(7.0, 45.9, 2600, 0.35), (10.5, 46.4, 2200, 0.5), (13.0, 47.1, 1900, 0.4), (8.6, 46.6, 2400, 0.3)]:
        z += amp * np.exp(-(((x - px) ** 2 + (y - py) ** 2) / r ** 2))
    z += 120 * np.sin(x * 3.1) * np.cos(y * 2.3)
    z = np.round(z, 1)
    nodata = -9999.0
    z[((x - 9.0) / 0.4) ** 2 + ((y - 45.3) / 0.25) ** 2 < 1] = nodata  # a "lake" without data
    z[(x < 5.5) & (y < 44.5)] = nodata  # a missing corner
    write_cog(os.path.join(ROOT, 'data/demo/rasters/elevation.tif'), [z], west, north, res, res, nodata)


def ndvi_scenes():
    """Four dated scenes; two cover only part of the area, clouds are nodata (-1)."""
    res = 0.02
    scenes = [
        # id, date, footprint (w, s, e, n), cloud cover percent (of the footprint), season shift
        ('ndvi-2024-05-10', '2024-05-10T10:30:00Z', (5.0, 44.0, 16.0, 48.0), 35.0, 0.00),
        ('ndvi-2024-06-14', '2024-06-14T10:30:00Z', (5.0, 44.0, 16.0, 48.0), 5.0, 0.10),
        ('ndvi-2024-07-19', '2024-07-19T10:30:00Z', (10.0, 44.0, 16.0, 48.0), 2.0, 0.15),
        ('ndvi-2024-08-23', '2024-08-23T10:30:00Z', (5.0, 46.0, 11.0, 48.0), 60.0, 0.05),
    ]
    stac_dir = os.path.join(ROOT, 'data/demo/stac')
    os.makedirs(os.path.join(stac_dir, 'items'), exist_ok=True)
    links = [{'rel': 'root', 'href': './catalog.json', 'type': 'application/json'},
             {'rel': 'self', 'href': './catalog.json', 'type': 'application/json'}]
    for k, (sid, dt, (w0, s0, e0, n0), cloud, shift) in enumerate(scenes):
        w, h = round((e0 - w0) / res), round((n0 - s0) / res)
        lon = w0 + (np.arange(w) + 0.5) * res
        lat = n0 - (np.arange(h) + 0.5) * res
        x, y = np.meshgrid(lon, lat)
        v = 0.35 + 0.3 * np.sin(x * 0.9 + k) * np.cos(y * 1.7) + shift - 0.25 * np.exp(-((y - 46.5) / 0.6) ** 2)
        v = np.clip(np.round(v, 3), -0.99, 0.99)
        # Deterministic "clouds": bands of a fixed pattern covering about `cloud` percent.
        pattern = (np.sin(x * 4.0 + y * 3.0 + k) + 1) / 2
        cloudy = pattern > np.quantile(pattern, 1 - cloud / 100.0)
        v[cloudy] = -1.0
        rel = f'scenes/{sid}.tif'
        write_cog(os.path.join(stac_dir, rel), [v], w0, n0, res, res, -1.0)
        item = {
            'type': 'Feature', 'stac_version': '1.0.0',
            'stac_extensions': ['https://stac-extensions.github.io/eo/v1.1.0/schema.json'],
            'id': sid,
            'bbox': [w0, s0, e0, n0],
            'geometry': {'type': 'Polygon', 'coordinates': [[[w0, s0], [e0, s0], [e0, n0], [w0, n0], [w0, s0]]]},
            'properties': {'datetime': dt, 'eo:cloud_cover': cloud},
            'assets': {'data': {'href': f'../{rel}', 'type': 'image/tiff; application=geotiff; profile=cloud-optimized', 'roles': ['data']}},
            'links': [{'rel': 'root', 'href': '../catalog.json'}, {'rel': 'parent', 'href': '../catalog.json'}],
        }
        with open(os.path.join(stac_dir, 'items', f'{sid}.json'), 'w') as f:
            json.dump(item, f, indent=2)
            f.write('\n')
        links.append({'rel': 'item', 'href': f'./items/{sid}.json', 'type': 'application/geo+json'})
    catalog = {'type': 'Catalog', 'stac_version': '1.0.0', 'id': 'demo-ndvi', 'description': 'Synthetic dated NDVI scenes (dggs-api demo data)', 'links': links}
    with open(os.path.join(stac_dir, 'catalog.json'), 'w') as f:
        json.dump(catalog, f, indent=2)
        f.write('\n')


if __name__ == '__main__':
    elevation()
    ndvi_scenes()
    print('demo rasters written', file=sys.stderr)
