// The HTML pages' interactive map: reads the page's JSON config (<script id="map-config">, written
// by src/http/html/render.ts) and draws it with MapLibre over the basemap style. Plain ES module,
// no build step. The page's SVG stays as the fallback: it is hidden only once the map has loaded.
// The tests of test/clients/maps-chromium.test.ts read `data-map-state` and `window.__map`.
import * as maplibregl from './maplibre-gl.mjs';

const NO_VALUE = '#9aa5b1';
/** The one layer of the service's vector tiles (src/formats/mvt.ts). */
const TILE_LAYER = 'zones';
const ROLE_COLOURS = { zone: '#0b6bcb', parent: '#8aa0b6', neighbour: '#f2f5f8', child: '#5ec962', feature: '#d9480f' };

const config = JSON.parse(document.getElementById('map-config').textContent);
const frame = document.querySelector('[data-map-frame]');
if (frame) start(config, frame);

function start(cfg, frame) {
  const fallback = frame.querySelector('svg.map');
  const panel = el('div', { class: 'map-panel' });
  const container = el('div', { class: 'map-canvas' });
  frame.prepend(panel, container);
  frame.dataset.mapState = 'loading';
  let map;
  try {
    map = new maplibregl.Map({ container, style: cfg.style, bounds: cfg.fit ? boundsOf(cfg.fit) : undefined, fitBoundsOptions: { padding: 20 }, attributionControl: { compact: true }, renderWorldCopies: true });
  } catch (err) {
    // No WebGL: the SVG stays.
    container.remove();
    panel.remove();
    frame.dataset.mapState = 'failed';
    console.warn('map: no interactive map', err);
    return;
  }
  window.__map = map;
  map.addControl(new maplibregl.NavigationControl({ showCompass: false }));
  // The first data the map cannot read (a tile the service refuses, say, with its reason) is said
  // under the map's controls.
  map.on('error', async (e) => {
    console.warn('map:', e.error);
    if (panel.querySelector('.map-error')) return;
    // Said at once, so that the errors of the next tiles keep away; its reason follows.
    const pending = showError(panel, '…');
    const reason = e.error?.body?.text ? serviceError(e.error.status, await e.error.body.text().catch(() => '')) : e.error?.message;
    if (pending.isConnected) showError(panel, reason);
  });
  map.on('load', async () => {
    // The SVG, its caption and what else describes it only (data-map-fallback) give way to the map.
    if (fallback) fallback.style.display = 'none';
    frame.querySelector(':scope > .caption')?.setAttribute('hidden', '');
    document.querySelectorAll('[data-map-fallback]').forEach((e) => e.setAttribute('hidden', ''));
    if (cfg.caption) container.after(el('div', { class: 'caption' }, cfg.caption));
    try {
      await addContent(map, cfg, panel);
    } catch (err) {
      showError(panel, err.message);
    }
    map.once('idle', () => {
      frame.dataset.mapState = 'idle';
      window.__mapIdle = true;
    });
  });
}

async function addContent(map, cfg, panel) {
  if (cfg.choropleth) return choropleth(map, cfg, panel);
  if (cfg.outlines) return outlines(map, cfg);
  const data = cfg.data ?? (await fetchJson(cfg.dataUrl));
  map.addSource('content', { type: 'geojson', data });
  // A feature's colour by its `role` (zone info), else the page's (`cfg.role`).
  const colour = ['match', ['get', 'role'], ...Object.entries(ROLE_COLOURS).flat(), ROLE_COLOURS[cfg.role] ?? ROLE_COLOURS.feature];
  const polygons = ['==', ['geometry-type'], 'Polygon'];
  map.addLayer({ id: 'fill', type: 'fill', source: 'content', filter: polygons, paint: { 'fill-color': colour, 'fill-opacity': ['match', ['get', 'role'], 'child', 0.25, 'parent', 0.3, 0.45] } });
  map.addLayer({ id: 'outline', type: 'line', source: 'content', filter: ['!=', ['geometry-type'], 'Point'], paint: { 'line-color': '#0b4f94', 'line-width': 1 } });
  map.addLayer({ id: 'points', type: 'circle', source: 'content', filter: ['==', ['geometry-type'], 'Point'], paint: { 'circle-color': colour, 'circle-radius': 4, 'circle-stroke-color': '#fff', 'circle-stroke-width': 1 } });
  if (!cfg.fit) fit(map, data);
  const tip = (f) => f.properties.title ?? f.properties[cfg.idProperty] ?? f.id;
  interact(map, cfg, ['fill', 'points'], tip);
  if (cfg.drawBox) drawBox(map, panel, cfg.drawBox);
}

