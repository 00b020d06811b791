// Headless Chromium checks of the page `netprof heatmap` writes: it loads
// with no console error and no request but the file itself, shows an N x N
// matrix, switching kind and metric changes the cells, a tooltip appears on
// hover, the matrix renders without JavaScript, and hostile host names stay
// text. Saves a screenshot into the build tree. Exit 77 = skipped.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import assert from 'node:assert/strict';
import { BIN, OUT, launch } from './setup.mjs';

const FIXTURES = path.join(process.env.NETPROF_FIXTURES || '', 'heatmap');

function heatmap(args) {
  execFileSync(BIN, ['heatmap', ...args], { stdio: ['ignore', 'inherit', 'inherit'] });
}

const page1 = path.join(OUT, 'heatmap.html');
heatmap(['--input', path.join(FIXTURES, 'collect.jsonl'),
  '--input', path.join(FIXTURES, 'measurements.jsonl'),
  '--input', path.join(FIXTURES, 'run.json'),
  '--title', 'fixture lab', '--output', page1]);
const hostile = path.join(OUT, 'hostile.html');
heatmap(['--input', path.join(FIXTURES, 'hostile.jsonl'), '--output', hostile]);
// A kind whose records all failed (no metric at all), and times far outside
// JavaScript's Date range (1e300 seconds, -9e15).
const failedKind = path.join(OUT, 'failed-kind.html');
heatmap(['--input', path.join(FIXTURES, 'failed-kind.jsonl'), '--output', failedKind]);
const failedOnly = path.join(OUT, 'failed-only.html');
heatmap(['--input', path.join(FIXTURES, 'failed-kind.jsonl'), '--kind', 'latency',
  '--output', failedOnly]);

