import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * Headless Chromium driven over the DevTools protocol (Node's own WebSocket; no extra package):
 * pages are loaded as a browser loads them, measured with script, and captured as screenshots.
 */
export class Chromium {
  private constructor(
    private readonly proc: ChildProcess,
    private readonly dir: string,
    private readonly ws: WebSocket,
  ) {
    ws.addEventListener('message', (ev) => {
      const msg = JSON.parse(String(ev.data)) as { id?: number; method?: string; result?: unknown; error?: { message: string } };
      if (msg.id !== undefined) {
        const p = this.pending.get(msg.id);
        this.pending.delete(msg.id);
        if (msg.error) p?.reject(new Error(msg.error.message));
        else p?.resolve(msg.result);
      } else if (msg.method) {
        const waiting = this.listeners.splice(0);
        for (const l of waiting) {
          if (l.method === msg.method) l.resolve();
          else this.listeners.push(l);
        }
      }
    });
  }

  private next = 1;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private readonly listeners: { method: string; resolve: () => void }[] = [];

  /**
   * `webgl`: WebGL on the CPU (SwiftShader through ANGLE), for the pages' MapLibre maps. The network flags keep Chromium from
   * calling home (a closed network refuses it, many connections at a time).
   */
  static async launch(width = 1280, height = 900, options: { webgl?: boolean } = {}): Promise<Chromium> {
    const dir = mkdtempSync(path.join(tmpdir(), 'dggs-chromium-'));
    // Without `webgl`, no WebGL at all (not even a software fallback): the pages keep their SVG
    // maps, and no map renders on the CPU behind the page being measured.
    const gl = options.webgl ? ['--use-gl=angle', '--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--ignore-gpu-blocklist'] : ['--disable-gpu', '--disable-webgl', '--disable-3d-apis'];
    const quiet = ['--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'];
    const proc = spawn('chromium', ['--headless', '--no-sandbox', ...gl, ...quiet, '--hide-scrollbars', '--remote-debugging-port=0', `--user-data-dir=${dir}`, `--window-size=${width},${height}`, 'about:blank'], { stdio: 'ignore' });
    const failed = new Promise<never>((_, reject) => proc.once('error', (e) => reject(new Error(`chromium did not start: ${e.message}`))));
    let port: string | undefined;
    for (let i = 0; i < 200 && !port; i++) {
      await Promise.race([new Promise((r) => setTimeout(r, 50)), failed]);
      try {
        port = readFileSync(path.join(dir, 'DevToolsActivePort'), 'utf8').split('\n')[0];
      } catch {
        // not written yet
      }
    }
    if (!port) throw new Error('chromium did not open its DevTools port');
    const targets = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as { type: string; webSocketDebuggerUrl: string }[];
    const page = targets.find((t) => t.type === 'page')!;
    const ws = new WebSocket(page.webSocketDebuggerUrl);
    await new Promise((resolve, reject) => {
      ws.addEventListener('open', resolve, { once: true });
      ws.addEventListener('error', () => reject(new Error('DevTools socket failed')), { once: true });
    });
    const browser = new Chromium(proc, dir, ws);
    await browser.send('Page.enable');
    await browser.send('Runtime.enable');
    return browser;
  }

  send<T = unknown>(method: string, params: object = {}): Promise<T> {
    const id = this.next++;
    this.ws.send(JSON.stringify({ id, method, params }));
    return new Promise<T>((resolve, reject) => this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject }));
  }

  private event(method: string): Promise<void> {
    return new Promise((resolve) => this.listeners.push({ method, resolve }));
  }

  /** Loads `url` at the given viewport width and waits for the load event. */
  async open(url: string, width = 1280, height = 900): Promise<void> {
    await this.send('Emulation.setDeviceMetricsOverride', { width, height, deviceScaleFactor: 1, mobile: false });
    const loaded = this.event('Page.loadEventFired');
    const nav = await this.send<{ errorText?: string }>('Page.navigate', { url });
    if (nav.errorText) throw new Error(`${url}: ${nav.errorText}`);
    await Promise.race([loaded, new Promise((_, reject) => setTimeout(() => reject(new Error(`${url}: no load event in 30 s`)), 30_000))]);
  }

  /** Runs `fn` in the page (it must be self-contained) and returns its JSON result. */
  async evaluate<T>(fn: () => T | Promise<T>): Promise<T> {
    // tsx keeps function names by wrapping them in __name(...): give the page that helper too.
    const expression = `(() => { const __name = (f) => f; return (${fn.toString()})(); })()`;
    const r = await this.send<{ result: { value: T }; exceptionDetails?: { text: string; exception?: { description?: string } } }>('Runtime.evaluate', { expression, returnByValue: true, awaitPromise: true });
    if (r.exceptionDetails) throw new Error(`page script failed: ${r.exceptionDetails.exception?.description ?? r.exceptionDetails.text}`);
    return r.result.value;
  }

  /**
   * PNG of the whole page, or of `clip` (CSS pixels of the page, inside the viewport: capturing
   * beyond it resizes the viewport for the capture, and a WebGL map redraws in the middle of it).
   */
  async screenshot(clip?: { x: number; y: number; width: number; height: number }): Promise<Buffer> {
    const r = await this.send<{ data: string }>('Page.captureScreenshot', { format: 'png', ...(clip ? { clip: { ...clip, scale: 1 }, captureBeyondViewport: false } : { captureBeyondViewport: true }) });
    return Buffer.from(r.data, 'base64');
  }

  async close(): Promise<void> {
    this.ws.close();
    this.proc.kill();
    await new Promise((r) => (this.proc.exitCode !== null ? r(undefined) : this.proc.once('exit', r)));
    rmSync(this.dir, { recursive: true, force: true });
  }
}