/** A grid's zones from its vector tiles: a faint fill (what hover and click find) under the outlines. */
function outlines(map, cfg) {
  map.addSource('content', { type: 'vector', url: new URL(cfg.outlines.tileJson, location.href).href });
  const layer = { source: 'content', 'source-layer': TILE_LAYER };
  map.addLayer({ id: 'fill', type: 'fill', ...layer, paint: { 'fill-color': ROLE_COLOURS.zone, 'fill-opacity': 0.12 } });
  map.addLayer({ id: 'outline', type: 'line', ...layer, paint: { 'line-color': '#0b4f94', 'line-width': 0.8 } });
  interact(map, cfg, ['fill'], (f) => f.properties[cfg.idProperty]);
}

/** Zones coloured by one numeric field, with a field picker, a legend and (zone data) depth and datetime pickers. */
async function choropleth(map, cfg, panel) {
  const c = cfg.choropleth;
  const fields = c.schemaUrl ? numericFields(await fetchJson(c.schemaUrl)) : c.fields;
  if (!fields.length) return panel.append(el('span', { class: 'caption' }, 'No numeric field to draw.'));
  const state = { field: fields[0].name, depth: c.depth, datetime: c.datetime ?? '' };
  const fieldPicker = select('Field', fields.map((f) => [f.name, f.title && f.title !== f.name ? `${f.title} (${f.name})` : f.name]), state.field);
  panel.append(fieldPicker.label);
  let depthPicker, timeInput;
  if (c.depths) {
    depthPicker = select('Depth', c.depths.map((d) => [String(d), String(d)]), String(state.depth));
    panel.append(depthPicker.label);
  }
  if (c.datetime !== undefined) {
    timeInput = el('input', { type: 'text', size: '24', placeholder: 'e.g. 2024-05-01T00:00:00Z', value: state.datetime });
    panel.append(el('label', {}, 'Datetime ', timeInput));
  }
  const legend = el('div', { class: 'map-legend' });
  panel.append(legend);

  const vector = c.tileJson !== undefined;
  let values = [];
  const layer = vector ? { source: 'content', 'source-layer': TILE_LAYER } : { source: 'content' };
  // A vector source's URL cannot change: another datetime is another source, under the same layers.
  const addSource = (source) => {
    if (map.getSource('content')) ['outline', 'fill'].forEach((id) => map.removeLayer(id)), map.removeSource('content');
    map.addSource('content', source);
    map.addLayer({ id: 'fill', type: 'fill', ...layer, paint: { 'fill-color': NO_VALUE, 'fill-opacity': 0.8 } });
    map.addLayer({ id: 'outline', type: 'line', ...layer, paint: { 'line-color': '#ffffff', 'line-opacity': 0.5, 'line-width': 0.5 } });
  };
  const tileJson = () => {
    const url = new URL(c.tileJson, location.href);
    if (state.datetime) url.searchParams.set('datetime', state.datetime);
    return url.href;
  };
  addSource(vector ? { type: 'vector', url: tileJson() } : { type: 'geojson', data: { type: 'FeatureCollection', features: [] } });

  const restyle = () => {
    // Adding a source tells 'sourcedata' before its layers are back.
    if (!map.getLayer('fill')) return;
    const meta = fields.find((f) => f.name === state.field) ?? {};
    const seen = values.filter((v) => typeof v === 'number' && Number.isFinite(v));
    let min = meta.minimum ?? Math.min(...seen);
    let max = meta.maximum ?? Math.max(...seen);
    if (!Number.isFinite(min) || !Number.isFinite(max)) [min, max] = [0, 0];
    const span = max > min ? max - min : 1;
    const stops = c.ramp.flatMap((colour, i) => [min + (span * i) / (c.ramp.length - 1), colour]);
    const value = ['get', state.field];
    const missing = ['!=', ['typeof', value], 'number'];
    map.setPaintProperty('fill', 'fill-color', ['case', missing, NO_VALUE, ['interpolate', ['linear'], value, ...stops]]);
    map.setPaintProperty('fill', 'fill-opacity', ['case', missing, 0.3, c.opacity]);
    legend.replaceChildren(
      el('div', { class: 'map-ramp', style: `background:linear-gradient(to right, ${c.ramp.join(', ')})` }),
      el('div', { class: 'map-ramp-ends mono' }, el('span', {}, fmt(min)), el('span', {}, fmt(max))),
      el('div', { class: 'caption' }, `${meta.title ?? state.field}${meta.unit ? ` (${meta.unit})` : ''}; grey: no value`),
    );
  };
  // Tiles: min and max from the features loaded so far (when the field's metadata has none).
  const sampleTiles = () => {
    values = map.querySourceFeatures('content', { sourceLayer: TILE_LAYER }).map((f) => f.properties[state.field]);
    restyle();
  };
  const reload = async () => {
    if (vector) return sampleTiles();
    const url = new URL(cfg.dataUrl, location.href);
    url.searchParams.set('f', 'geo+json');
    url.searchParams.set('properties', state.field);
    if (state.depth !== undefined) url.searchParams.set('zone-depth', String(state.depth));
    if (state.datetime) url.searchParams.set('datetime', state.datetime);
    else url.searchParams.delete('datetime');
    const data = await fetchJson(url.href);
    map.getSource('content').setData(data);
    values = data.features.map((f) => f.properties[state.field]);
    restyle();
    if (!cfg.fit && !fitted) (fitted = true), fit(map, data);
  };
  let fitted = false;
  // A pick the service refuses (a depth past limits.maxSubZones, say) says why under the pickers.
  const refresh = () => {
    panel.querySelectorAll('.map-error').forEach((e) => e.remove());
    reload().catch((err) => showError(panel, err.message));
  };
  fieldPicker.input.addEventListener('change', () => ((state.field = fieldPicker.input.value), refresh()));
  depthPicker?.input.addEventListener('change', () => ((state.depth = Number(depthPicker.input.value)), refresh()));
  timeInput?.addEventListener('change', () => {
    state.datetime = timeInput.value.trim();
    if (vector) addSource({ type: 'vector', url: tileJson() });
    refresh();
  });
  if (vector) map.on('sourcedata', (e) => e.sourceId === 'content' && e.isSourceLoaded && sampleTiles());
  await reload();
  interact(map, cfg, ['fill'], (f) => `${f.properties[cfg.idProperty] ?? f.id}: ${fmt(f.properties[state.field])}`);
}

