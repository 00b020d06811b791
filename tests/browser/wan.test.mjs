// Headless Chromium on pages written from the WAN-lab fixtures
// (tests/fixtures/wan: three sites, a slowed link, a relayed pair): the
// groups of rows and columns are the lab's sites, with machines.json's site
// field and without it (clusters of the round trips); the slowed link is the
// worst pair of its site pair; hover is linked across the small multiples;
// the timeline shows every host's phases; --compare flags the slowed link
// and no other; with the relayed pair's paths the relay advice is a panel
// beside the path view, as --advise-json says it, and on no other view.
// Saves screenshots of each view. Exit 77 = skipped.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import assert from 'node:assert/strict';
import { BIN, OUT, launch } from './setup.mjs';

const WAN = path.join(process.env.NETPROF_FIXTURES || '', 'wan');
// What the fixtures model (gen.py).
const SITE = { n1: 'zrh', n5: 'zrh', n9: 'zrh', n2: 'fra', n4: 'fra', n7: 'fra',
  n3: 'iad', n6: 'iad', n8: 'iad' };

const inputs = (prefix, run) => ['--input', path.join(WAN, `${prefix}collect.jsonl`),
  '--input', path.join(WAN, `${prefix}measurements.jsonl`),
  ...(run ? ['--input', path.join(WAN, run)] : [])];
function heatmap(name, args) {
  const out = path.join(OUT, name);
  execFileSync(BIN, ['heatmap', ...args, '--title', 'WAN lab', '--output', out],
    { stdio: ['ignore', 'inherit', 'inherit'] });
  return out;
}
const withField = heatmap('wan-sites.html', inputs('', 'run-sites.json'));
const withConfig = heatmap('wan-config.html', [...inputs('', 'run.json'),
  '--config', path.join(WAN, 'machines.json')]);
const clustered = heatmap('wan-rtt.html', inputs('', 'run.json'));
const oldRun = inputs('old-', null).flatMap((a) => (a === '--input' ? '--compare' : a));
const compared = heatmap('wan-compare.html', [...inputs('', 'run-sites.json'), ...oldRun]);
const withPaths = [...inputs('', 'run-sites.json'), '--input', path.join(WAN, 'paths.jsonl')];
const pathsPage = heatmap('wan-paths.html', withPaths);
const advice = JSON.parse(execFileSync(BIN, ['heatmap', ...withPaths, '--advise-json', '-'],
  { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }));

