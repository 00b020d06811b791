// Headless Chromium on the colours of the page: where the run has sites, a
// cell is coloured by how far it is from its site pair's typical value
// (the diagnosis' baseline), so a healthy WAN is green and only the pairs a
// finding names are red; the raw scale (the view's best to worst) is one
// click away and the legend says which is shown.
//   - a healthy run of three sites at WAN distances (sites found from the
//     round trips): "Nothing wrong found", no cell coloured bad in any
//     kind, on the page as written and as the script draws it; on the raw
//     scale its far sites are red;
//   - the same run with one slowed link: that cell is red, the rest not;
//   - the WAN fixtures (sites given): the slowed link red in ping, the
//     relayed pair red in the overlay (libp2p over ICMP) and no other.
// Writes screenshots of the healthy page and of the WAN fixtures' ping
// matrix: into NETPROF_DOCS_IMG when set (docs/img/heatmap-healthy.png,
// heatmap-matrix.png), else beside the pages. Exit 77 = skipped.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import assert from 'node:assert/strict';
import { BIN, OUT, launch } from './setup.mjs';

// A colour class at or above this is "bad" (orange to red): q14 of 20.
const BAD = 14;
const SITES = { zrh: ['z1', 'z2', 'z3'], fra: ['f1', 'f2', 'f3'], iad: ['i1', 'i2', 'i3'] };
const RTT = { 'zrh fra': 12, 'zrh iad': 92, 'fra iad': 88 };
const siteOf = {};
for (const [s, hs] of Object.entries(SITES)) for (const h of hs) siteOf[h] = s;
const hosts = Object.keys(siteOf);

// A run's records: ping (ms) and iperf3 (Mbit/s), a percent or two of
// spread; slow: the pair made 60 ms slower and 20x narrower.
function records(file, slow) {
  const lines = [];
  let k = 0;
  for (const a of hosts) {
    for (const b of hosts) {
      if (a === b) continue;
      const jit = 1 + ((k++ * 37) % 7 - 3) / 300;
      const sa = siteOf[a], sb = siteOf[b];
      let ms = sa === sb ? 0.3 : RTT[`${sa} ${sb}`] || RTT[`${sb} ${sa}`];
      let mbps = sa === sb ? 940 : 4000 / ms;
      if (slow === `${a} ${b}`) { ms += 60; mbps /= 20; }
      ms *= jit; mbps *= jit;
      const t = new Date(Date.UTC(2026, 10, 30, 12, 0, k)).toISOString();
      lines.push(JSON.stringify({ kind: 'ping', source: a, target: b, ok: true, timestamp: t,
        metrics: { avg: ms, min: ms * 0.98, max: ms * 1.02, p50: ms, loss_pct: 0,
          samples_ms: [ms * 0.98, ms, ms * 1.02, ms, ms] } }));
      lines.push(JSON.stringify({ kind: 'iperf3', source: a, target: b, ok: true, timestamp: t,
        metrics: { mbps, retransmits: 0, seconds: 5 } }));
    }
  }
  writeFileSync(file, lines.join('\n') + '\n');
}
function heatmap(name, args) {
  const out = path.join(OUT, name);
  execFileSync(BIN, ['heatmap', ...args, '--output', out], { stdio: ['ignore', 'ignore', 'inherit'] });
  return pathToFileURL(out).href;
}
const healthyIn = path.join(OUT, 'colours-healthy.jsonl');
const faultIn = path.join(OUT, 'colours-fault.jsonl');
records(healthyIn, null);
records(faultIn, 'f2 i3');
const healthy = heatmap('colours-healthy.html', ['--input', healthyIn, '--title', 'A healthy WAN']);
const fault = heatmap('colours-fault.html', ['--input', faultIn, '--title', 'A slowed link']);
const WAN = path.join(process.env.NETPROF_FIXTURES || '', 'wan');
const wan = heatmap('colours-wan.html', ['--input', path.join(WAN, 'collect.jsonl'),
  '--input', path.join(WAN, 'measurements.jsonl'), '--input', path.join(WAN, 'run-sites.json')]);

let passed = 0;
function ok(what) {
  passed++;
  console.log(`ok ${passed} - ${what}`);
}

// The matrix's cells: "source target" -> colour step (-1: no value).
const cells = (page) => page.$$eval('#matrix tbody tr', (trs) => {
  const heads = [...document.querySelectorAll('#matrix thead th[scope=col]')].map((t) => t.textContent);
  const out = {};
  for (const tr of trs) {
    [...tr.querySelectorAll('td')].forEach((td, j) => {
      const q = /\bq(\d+)\b/.exec(td.className);
      out[`${tr.cells[0].textContent} ${heads[j]}`] = q ? Number(q[1]) : -1;
    });
  }
  return out;
});
// The site tables' cells: "KIND|SRC|TGT" -> the colour class.
const siteCells = (page) => page.$$eval('table.sites', (tables) => {
  const out = {};
  for (const t of tables) {
    const heads = [...t.querySelectorAll('thead th')].slice(1).map((h) => h.textContent);
    for (const tr of t.querySelectorAll('tbody tr')) {
      [...tr.querySelectorAll('td')].forEach((td, j) => {
        const q = /\bq(\d+)\b/.exec(td.className);
        if (q) out[`${t.dataset.kind}|${tr.cells[0].textContent}|${heads[j]}`] = Number(q[1]);
      });
    }
  }
  return out;
});
const kindLabels = (page) => page.$$eval('#kind option', (os) => os.map((o) => o.textContent));
const badOnes = (c) => Object.entries(c).filter(([, q]) => q >= BAD).map(([p, q]) => `${p} q${q}`);