/** The numeric properties of a JSON Schema, as choropleth fields. */
function numericFields(schema) {
  return Object.entries(schema.properties ?? {})
    .filter(([, p]) => p.type === 'number' || p.type === 'integer')
    .map(([name, p]) => ({ name, title: p.title, unit: p.svc_unit, minimum: p.minimum, maximum: p.maximum }));
}

/** Hover popups (the zone and its value) and click-through to the feature's page. */
function interact(map, cfg, layers, text) {
  const popup = new maplibregl.Popup({ closeButton: false, closeOnClick: false, className: 'map-tip' });
  map.on('mousemove', (e) => {
    const f = map.queryRenderedFeatures(e.point, { layers })[0];
    map.getCanvas().style.cursor = f && hrefOf(cfg, f) ? 'pointer' : '';
    if (!f) return popup.remove();
    popup.setLngLat(e.lngLat).setText(text(f)).addTo(map);
  });
  map.on('mouseout', () => popup.remove());
  map.on('click', (e) => {
    if (map.__drawing) return;
    const f = map.queryRenderedFeatures(e.point, { layers })[0];
    const href = f && hrefOf(cfg, f);
    if (href) location.href = href;
  });
}

function hrefOf(cfg, f) {
  if (f.properties.href) return f.properties.href;
  const id = f.properties[cfg.idProperty] ?? f.id;
  return cfg.hrefTemplate && id !== undefined ? cfg.hrefTemplate.replace('{id}', encodeURIComponent(id)) : undefined;
}

