import { startTestServer } from './test/support/test-server.js';
import { decode } from 'fast-png';
import { writeFileSync } from 'node:fs';
const s = await startTestServer();
try {
  for (const q of ['f=png', 'f=jxl', 'f=png&zone-depth=1,2', 'f=png&values-scale=0', 'f=png&values-scale=1000']) {
    const t = performance.now();
    const r = await s.get(`/collections/demo-elevation/dggs/IVEA7H/zones/E4-120-A/data?${q}`);
    const b = Buffer.from(await r.arrayBuffer());
    console.log(q, r.status, r.headers.get('content-type'), r.headers.get('values-scale'), r.headers.get('values-offset'), b.length, Math.round(performance.now() - t), 'ms');
    if (r.status !== 200) console.log(b.toString().slice(0, 400));
    else if (q === 'f=png') { const d = decode(b); console.log(d.width, d.height, d.channels, d.depth, d.text); }
    else if (q === 'f=jxl') writeFileSync('/tmp/pj/z.jxl', b);
  }
} finally { await s.close(); }