// Nothing in the page may point anywhere: no scheme, no "//", no tag with
// src/href (input strings are escaped, so their "<" never opens a tag).
for (const file of [page1, hostile]) {
  const html = readFileSync(file, 'utf8');
  for (const bad of [/[a-z][a-z0-9+.-]*:\/\//i, /\/\//, /<[a-z][^>]*\s(src|href|action)\s*=/i,
    /@import/i, /url\((?!#)/i]) {
    assert.equal(bad.test(html), false, `${path.basename(file)} matches ${bad}`);
  }
}

async function withContext(options, fn) {
  const chrome = await launch(options);
  try {
    return await fn(chrome.context);
  } finally {
    await chrome.close();
  }
}

function watch(page) {
  const seen = { requests: [], errors: [], dialogs: 0 };
  page.on('request', (r) => seen.requests.push(r.url()));
  page.on('console', (m) => { if (m.type() === 'error') seen.errors.push(m.text()); });
  page.on('pageerror', (e) => seen.errors.push(String(e)));
  page.on('dialog', async (d) => { seen.dialogs++; await d.dismiss(); });
  return seen;
}

const cellTexts = (page) => page.$$eval('#matrix tbody td', (tds) => tds.map((td) => td.textContent).join('|'));

let passed = 0;
function ok(what) {
  passed++;
  console.log(`ok ${passed} - ${what}`);
}

await withContext({}, async (context) => {
  const page = context.pages()[0] || await context.newPage();
  const seen = watch(page);
  const url = pathToFileURL(page1).href;
  await page.goto(url, { waitUntil: 'load' });
  await page.waitForSelector('#controls', { state: 'visible' });

  const hosts = await page.$$eval('#matrix thead th[scope=col]', (ths) => ths.length);
  const cells = await page.$$eval('#matrix tbody td', (tds) => tds.length);
  assert.equal(hosts, 4, 'fixture lab has 4 hosts');
  assert.equal(cells, hosts * hosts, 'cell count is N x N');
  ok(`matrix has ${hosts} x ${hosts} = ${cells} cells`);

  const kinds = await page.$$eval('#kind option', (os) => os.map((o) => o.textContent));
  assert.deepEqual(kinds.slice(0, 5), ['ping', 'iperf3', 'libp2p_ping', 'latency', 'throughput']);
  assert.ok(kinds.some((k) => k.startsWith('overlay')), 'overlay view offered');
  ok(`kinds offered: ${kinds.join(', ')}`);

  const before = await cellTexts(page);
  const viewBefore = await page.getAttribute('body', 'data-view');
  assert.equal(viewBefore, 'ping/avg');
  await page.selectOption('#kind', { label: 'iperf3' });
  const afterKind = await cellTexts(page);
  assert.equal(await page.getAttribute('body', 'data-view'), 'iperf3/mbps');
  assert.notEqual(afterKind, before, 'switching the kind changes the cells');
  assert.match(await page.textContent('#lg-dir'), /higher is better/);
  ok('switching kind to iperf3 changes the cells and the legend direction');

  await page.selectOption('#kind', { label: 'ping' });
  assert.equal(await cellTexts(page), before, 'switching back restores the cells');
  await page.selectOption('#metric', { label: 'max (ms)' });
  assert.equal(await page.getAttribute('body', 'data-view'), 'ping/max');
  assert.notEqual(await cellTexts(page), before, 'switching the metric changes the cells');
  ok('switching metric to max changes the cells');
  await page.selectOption('#metric', { label: 'avg (ms)' });

  // Row beta (2nd), column alpha (1st): ping ok, 0.80 ms.
  await page.hover('#matrix tbody tr:nth-child(2) td:nth-of-type(1)');
  await page.waitForSelector('#tip:not([hidden])');
  const tip = await page.textContent('#tip');
  assert.match(tip, /beta → alpha/);
  assert.match(tip, /avg0\.80 ms/);
  assert.match(tip, /samples5/);
  ok(`tooltip on hover: ${tip.slice(0, 60)}...`);

  // Row delta (3rd), column alpha: failed ping, the error in the tooltip.
  await page.hover('#matrix tbody tr:nth-child(3) td:nth-of-type(1)');
  await page.waitForFunction(() => /timed out/.test(document.getElementById('tip').textContent));
  assert.equal(await page.getAttribute('#matrix tbody tr:nth-child(3) td:nth-of-type(1)', 'class'), 'f');
  ok('failed cell is marked and its tooltip shows the error');

  await page.mouse.move(0, 0);
  const shot = path.join(OUT, 'heatmap.png');
  await page.screenshot({ path: shot, fullPage: true });
  ok(`screenshot saved: ${shot}`);

  assert.deepEqual(seen.errors, [], 'no console errors');
  assert.deepEqual(seen.requests, [url], 'the only request is the page itself');
  ok(`no console error; requests: ${seen.requests.length} (the page itself)`);

  const hp = await context.newPage();
  const hseen = watch(hp);
  await hp.goto(pathToFileURL(hostile).href, { waitUntil: 'load' });
  await hp.hover('#matrix tbody tr:nth-child(1) td:nth-of-type(2)');
  const names = await hp.$$eval('#matrix thead th[scope=col]', (ths) => ths.map((t) => t.textContent));
  assert.ok(names.includes('<script>alert(1)</script>'), 'hostile host name shown as text');
  assert.equal(hseen.dialogs, 0, 'no script from the input ran');
  assert.equal(await hp.$$eval('img', (i) => i.length), 0, 'no element from the input');
  assert.deepEqual(hseen.errors, []);
  ok('hostile names and errors stay text');
});

await withContext({}, async (context) => {
  const page = context.pages()[0] || await context.newPage();
  const seen = watch(page);
  await page.goto(pathToFileURL(failedKind).href, { waitUntil: 'load' });
  await page.waitForSelector('#controls', { state: 'visible' });
  const pingCells = await cellTexts(page);
  // Every ping tooltip, the one with an out-of-range time included.
  for (let r = 1; r <= 3; r++) {
    for (let c = 1; c <= 3; c++) {
      await page.hover(`#matrix tbody tr:nth-child(${r}) td:nth-of-type(${c})`);
      await page.waitForSelector('#tip:not([hidden])');
    }
  }
  await page.selectOption('#kind', { label: 'latency' });
  assert.equal(await page.getAttribute('body', 'data-view'), 'latency/');
  assert.match(await page.textContent('#view-title'), /latency: no metric/);
  const latCells = await cellTexts(page);
  assert.notEqual(latCells, pingCells, 'the failed kind does not show ping\'s values');
  assert.doesNotMatch(latCells, /\d/, 'no value in a kind whose records all failed');
  assert.equal(await page.getAttribute('#matrix tbody tr:nth-child(1) td:nth-of-type(2)', 'class'), 'f');
  await page.hover('#matrix tbody tr:nth-child(2) td:nth-of-type(1)');
  await page.waitForFunction(() => /timed out/.test(document.getElementById('tip').textContent));
  assert.deepEqual(seen.errors, [], 'no console error');
  ok('a kind whose records all failed shows failures, not another kind\'s values');

  const only = await context.newPage();
  const oseen = watch(only);
  await only.goto(pathToFileURL(failedOnly).href, { waitUntil: 'load' });
  await only.waitForSelector('#controls', { state: 'visible' });
  await only.hover('#matrix tbody tr:nth-child(1) td:nth-of-type(2)');
  await only.waitForSelector('#tip:not([hidden])');
  assert.deepEqual(oseen.errors, [], 'no console error when the first kind has no metric');
  ok('a page whose only kind has no metric runs its script without error');
});

await withContext({ javaScriptEnabled: false }, async (context) => {
  const page = context.pages()[0] || await context.newPage();
  await page.goto(pathToFileURL(page1).href, { waitUntil: 'load' });
  const cells = await page.$$eval('#matrix tbody td', (tds) => tds.length);
  assert.equal(cells, 16);
  const values = await page.$$eval('#matrix tbody td.v', (tds) => tds.length);
  assert.equal(values, 11, 'ping has 11 measured pairs');
  assert.equal(await page.isVisible('#controls'), false, 'controls hidden without script');
  const shot = path.join(OUT, 'heatmap-nojs.png');
  await page.screenshot({ path: shot, fullPage: true });
  ok(`renders without JavaScript (${values} value cells); screenshot ${shot}`);
});

console.log(`all ${passed} checks passed`);
