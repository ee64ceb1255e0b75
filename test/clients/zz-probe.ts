import { writeFileSync } from 'node:fs';
import { Chromium } from '/work/wt-maps/test/clients/chromium.js';
const webgl = process.argv[3] !== 'nogl';
const b = await Chromium.launch(1280, 900, { webgl });
try {
  await b.open(process.argv[2]!);
  for (let i = 0; i < 100; i++) { if (i === 30) break;
    const st = await b.evaluate(() => ({ s: (globalThis as any).document.querySelector('[data-map-frame]')?.dataset.mapState, idle: (globalThis as any).__mapIdle, err: (globalThis as any).document.querySelector('.map-error')?.textContent }));
    if (st.s !== 'loading' || st.idle) { console.log(JSON.stringify(st)); break; }
    await new Promise((r) => setTimeout(r, 200));
  }
  const r = await b.evaluate(() => { const e = (globalThis as any).document.querySelector('.map-canvas').getBoundingClientRect(); return { x: e.left + (globalThis as any).scrollX, y: e.top + (globalThis as any).scrollY, width: e.width, height: e.height }; });
  console.log(JSON.stringify(await b.evaluate(() => { const m = (globalThis as any).__map; return { canvas: [m.getCanvas().width, m.getCanvas().height], cont: m.getContainer().getBoundingClientRect().width, zoom: m.getZoom(), center: m.getCenter(), frameW: (globalThis as any).document.querySelector('[data-map-frame]').getBoundingClientRect().width }; })));
  await new Promise((r) => setTimeout(r, 3000)); if (process.argv[5] === 'repaint' && false) await b.evaluate(async () => { (globalThis as any).__map.triggerRepaint(); await new Promise<void>((r) => (globalThis as any).requestAnimationFrame(() => (globalThis as any).requestAnimationFrame(r))); });
  writeFileSync('/tmp/maps/shot.png', await b.screenshot(process.argv[4] === 'page' ? { x: 0, y: 0, width: 1280, height: 900 } : r));
} finally { await b.close(); }