// --compare --text lists the slowed link, both ways, in every kind, and no
// other pair; the old run against itself lists nothing.
const SLOWED = new Set(['n4 -> n8', 'n8 -> n4']);
const text = (args) => execFileSync(BIN, ['heatmap', ...args, '--text'],
  { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
const worse = text([...inputs('', 'run.json'), ...oldRun]).split('\n')
  .filter((l) => l.startsWith('  worse: '));
assert.equal(worse.length, 10, `5 kinds x 2 directions: ${worse.join('; ')}`);
const words = (l) => l.trim().replace(/:/g, '').split(' ');
for (const l of worse) assert.ok(SLOWED.has(words(l).slice(2, 5).join(' ')), l);
assert.deepEqual(new Set(worse.map((l) => words(l)[1])),
  new Set(['ping', 'iperf3', 'libp2p_ping', 'latency', 'throughput']));
assert.match(text([...inputs('old-', null), ...oldRun]), /Compared with the old run: no pair worse\./);

// A mesh above the table's 128 hosts: 150 hosts in three sites of 50 (ping
// only), one slow pair h7 -> h120.
const bigIn = path.join(OUT, 'big-150.jsonl');
{
  const lines = [];
  for (let i = 1; i <= 150; i++) {
    for (let j = 1; j <= 150; j++) {
      if (i === j) continue;
      const si = Math.floor((i - 1) / 50), sj = Math.floor((j - 1) / 50);
      let avg = si === sj ? 0.3 : 20 * (1 + Math.abs(si - sj));
      if (i === 7 && j === 120) avg = 400;
      lines.push(JSON.stringify({ kind: 'ping', source: `h${i}`, target: `h${j}`, ok: true,
        metrics: { avg, min: avg, max: avg } }));
    }
  }
  writeFileSync(bigIn, lines.join('\n') + '\n');
}
const big = heatmap('big-150.html', ['--input', bigIn]);

let passed = 0;
function ok(what) {
  passed++;
  console.log(`ok ${passed} - ${what}`);
}

function watch(page) {
  const seen = { requests: [], errors: [] };
  page.on('request', (r) => seen.requests.push(r.url()));
  page.on('console', (m) => { if (m.type() === 'error') seen.errors.push(m.text()); });
  page.on('pageerror', (e) => seen.errors.push(String(e)));
  return seen;
}

// Rows' hosts and groups, in page order.
const rowGroups = (page) => page.$$eval('#matrix tbody th[scope=row]',
  (ths) => ths.map((t) => [t.textContent, t.getAttribute('data-group')]));

// Hosts of one group are one site and each site one group; a group's rows
// are next to each other.
function sameSites(rows, named) {
  const seen = new Map();
  let last = null;
  const done = new Set();
  for (const [host, group] of rows) {
    assert.ok(group, `${host} has a group`);
    if (group !== last) {
      assert.ok(!done.has(group), `the rows of ${group} are together`);
      if (last !== null) done.add(last);
      last = group;
    }
    if (named) assert.equal(group, SITE[host], `${host} is in ${SITE[host]}`);
    if (!seen.has(group)) seen.set(group, SITE[host]);
    assert.equal(seen.get(group), SITE[host], `${group} holds only ${seen.get(group)} hosts`);
  }
  assert.equal(seen.size, 3, 'three groups');
  assert.equal(new Set(seen.values()).size, 3, 'one group per site');
}

const chrome = await launch({
  viewport: { width: 1100, height: 900 },
});
const { context } = chrome;
try {
  const page = context.pages()[0] || await context.newPage();
  const seen = watch(page);

  for (const [file, how] of [[withField, 'run.json site'], [withConfig, '--config machines.json']]) {
    await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
    sameSites(await rowGroups(page), true);
    const cols = await page.$$eval('#matrix thead th[scope=col]', (ths) => ths.map((t) => t.getAttribute('data-group')));
    assert.deepEqual(cols, (await rowGroups(page)).map((r) => r[1]), 'columns in the rows\' order');
    assert.equal(await page.$$eval('#matrix col.gl', (c) => c.length), 2, 'two lines between three groups');
    ok(`groups are the sites (${how})`);
  }

  await page.goto(pathToFileURL(clustered).href, { waitUntil: 'load' });
  sameSites(await rowGroups(page), false);
  assert.match(await page.textContent('#sites'), /average-linkage clusters of the ping avg/);
  ok('without the site field the clusters of the round trips are the sites');

  // The relay advice: a panel beside the path view, a row per host that
  // needs a relay as --advise-json gives it, and the patch; hidden on the
  // other views, absent from a page whose run needs no relay.
  await page.goto(pathToFileURL(pathsPage).href, { waitUntil: 'load' });
  assert.equal(await page.isVisible('#advice'), false, 'no panel beside the ping view');
  await page.selectOption('#kind', { label: 'path: 1 direct, 2 hole-punched, 3 relayed' });
  assert.equal(await page.isVisible('#advice'), true, 'the panel beside the path view');
  const advRows = await page.$$eval('#advice tbody tr', (trs) => trs.map((tr) =>
    [...tr.cells].map((td) => td.textContent)));
  assert.deepEqual(advRows, advice.hosts.map((h) => [h.host, h.relay, String(h.pairs),
    h.predicted_ms.toFixed(1), h.today_ms.toFixed(1), (h.today_ms - h.predicted_ms).toFixed(1)]),
    'the panel\'s rows are --advise-json\'s hosts');
  const patch = await page.textContent('#advice-patch');
  for (const r of advice.public) assert.ok(patch.includes(`"${r}": export NETPROF_OF_REACHABILITY=public`), patch);
  const mx = await page.$eval('#matrix', (t) => t.getBoundingClientRect());
  const adv = await page.$eval('#advice', (a) => a.getBoundingClientRect());
  assert.ok(adv.left >= mx.right - 1 && adv.top < mx.bottom, 'the panel beside the matrix, not below it');
  await (await page.$('#view')).screenshot({ path: path.join(OUT, 'wan-advice.png') });
  await page.selectOption('#kind', { label: 'ping' });
  assert.equal(await page.isVisible('#advice'), false, 'hidden again on another view');
  await page.goto(pathToFileURL(withField).href, { waitUntil: 'load' });
  assert.equal(await page.$('#advice'), null, 'no panel where no host needs a relay');
  ok('the relay advice beside the path view, as --advise-json gives it');

  // The slowed link n4 <-> n8 is the worst pair of fra -> iad, in ping and
  // in both throughput kinds.
  await page.goto(pathToFileURL(withField).href, { waitUntil: 'load' });
  for (const kind of ['ping', 'iperf3', 'latency', 'throughput']) {
    const worst = await page.$eval(`table.sites[data-kind=${kind}]`, (t) => {
      const heads = [...t.tHead.rows[0].cells].map((c) => c.textContent);
      const row = [...t.tBodies[0].rows].find((r) => r.cells[0].textContent === 'fra');
      return row.cells[heads.indexOf('iad')].getAttribute('data-worst');
    });
    assert.equal(worst, 'n4 → n8', `${kind}: fra -> iad's worst pair`);
  }
  ok('the slowed link is the worst cell of its site pair (ping, iperf3, latency, throughput)');
  await page.screenshot({ path: path.join(OUT, 'wan-sites.png'), fullPage: true });

  // Small multiples: one canvas per kind; hovering n4 -> n8 in ping's
  // highlights that pair in every multiple and in the matrix, and the
  // tooltip names it; hovering the matrix moves the highlight everywhere.
  const hostOrder = (await rowGroups(page)).map((r) => r[0]);
  const N = hostOrder.length;
  const idx = hostOrder.indexOf('n4') * N + hostOrder.indexOf('n8');
  const canvases = await page.$$('canvas.mult');
  assert.ok(canvases.length >= 6, 'a multiple per kind and the overlay');
  await canvases[0].scrollIntoViewIfNeeded();
  const box = await canvases[0].boundingBox();
  await page.mouse.move(box.x + (hostOrder.indexOf('n8') + 0.5) * box.width / N,
    box.y + (hostOrder.indexOf('n4') + 0.5) * box.height / N);
  await page.waitForSelector('#tip:not([hidden])');
  assert.match(await page.textContent('#tip'), /n4 → n8 · ping/);
  const lit = await page.$$eval('canvas.mult', (cs) => cs.map((c) => c.getAttribute('data-hl')));
  assert.deepEqual(lit, lit.map(() => String(idx)), 'every multiple highlights the pair');
  const hl = await page.$$eval('#matrix td[data-hl]', (tds) => tds.map((td) =>
    [td.parentNode.sectionRowIndex, td.cellIndex - 1]));
  assert.deepEqual(hl, [[hostOrder.indexOf('n4'), hostOrder.indexOf('n8')]], 'the matrix cell too');
  await page.hover(`#matrix tbody tr:nth-child(1) td:nth-of-type(2)`);
  assert.deepEqual(await page.$$eval('canvas.mult', (cs) => cs.map((c) => c.getAttribute('data-hl'))),
    lit.map(() => '1'), 'hovering the matrix highlights the multiples');
  await page.mouse.move(box.x + (hostOrder.indexOf('n8') + 0.5) * box.width / N,
    box.y + (hostOrder.indexOf('n4') + 0.5) * box.height / N);
  await (await page.$('#multiples')).screenshot({ path: path.join(OUT, 'wan-multiples.png') });
  ok(`hover is linked across ${canvases.length} multiples and the matrix`);

  // The timeline: the run's eight phases, every host's six steps, n9's
  // failed teardown marked, the sweep's records as ticks on their rows.
  const tl = await page.$$eval('svg.timeline rect[data-phase]', (rs) => rs.map((r) =>
    [r.getAttribute('data-host'), r.getAttribute('data-phase'), r.getAttribute('class')]));
  assert.deepEqual(tl.filter((r) => r[0] === 'run').map((r) => r[1]),
    ['init', 'discover', 'configure', 'start', 'converge', 'punch', 'sweep', 'teardown']);
  for (const h of Object.keys(SITE)) {
    assert.deepEqual(tl.filter((r) => r[0] === h).map((r) => r[1]),
      ['init', 'discover', 'configure', 'start', 'converge', 'teardown'], `${h}'s steps`);
  }
  assert.deepEqual(tl.filter((r) => r[2] === 'failed').map((r) => `${r[0]} ${r[1]}`), ['n9 teardown']);
  const ticks = await page.$$eval('svg.timeline g.host', (gs) => gs.map((g) => g.querySelectorAll('rect.tick').length));
  assert.deepEqual(ticks, ticks.map(() => 8 * 3), 'each host\'s 8 targets x 3 bench kinds');
  // The sweep's rounds: a bar each, from the records that name them, in order.
  const rounds = await page.$$eval('svg.timeline rect.round', (rs) => rs.map((r) =>
    [Number(r.getAttribute('data-round')), Number(r.getAttribute('x'))]));
  assert.deepEqual(rounds.map((r) => r[0]), [1, 2, 3, 4, 5, 6, 7, 8, 9], 'a bar per round of the sweep');
  assert.ok(rounds.every((r, i) => i === 0 || r[1] > rounds[i - 1][1]), 'the rounds one after another');
  await (await page.$('section.timeline')).screenshot({ path: path.join(OUT, 'wan-timeline.png') });
  ok('the timeline shows every host\'s phases, the failed step, the sweep\'s rounds and records');

  // The compared page: its list holds the slowed link only, and the change
  // view colours that pair worst.
  await page.goto(pathToFileURL(compared).href, { waitUntil: 'load' });
  const rows = await page.$$eval('#worse-table tbody tr', (trs) => trs.map((tr) =>
    `${tr.cells[1].textContent} -> ${tr.cells[2].textContent}`));
  assert.equal(rows.length, 10);
  for (const r of rows) assert.ok(SLOWED.has(r), `listed as worse: ${r}`);
  await page.selectOption('#kind', { label: 'change: times worse than the old run' });
  const hosts = await page.$$eval('#matrix thead th[scope=col]', (ths) => ths.map((t) => t.textContent));
  const cls = await page.$$eval('#matrix tbody tr', (trs) => trs.map((tr) =>
    [...tr.querySelectorAll('td')].map((td) => td.className)));
  for (let i = 0; i < hosts.length; i++) {
    for (let j = 0; j < hosts.length; j++) {
      const pair = `${hosts[i]} -> ${hosts[j]}`;
      if (i === j) continue;
      if (SLOWED.has(pair)) assert.match(cls[i][j], /q(1[0-9]|20)\b/, `${pair} (${cls[i][j]}) is orange to red`);
      else assert.match(cls[i][j], /q[0-3]\b/, `${pair} (${cls[i][j]}) stays green`);
    }
  }
  ok('--compare flags the link slowed between the runs and no other (list, text, change view)');
  await page.screenshot({ path: path.join(OUT, 'wan-compare.png'), fullPage: true });

  // The diagnosis comes first on the page; its first finding is the
  // slowed link, both ways, worse than the old run, and its "show" marks
  // exactly its cells (ping's, the first kind's) in the matrix.
  assert.ok(await page.evaluate(() => Boolean(document.getElementById('diagnosis')
    .compareDocumentPosition(document.getElementById('view')) & Node.DOCUMENT_POSITION_FOLLOWING)),
  'the findings before the matrix');
  const first = await page.$eval('#diagnosis li.finding', (li) => [li.getAttribute('data-rule'),
    li.querySelector('.title').textContent, li.textContent]);
  assert.equal(first[0], 'pair_degraded');
  assert.match(first[1], /^n4 <-> n8 /);
  assert.match(first[2], /worse than the old run/);
  await page.click('#diagnosis li.finding button.show');
  const shown = await page.$$eval('#matrix td[data-fx]', (tds) => tds.map((td) =>
    `${td.parentNode.cells[0].textContent} -> ${document.querySelectorAll('#matrix thead th[scope=col]')[td.cellIndex - 1].textContent}`));
  assert.deepEqual(new Set(shown), SLOWED, `the cells shown: ${shown.join(', ')}`);
  assert.match(await page.getAttribute('body', 'data-view'), /^ping\//);
  await (await page.$('#diagnosis')).screenshot({ path: path.join(OUT, 'wan-diagnosis.png') });
  ok('the findings come first; the first is the slowed link, worse than the old run, and shows its cells');

  // Above 128 hosts the table is a 64 x 64 block; a click on an overview
  // shows the block around that pair, hover still names the right pair.
  await page.goto(pathToFileURL(big).href, { waitUntil: 'load' });
  assert.equal(await page.$$eval('#matrix tbody td', (t) => t.length), 64 * 64);
  assert.equal(await page.$$eval('svg, canvas.mult', (c) => c.length) > 0, true);
  const bigRows = async () => page.$$eval('#matrix tbody th[scope=row]', (ths) => ths.map((t) => t.textContent));
  const order = (await page.evaluate(() => JSON.parse(document.getElementById('heatmap-data').textContent).hosts));
  assert.equal(order.length, 150);
  await (await page.$('canvas.mult')).scrollIntoViewIfNeeded();
  const cv = await (await page.$('canvas.mult')).boundingBox();
  const r7 = order.indexOf('h7'), c120 = order.indexOf('h120');
  await page.mouse.click(cv.x + (c120 + 0.5) * cv.width / 150, cv.y + (r7 + 0.5) * cv.height / 150);
  const r0 = Number(await page.getAttribute('#matrix', 'data-r0'));
  const c0 = Number(await page.getAttribute('#matrix', 'data-c0'));
  assert.ok(r7 >= r0 && r7 < r0 + 64 && c120 >= c0 && c120 < c0 + 64, `the block (${r0}, ${c0}) holds the pair clicked (${r7}, ${c120})`);
  assert.equal((await bigRows())[r7 - r0], 'h7');
  await page.hover(`#matrix tbody tr:nth-child(${r7 - r0 + 1}) td:nth-of-type(${c120 - c0 + 1})`);
  assert.match(await page.textContent('#tip'), /h7 → h120 · ping/);
  assert.match(await page.textContent('#tip'), /avg400 ms/);
  assert.equal(await page.getAttribute(`#matrix tbody tr:nth-child(${r7 - r0 + 1}) td:nth-of-type(${c120 - c0 + 1})`, 'class'), 'v q20');
  assert.deepEqual([...new Set((await page.$$eval('#site-groups li', (l) => l.map((x) => x.textContent.split(':')[1].split(',').length))))], [50]);
  ok('150 hosts: a 64 x 64 block, the overview picks it, hover and colour follow; three clusters of 50');

  // Its one finding, the slow pair h7 -> h120, shows its cell: the block
  // around it, the cell marked.
  await page.click('#matrix tbody tr:nth-child(1) th');	/* away from the pair */
  assert.equal(await page.$$eval('#diagnosis li.finding', (l) => l.length), 1);
  assert.match(await page.textContent('#diagnosis li.finding .title'), /^h7 -> h120 /);
  await page.click('#diagnosis li.finding button.show');
  const fr0 = Number(await page.getAttribute('#matrix', 'data-r0'));
  const fc0 = Number(await page.getAttribute('#matrix', 'data-c0'));
  assert.deepEqual(await page.$$eval('#matrix td[data-fx]', (tds) => tds.map((td) =>
    [td.parentNode.sectionRowIndex, td.cellIndex - 1])), [[r7 - fr0, c120 - fc0]]);
  ok('150 hosts: a finding\'s "show" brings the block of its cell and marks it');

  assert.deepEqual(seen.errors, [], 'no console error');
  assert.ok(seen.requests.every((u) => u.startsWith('file:')), 'nothing but the pages fetched');
  ok('no console error, no request but the pages');
} finally {
  await chrome.close();
}
console.log(`all ${passed} checks passed`);
