// Time to first render of a heatmap page in headless Chromium: prints the
// navigation's DOMContentLoaded, first paint / first contentful paint, the
// page script's "heatmap-ready" mark and load, in ms from navigation start,
// plus the wall time of page.goto(). Usage: node first-render.mjs PAGE.html
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';

const page_path = process.argv[2];
const profile = mkdtempSync(path.join(tmpdir(), 'netprof-chromium-'));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run',
    '--disable-background-networking', '--disable-component-update',
    '--disable-sync', '--disable-quic'],
});
try {
  const page = context.pages()[0] || await context.newPage();
  const requests = [];
  page.on('request', (r) => requests.push(r.url()));
  const t0 = Date.now();
  await page.goto(pathToFileURL(page_path).href, { waitUntil: 'load' });
  const wall = Date.now() - t0;
  const m = await page.evaluate(() => {
    const nav = performance.getEntriesByType('navigation')[0];
    const paint = Object.fromEntries(performance.getEntriesByType('paint')
      .map((p) => [p.name, p.startTime]));
    const ready = performance.getEntriesByName('heatmap-ready')[0];
    return {
      dcl: nav.domContentLoadedEventEnd, load: nav.loadEventEnd,
      fp: paint['first-paint'], fcp: paint['first-contentful-paint'],
      ready: ready ? ready.startTime : null,
      cells: document.querySelectorAll('#matrix tbody td').length,
    };
  });
  const f = (v) => (v == null ? 'n/a' : `${Math.round(v)} ms`);
  console.log(`cells ${m.cells}; DOMContentLoaded ${f(m.dcl)}; first paint ${f(m.fp)}; ` +
    `first contentful paint ${f(m.fcp)}; script ready ${f(m.ready)}; load ${f(m.load)}; ` +
    `goto wall ${wall} ms; requests ${requests.length}`);
} finally {
  await context.close();
  rmSync(profile, { recursive: true, force: true });
}
