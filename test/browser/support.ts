// Browser-test helpers: Debian's Chromium driven by playwright-core, `evalog view` as a child
// process, and screenshots kept as test artifacts (test-artifacts/screenshots/, gitignored).
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Locator, type Page, type Response } from 'playwright-core';
import { startEvalog } from '../support/cli.js';

/** Where CI installs Chromium (`apt-get install -y chromium`). */
export const CHROMIUM = process.env.EVALOG_CHROMIUM ?? '/usr/bin/chromium';

/** Screenshots of every page the tests open. */
export const SCREENSHOTS = fileURLToPath(new URL('../../test-artifacts/screenshots/', import.meta.url));

/** Chromium is missing: the browser tests fail rather than skip, so CI cannot pass without them. */
export class ChromiumMissingError extends Error {
  override name = 'ChromiumMissingError';
  constructor() {
    super(`Chromium is not at ${CHROMIUM}: install it with \`apt-get install -y chromium\` (or set EVALOG_CHROMIUM)`);
  }
}

/** Launches headless Chromium. */
export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new ChromiumMissingError();
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
}

/** Saves a full-page screenshot as `<name>.png`. */
export async function screenshot(page: Page, name: string): Promise<void> {
  await mkdir(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/**
 * Presses the pointer on `target`, holds it `ms` (as a slow hand does) and releases it: a click
 * that a live redraw during the hold would lose. Returns how many answers from API paths matching
 * `api` arrived while it was held, which shows that a redraw was due meanwhile.
 */
export async function slowClick(page: Page, target: Locator, ms: number, api: RegExp): Promise<number> {
  await target.hover();
  let answers = 0;
  const count = (r: Response) => {
    if (api.test(new URL(r.url()).pathname)) answers += 1;
  };
  page.on('response', count);
  await page.mouse.down();
  await page.waitForTimeout(ms);
  page.off('response', count);
  await page.mouse.up();
  return answers;
}

/** `evalog view` running in a child process. */
export interface ViewerProcess {
  /** The printed URL (with the token when there is one). */
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** Starts `evalog view --port 0 ARGS` and waits for its URL line. */
export async function startViewer(args: string[], cwd: string, env?: Record<string, string | undefined>): Promise<ViewerProcess> {
  const child = startEvalog(['view', '--port', '0', ...args], { cwd, env });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    let err = '';
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /^evalog view: (http:\/\/\S+)$/m.exec(out);
      if (m) resolve(m[1]!);
    });
    child.on('exit', (code) => reject(new Error(`evalog view exited with ${code}: ${err}`)));
  });
  return {
    url,
    child,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** `evalog view --runs runs` in `cwd` and a Chromium page on a 1400 × 900 window, as the runs-folder browser tests open them. */
export async function openRunsViewer(cwd: string): Promise<{ viewer: ViewerProcess; browser: Browser; page: Page }> {
  const [viewer, browser] = await Promise.all([startViewer(['--runs', 'runs'], cwd), launchBrowser()]);
  return { viewer, browser, page: await browser.newPage({ viewport: { width: 1400, height: 900 } }) };
}

/** Ids of the visible sections whose body (all but their heading) holds no text: the viewer leaves empty sections out. */
export function emptySections(page: Page): Promise<string[]> {
  return page.$$eval('section', (els) =>
    els.filter((s) => !s.hidden && [...s.children].slice(1).every((c) => (c.textContent ?? '').trim() === '')).map((s) => s.id),
  );
}

/** Text of one summary value as the viewer shows it (summary.json's value, unrounded). */
export function shown(v: unknown): string {
  if (v === null || v === undefined) return '—';
  if (typeof v === 'object') return Array.isArray(v) ? JSON.stringify(v) : Object.keys(v).length === 0 ? 'none' : JSON.stringify(v);
  return String(v);
}

/** Leaves of an object by dotted path (empty objects are leaves), as the summary table lists them. */
export function leafPaths(v: unknown, prefix = ''): [string, unknown][] {
  if (v === null || typeof v !== 'object' || Array.isArray(v) || Object.keys(v).length === 0) return [[prefix, v]];
  return Object.entries(v as Record<string, unknown>).flatMap(([k, x]) => leafPaths(x, prefix ? `${prefix}.${k}` : k));
}