const chrome = await launch({ viewport: { width: 1100, height: 900 } });
try {
  const page = chrome.context.pages()[0] || await chrome.context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));

  await page.goto(healthy, { waitUntil: 'load' });
  assert.match(await page.textContent('#diagnosis'), /Nothing wrong found/);
  assert.match(await page.textContent('#lg-scale'), /against its site pair's typical value/);
  for (const label of await kindLabels(page)) {
    await page.selectOption('#kind', { label });
    assert.deepEqual(badOnes(await cells(page)), [], `${label}: no cell coloured bad`);
  }
  const sites = await siteCells(page);
  assert.ok(Object.keys(sites).length >= 9, 'the site tables are there');
  assert.deepEqual(badOnes(sites), [], 'no site pair coloured bad');
  ok('a healthy WAN: nothing wrong found, and no cell of any kind coloured bad, nor any site pair');
  await page.selectOption('#kind', { label: 'ping' });
  await page.mouse.move(0, 0);
  const shot = process.env.NETPROF_DOCS_IMG ? path.join(process.env.NETPROF_DOCS_IMG,
    'heatmap-healthy.png') : path.join(OUT, 'heatmap-healthy.png');
  await (await page.$('#view')).screenshot({ path: shot });
  ok(`screenshot of the healthy page: ${shot}`);

  await page.check('#raw');
  assert.match(await page.textContent('#lg-scale'), /the view's best to its worst/);
  assert.ok(badOnes(await cells(page)).length > 0, 'on the raw scale the far sites are red');
  assert.ok(badOnes(await siteCells(page)).length > 0, 'on the raw scale the far site pairs are red');
  ok('the raw scale is a click away, and the legend says so');

  await page.goto(fault, { waitUntil: 'load' });
  for (const label of ['ping', 'iperf3']) {
    await page.selectOption('#kind', { label });
    const c = await cells(page);
    assert.ok(c['f2 i3'] >= 16, `${label}: the slowed link is red (q${c['f2 i3']})`);
    assert.deepEqual(badOnes(c).filter((x) => !x.startsWith('f2 i3')), [],
      `${label}: no other cell bad`);
  }
  {
    // the group (a site found by clustering) each host is in
    const groupOf = Object.fromEntries((await page.$$eval('#site-groups li', (ls) =>
      ls.map((l) => [l.dataset.group, l.textContent.split(':')[1].split(',').map((h) => h.trim())])))
      .flatMap(([g, hs]) => hs.map((h) => [h, g])));
    const pair = `${groupOf.f2}|${groupOf.i3}`;
    const bad = badOnes(await siteCells(page)).map((x) => x.replace(/ q\d+$/, ''));
    assert.deepEqual(bad.sort(), [`iperf3|${pair}`, `ping|${pair}`],
      `the slowed link's site pair is the one bad in the site tables: ${bad}`);
  }
  await page.selectOption('#kind', { label: 'ping' });
  const [r, c] = await page.evaluate(() => {
    const heads = [...document.querySelectorAll('#matrix thead th[scope=col]')].map((t) => t.textContent);
    const rows = [...document.querySelectorAll('#matrix tbody th[scope=row]')].map((t) => t.textContent);
    return [rows.indexOf('f2') + 1, heads.indexOf('i3') + 1];
  });
  await page.hover(`#matrix tbody tr:nth-child(${r}) td:nth-of-type(${c})`);
  assert.match(await page.textContent('#tip'), /typical p50 of its site pair8\d ms/);
  ok('a slowed link: its cell red in ping and iperf3, no other; its tooltip says the typical value');

  await page.goto(wan, { waitUntil: 'load' });
  const ping = await cells(page);
  await (await page.$('#view')).screenshot({ path: process.env.NETPROF_DOCS_IMG ?
    path.join(process.env.NETPROF_DOCS_IMG, 'heatmap-matrix.png') : path.join(OUT, 'heatmap-matrix.png') });
  assert.deepEqual(badOnes(ping).map((x) => x.split(' q')[0]).sort(), ['n4 n8', 'n8 n4']);
  await page.selectOption('#kind', { label: 'overlay: libp2p over the raw-IP baseline' });
  assert.deepEqual(badOnes(await cells(page)).map((x) => x.split(' q')[0]).sort(),
    ['n1 n6', 'n6 n1'], 'the overlay: the relayed pair, and no other');
  ok('the WAN fixtures (sites given): the slowed link in ping, the relayed pair in the overlay');
  assert.deepEqual(errors, []);
} finally {
  await chrome.close();
}

// Without script: the page as written has the same colours.
const bare = await launch({ viewport: { width: 1100, height: 900 }, javaScriptEnabled: false });
try {
  const page = bare.context.pages()[0] || await bare.context.newPage();
  await page.goto(healthy, { waitUntil: 'load' });
  assert.deepEqual(badOnes(await cells(page)), [], 'the server-rendered view too');
  await page.goto(fault, { waitUntil: 'load' });
  assert.ok((await cells(page))['f2 i3'] >= 16);
  ok('without JavaScript the page has the same colours');
} finally {
  await bare.close();
}
console.log(`all ${passed} checks passed`);
