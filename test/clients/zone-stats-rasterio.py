#!/usr/bin/env python3
"""Exact zonal statistics with rasterio (GDAL's rasterizer): the reference the service's raster
zone values are judged against in test/clients/zone-values-rasterio.test.ts.

Reads a JSON request on stdin:
  {"raster": {"path": "x.tif"}                                  a GeoTIFF, band 1, its own nodata
          or {"raw": "x.f32", "width": w, "height": h,          float32 pixels, row-major, NaN nodata
              "transform": [a, b, c, d, e, f], "crs": "EPSG:3857"},
   "layers": [{"key": "...", "zones": [{"id": "...", "rings": [[[lon, lat], ...]], "centroid": [lon, lat]}]}]}
and writes {key: {zone id: {count, valid, mean, min, max, stdDev, median} | null}} to stdout.

Each layer's zone polygons (lon/lat, reprojected to the raster's CRS by GDAL) are burnt with
all_touched=False: a pixel belongs to the zone whose polygon holds its centre. count is every such
pixel, valid those with a value. A zone holding no pixel centre gets the pixel under its
centroid (null off the raster), as the service answers.
"""
import json
import sys

import numpy as np
import rasterio
from rasterio.features import rasterize
from rasterio.transform import Affine, rowcol
from rasterio.warp import transform as warp_points, transform_geom


def load(spec):
    if 'path' in spec:
        with rasterio.open(spec['path']) as ds:
            band = ds.read(1, masked=True)
            return np.ma.filled(band.astype('float64'), np.nan), ds.transform, ds.crs
    data = np.fromfile(spec['raw'], dtype='<f4').astype('float64').reshape(spec['height'], spec['width'])
    return data, Affine(*spec['transform']), rasterio.crs.CRS.from_string(spec['crs'])


def stats(values, count):
    valid = values[~np.isnan(values)]
    if valid.size == 0:
        return {'count': int(count), 'valid': 0, 'mean': None, 'min': None, 'max': None, 'stdDev': None, 'median': None}
    return {'count': int(count), 'valid': int(valid.size), 'mean': float(valid.mean()), 'min': float(valid.min()),
            'max': float(valid.max()), 'stdDev': float(valid.std()), 'median': float(np.median(valid))}


def main():
    req = json.load(sys.stdin)
    data, transform, crs = load(req['raster'])
    height, width = data.shape
    geographic = crs.is_geographic
    out = {}
    for layer in req['layers']:
        zones = layer['zones']
        geoms = [{'type': 'Polygon', 'coordinates': z['rings']} for z in zones]
        if not geographic:
            geoms = transform_geom('EPSG:4326', crs, geoms)
        shapes = [(geom, i + 1) for i, geom in enumerate(geoms)]
        labels = rasterize(shapes, out_shape=(height, width), transform=transform, all_touched=False, fill=0, dtype='int32')
        flat_labels = labels.ravel()
        flat = data.ravel()
        order = np.argsort(flat_labels, kind='stable')
        # Where each label's pixels start in label order (label i + 1 is zones[i]).
        starts = np.searchsorted(flat_labels[order], np.arange(1, len(zones) + 2, dtype=flat_labels.dtype))
        result = {}
        for i, z in enumerate(zones):
            lo, hi = starts[i], starts[i + 1]
            if hi > lo:
                result[z['id']] = stats(flat[order[lo:hi]], hi - lo)
                continue
            lon, lat = z['centroid']
            xs, ys = ([lon], [lat]) if geographic else warp_points('EPSG:4326', crs, [lon], [lat])
            row, col = rowcol(transform, xs[0], ys[0])
            result[z['id']] = stats(np.array([data[row, col]]), 1) if 0 <= row < height and 0 <= col < width else None
        out[layer['key']] = result
    sys.stdout.write(json.dumps(out))


if __name__ == '__main__':
    main()