/** "Draw box": the next drag on the map draws a box that fills the form's bbox field. */
function drawBox(map, panel, inputName) {
  const input = document.querySelector(`input[name="${inputName}"]`);
  if (!input) return;
  const button = el('button', { type: 'button' }, 'Draw box');
  panel.append(button, el('span', { class: 'caption' }, ' then drag on the map: fills bbox'));
  map.addSource('draw-box', { type: 'geojson', data: { type: 'FeatureCollection', features: [] } });
  map.addLayer({ id: 'draw-box', type: 'line', source: 'draw-box', paint: { 'line-color': '#d9480f', 'line-width': 2, 'line-dasharray': [2, 1] } });
  let start;
  const box = (a, b) => [Math.min(a.lng, b.lng), Math.min(a.lat, b.lat), Math.max(a.lng, b.lng), Math.max(a.lat, b.lat)];
  const show = ([w, s, e, n]) => map.getSource('draw-box').setData({ type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates: [[[w, s], [e, s], [e, n], [w, n], [w, s]]] } });
  button.addEventListener('click', () => {
    map.__drawing = true;
    map.dragPan.disable();
    map.getCanvas().style.cursor = 'crosshair';
  });
  map.on('mousedown', (e) => {
    if (map.__drawing) start = e.lngLat;
  });
  map.on('mousemove', (e) => start && show(box(start, e.lngLat)));
  map.on('mouseup', (e) => {
    if (!start) return;
    const b = box(start, e.lngLat);
    show(b);
    // Longitudes beyond ±180 (a box over the antimeridian): the API takes west > east there.
    const wrap = (x) => ((((x + 180) % 360) + 360) % 360) - 180;
    input.value = [wrap(b[0]), b[1], wrap(b[2]), b[3]].map((v) => Number(v.toFixed(4))).join(',');
    start = undefined;
    map.dragPan.enable();
    map.getCanvas().style.cursor = '';
    setTimeout(() => (map.__drawing = false));
  });
}

/** Fits the map to GeoJSON's extent, the narrower of the -180..180 and 0..360 readings (antimeridian). */
function fit(map, data) {
  const lons = [];
  const lats = [];
  const walk = (c) => (typeof c[0] === 'number' ? (lons.push(c[0]), lats.push(c[1])) : c.forEach(walk));
  const features = data.type === 'FeatureCollection' ? data.features : [data];
  features.forEach((f) => f.geometry && walk(f.geometry.coordinates ?? []));
  if (!lons.length) return;
  const east = lons.map((x) => (x < 0 ? x + 360 : x));
  const [w1, e1, w2, e2] = [Math.min(...lons), Math.max(...lons), Math.min(...east), Math.max(...east)];
  const [w, e] = e2 - w2 < e1 - w1 ? [w2, e2] : [w1, e1];
  const [s, n] = [Math.min(...lats), Math.max(...lats)];
  // One point: some surroundings rather than the deepest zoom.
  if (e - w < 1e-9 && n - s < 1e-9) return map.jumpTo({ center: [w, s], zoom: 8 });
  map.fitBounds([[w, s], [e, n]], { padding: 20, maxZoom: 12, animate: false });
}

/** [w, s, e, n] to MapLibre bounds; west > east crosses the antimeridian. */
function boundsOf([w, s, e, n]) {
  return [[w, Math.max(s, -85)], [e < w ? e + 360 : e, Math.min(n, 85)]];
}

/** Says under the map's controls why its data could not be loaded, in place of what was said before; returns the note. */
function showError(panel, reason) {
  panel.querySelector('.map-error')?.remove();
  const note = el('div', { class: 'map-error' }, `Map data could not be loaded: ${reason ?? 'error'}`);
  panel.append(note);
  return note;
}

async function fetchJson(url) {
  const res = await fetch(url, { headers: { Accept: 'application/geo+json, application/json' } });
  if (!res.ok) throw new Error(serviceError(res.status, await res.text().catch(() => '')));
  return res.json();
}

/** The service's error answer ({code, message, hint}) as one line. */
function serviceError(status, text) {
  try {
    const { message, hint } = JSON.parse(text);
    return `${status} ${message}${hint ? `: ${hint}` : ''}`;
  } catch {
    return `${status}`;
  }
}

function select(label, options, value) {
  const input = el('select', {}, ...options.map(([v, text]) => el('option', { value: v }, text)));
  input.value = value;
  return { input, label: el('label', {}, `${label} `, input) };
}

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  node.append(...children);
  return node;
}

function fmt(v) {
  return typeof v === 'number' && Number.isFinite(v) ? v.toLocaleString('en-US', { maximumSignificantDigits: 7, useGrouping: false }) : 'no value';
}
