/**
 * The journey's driver for WebKitGTK: Debian's WebKitWebDriver driving MiniBrowser through
 * selenium-webdriver, on an Xvfb display of our own. Measured recipe (WebKitWebDriver 2.50 died
 * with SIGSEGV at session start in near-identical orders): capabilities built first, then the
 * driver spawned, its port awaited plus a settle pause, the session built, the window sized, then
 * navigation. The driver's exit signal is kept so a crash reads as one. Classic WebDriver has no
 * console or preload channel: the probe goes in after each full load (the journey navigates
 * in-app after its first page), so a problem during that first parse alone would go unseen.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import net from 'node:net';
import { Builder, By, type WebDriver } from 'selenium-webdriver';
import { freePort } from '../../../../scripts/freePort.mjs';
import type { EngineDriver } from './journey';

export const WEBKIT_DRIVER = process.env.WEBKIT_DRIVER_PATH ?? '/usr/bin/WebKitWebDriver';
export const MINIBROWSER = process.env.MINIBROWSER_PATH ?? '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser';

const by = (s: string) => (s.startsWith('//') ? By.xpath(s) : By.css(s));

async function portOpen(port: number, timeoutMs: number, died: () => string | null): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => {
        s.end();
        resolve(true);
      });
      s.on('error', () => resolve(false));
    });
    if (ok) return;
    const exit = died();
    if (exit) throw new Error(`WebKitWebDriver exited before listening: ${exit}`);
    if (Date.now() > deadline) throw new Error(`WebKitWebDriver did not listen on ${port} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** An Xvfb server on a display it picks itself (`-displayfd`), for MiniBrowser's window. */
async function startXvfb(): Promise<{ display: string; proc: ChildProcess }> {
  const proc = spawn('Xvfb', ['-displayfd', '3', '-screen', '0', '1400x1000x24', '-nolisten', 'tcp'], {
    stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const display = await new Promise<string>((resolve, reject) => {
    let out = '';
    proc.stdio[3]?.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) resolve(`:${out.trim()}`);
    });
    proc.on('exit', (code, signal) => reject(new Error(`Xvfb exited (${signal ?? code})`)));
    setTimeout(() => reject(new Error('Xvfb gave no display within 10 s')), 10_000);
  });
  return { display, proc };
}

export async function webkitDriver(viewport = { width: 1280, height: 900 }): Promise<EngineDriver> {
  const capabilities = {
    browserName: 'MiniBrowser',
    'webkitgtk:browserOptions': { binary: MINIBROWSER, args: ['--automation'] },
  };
  const xvfb = process.env.DISPLAY && process.env.WEBKIT_USE_DISPLAY ? null : await startXvfb();
  const port = await freePort();
  const driverLog: string[] = [];
  const driverProc = spawn(WEBKIT_DRIVER, [`--port=${port}`, '--host=127.0.0.1'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      ...(xvfb ? { DISPLAY: xvfb.display } : {}),
      // Video frames through GStreamer's plain sink, not its OpenGL one: on Xvfb, OpenGL is Mesa's
      // software rasterizer, and GStreamer's GL thread crashed in it during a journey's playback
      // (the kernel's log: `gstglcontext[…]: segfault … in swrast_dri.so`), which ended the
      // WebDriver session (NoSuchSessionError) of a fresh clone's run.
      WEBKIT_GST_DISABLE_GL_SINK: '1',
    },
    // Its own process group, so stopping it takes MiniBrowser and WebKit's processes along.
    detached: true,
  });
  driverProc.stdout?.on('data', (d: Buffer) => driverLog.push(d.toString()));
  driverProc.stderr?.on('data', (d: Buffer) => driverLog.push(d.toString()));
  let exit: string | null = null;
  driverProc.on('exit', (code, signal) => {
    exit = signal ? `signal ${signal}` : `code ${code}`;
  });
  const died = () => (exit ? `${exit}; ${driverLog.join('').slice(-2000)}` : null);
  const killGroup = (p: ChildProcess | undefined) => {
    if (!p?.pid) return;
    try {
      process.kill(-p.pid, 'SIGTERM');
    } catch {
      // The group is gone already.
    }
  };
  const stop = () => {
    process.off('exit', stop);
    killGroup(driverProc);
    killGroup(xvfb?.proc);
  };
  // Its own process group outlives the test process: a test that times out before close() (the
  // worker then exits) would leave MiniBrowser and Xvfb running, and spinning, beside the next files.
  process.once('exit', stop);

  let d: WebDriver;
  try {
    await portOpen(port, 15_000, died);
    // WebKitWebDriver 2.50 died with SIGSEGV when a session started right after it began listening
    // (see the header). fixed wait: nothing it exposes marks the point where that stops crashing.
    await new Promise((r) => setTimeout(r, 1500));
    d = await new Builder().usingServer(`http://127.0.0.1:${port}`).withCapabilities(capabilities).build();
    await d.manage().window().setRect({ width: viewport.width, height: viewport.height });
  } catch (e) {
    stop();
    const why = died();
    throw why ? new Error(`WebKitWebDriver died at session start (${why}): ${(e as Error).message}`) : e;
  }
  const caps = await d.getCapabilities();
  // An error from the driver after it crashed says so, rather than "connection refused".
  const guard = async <T>(p: Promise<T>): Promise<T> => {
    try {
      return await p;
    } catch (e) {
      const why = died();
      throw why ? new Error(`WebKitWebDriver died (${why}): ${(e as Error).message}`) : e;
    }
  };
  return {
    name: `WebKitGTK ${caps.get('browserVersion') ?? ''}`.trim(),
    probeAfterLoad: true,
    goto: (url) => guard(d.get(url)),
    async type(selector, text) {
      const el = await guard(d.findElement(by(selector)));
      await guard(el.clear());
      await guard(el.sendKeys(text));
    },
    async click(selector) {
      await guard(d.findElement(by(selector)).then((el) => el.click()));
    },
    async selectOption(select, label) {
      const option = await guard(
        d.findElement(By.css(select)).then((s) => s.findElement(By.xpath(`.//option[starts-with(., ${JSON.stringify(label)})]`))),
      );
      await guard(option.click());
    },
    evaluate: (body, arg) => guard(arg === undefined ? d.executeScript(body) : d.executeScript(body, arg)),
    problems: () => (exit ? [`WebKitWebDriver exited: ${exit}`] : []),
    async close() {
      try {
        await d.quit();
      } finally {
        stop();
      }
    },
  };
}
