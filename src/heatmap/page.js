(function () {
'use strict';
var D = JSON.parse(document.getElementById('heatmap-data').textContent);
/* A large page packs each metric's values: the distinct numbers once, and
   per cell w base-64 digits of its index among them (heatmap_html.c). */
var DIGITS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
function unpack(p) {
  if (!p || Array.isArray(p)) return p;
  var of = new Int32Array(128), s = p.codes, w = p.w, n = s.length / w;
  var dict = p.dict, i, j, x, c;
  /* Numbers only (no null) fit a typed array, much faster to fill. */
  var out = dict.indexOf(null) < 0 ? new Float64Array(n) : new Array(n);
  for (i = 0; i < 64; i++) of[DIGITS.charCodeAt(i)] = i;
  for (i = 0, j = 0; i < n; i++) {
    for (x = 0, c = 0; x < w; x++) c = (c << 6) | of[s.charCodeAt(j++)];
    out[i] = dict[c];
  }
  return out;
}
/* ... and its states as runs: a state, then its count if more than one. */
function unrun(s) {
  var parts = [], i = 0, n = s.length, c, k, st;
  if (!/[0-9]/.test(s)) return s;
  while (i < n) {
    st = s.charAt(i++);
    for (k = 0; i < n && (c = s.charCodeAt(i)) >= 48 && c <= 57; i++)
      k = k * 10 + c - 48;
    parts.push(k > 1 ? st.repeat(k) : st);
  }
  return parts.join('');
}
D.kinds.forEach(function (k) {
  k.state = unrun(k.state); k.values = k.values.map(unpack);
});
document.getElementById('controls').hidden = false;
var N = D.hosts.length;
var table = document.getElementById('matrix');
var tds = [];
var rows = table.tBodies[0].rows;
for (var i = 0; i < rows.length; i++)
  for (var j = 1; j < rows[i].cells.length; j++) tds.push(rows[i].cells[j]);
/* The table shows a block of the matrix: rows R0.., columns C0.. (all of
   it up to D.block hosts; above, the overview picks the block). */
var R0 = 0, C0 = 0, BR = rows.length, BC = BR ? rows[0].cells.length - 1 : 0;
function cellIdx(i) { return (R0 + Math.floor(i / BC)) * N + C0 + i % BC; }
function tdOf(idx) {
  var r = Math.floor(idx / N) - R0, c = idx % N - C0;
  return r >= 0 && r < BR && c >= 0 && c < BC ? tds[r * BC + c] : null;
}
var selKind = document.getElementById('kind');
var selMetric = document.getElementById('metric');
var chkLog = document.getElementById('log');
var chkRaw = document.getElementById('raw');
/* the relay advice (heatmap_advise.c), beside the path view only */
var advice = document.getElementById('advice');
var tip = document.getElementById('tip');
var view = { k: D.view[0], m: D.view[1] };
function badness(v, lo, hi, hb, lg) {
  var t;
  if (!(hi > lo)) return 0;
  if (lg && lo > 0 && v > 0)
    t = (Math.log(v) - Math.log(lo)) / (Math.log(hi) - Math.log(lo));
  else t = (v - lo) / (hi - lo);
  t = Math.min(1, Math.max(0, t));
  return hb ? 1 - t : t;
}
/* heatmap_relative_badness(): a cell against its site pair's typical
   value (the diagnosis'), and the cells a finding names (its severity:
   1 info, 2 warning, 3 error). */
function relBadness(k, i) {
  var r = k.rel, sev = r.named[i], g = Math.round(Math.sqrt(r.typ.length));
  var v = (k.values[r.m] || [])[i], ty, x;
  if (sev >= 2) return 1;
  if (sev === 1) return D.relHint;
  ty = r.typ[D.group[Math.floor(i / N)] * g + D.group[i % N]];
  if (v === null || v === undefined || ty === null || !(ty > 0)) return 0;
  if (v <= 0) return r.hb ? D.relBelow : 0;
  x = Math.log(r.hb ? ty / v : v / ty) / Math.log(2);
  if (r.fl > 0) x = Math.min(x, (r.hb ? ty - v : v - ty) / r.fl);
  return D.relBelow * Math.min(1, Math.max(0, x));
}
/* The view is on the scale against typical: its kind has one, and the
   raw scale is not asked for. */
function onRel(k) { return Boolean(k.rel && D.group) && !chkRaw.checked; }
function fmt(v) {
  var a = Math.abs(v);
  if (v === null || v === undefined) return '?';
  if (a >= 100 || a === Math.floor(a)) return v.toFixed(0);
  if (a >= 10) return v.toFixed(1);
  return v.toFixed(2);
}
function fill(sel, labels, chosen) {
  sel.textContent = '';
  labels.forEach(function (l, i) {
    var o = document.createElement('option');
    o.value = String(i); o.textContent = l; sel.appendChild(o);
  });
  sel.value = String(chosen);
}
function mlabel(m) { return m.name + (m.unit ? ' (' + m.unit + ')' : ''); }
/* A large page holds the values of the default and first metric only. */
function mlabelOf(k) {
  return function (m, i) {
    return mlabel(m) + (k.values[i] ? '' : ' \u2014 not on this page (--metric)');
  };
}
function when(t) {
  var d = new Date(t * 1000);
  return isNaN(d.getTime()) ? 'not a valid time' : d.toISOString();
}
function range(k, m) {
  var vals = k.values[m] || [], lo = null, hi = null;
  for (var i = 0; i < vals.length; i++) {
    var v = vals[i];
    if (k.state.charAt(i) !== 'v' || v === null) continue;
    if (lo === null || v < lo) lo = v;
    if (hi === null || v > hi) hi = v;
  }
  return lo === null ? null : { lo: lo, hi: hi };
}
/* heatmap_scale_span(): the colours spread over at least a floor. */
function span(m, r) {
  if (r === null) return null;
  var need = Math.max(D.rel * Math.max(Math.abs(r.lo), Math.abs(r.hi)),
    m.fl || 0);
  if (r.hi - r.lo >= need) return r;
  return m.hb ? { lo: r.hi - need, hi: r.hi } : { lo: r.lo, hi: r.lo + need };
}
function setText(id, s) { document.getElementById(id).textContent = s; }
function render() {
  var k = D.kinds[view.k], m = k.metrics[view.m] || null;
  var vals = k.values[view.m] || [];
  var r = m ? span(m, range(k, view.m)) : null;
  var rel = onRel(k);
  var canLog = !rel && r !== null && r.lo > 0 && r.hi / r.lo > 10;
  chkLog.disabled = !canLog;
  chkRaw.disabled = !(k.rel && D.group);
  var lg = canLog && chkLog.checked;
  for (var i = 0; i < tds.length; i++) {
    var ci = cellIdx(i), td = tds[i], st = k.state.charAt(ci), v = vals[ci];
    if (st === 'v' && v != null) {
      td.className = 'v q' + Math.round((rel ? relBadness(k, ci) :
        badness(v, r.lo, r.hi, m.hb, lg)) * D.steps);
      td.textContent = fmt(v);
      continue;
    }
    if (st === 's') { td.className = 's'; td.textContent = '\u2014'; }
    else if (st === 'f') { td.className = 'f'; td.textContent = '\u2715'; }
    else { td.className = 'm'; td.textContent = '?'; }
  }
  setText('view-title', k.label + ': ' +
    (m ? mlabel(m) : 'no metric (every record failed)'));
  if (rel) {
    setText('lg-scale', 'colour: ' + k.metrics[k.rel.m].name +
      ' against its site pair\'s typical value (the diagnosis\')');
    setText('lg-lo', 'typical or better');
    setText('lg-hi', 'twice typical: orange; named by the diagnosis: red');
  } else {
    setText('lg-scale', 'colour: the view\'s best to its worst');
    setText('lg-lo', 'best ' + (r ? fmt(m.hb ? r.hi : r.lo) : '-'));
    setText('lg-hi', 'worst ' + (r ? fmt(m.hb ? r.lo : r.hi) : '-'));
  }
  setText('lg-unit', m ? m.unit : '');
  setText('lg-dir', !m ? '' : (m.hb ? 'higher is better' :
    'lower is better') + (lg ? ', log scale' : ''));
  document.body.setAttribute('data-view', k.name + '\/' + (m ? m.name : ''));
  if (advice) advice.hidden = !(k.derived && k.name === 'path');
}
fill(selKind, D.kinds.map(function (k) { return k.label; }), view.k);
fill(selMetric, D.kinds[view.k].metrics.map(mlabelOf(D.kinds[view.k])), view.m);
selKind.addEventListener('change', function () {
  unmark();
  view.k = Number(selKind.value); view.m = D.kinds[view.k]['default'];
  fill(selMetric, D.kinds[view.k].metrics.map(mlabelOf(D.kinds[view.k])), view.m);
  render();
});
selMetric.addEventListener('change', function () {
  view.m = Number(selMetric.value); render();
});
chkLog.addEventListener('change', render);
chkRaw.addEventListener('change', function () {
  render(); mults.forEach(drawMult);
  /* the site tables' cells: their worst pair against typical, or raw */
  document.querySelectorAll('table.sites td[data-qraw]').forEach(function (c) {
    c.className = 'v q' + (chkRaw.checked ? c.dataset.qraw : c.dataset.qrel);
  });
  if (lit >= 0) { var l = lit; lit = -1; highlight(l); }
});
/* the path kind's classes (matrix_path.c) */
var PATHS = ['unknown', 'direct', 'hole-punched', 'relayed'];
function row(tb, label, value, cls) {
  var tr = document.createElement('tr'), a = document.createElement('td'),
    b = document.createElement('td');
  a.textContent = label; b.textContent = value;
  if (cls) b.className = cls;
  tr.appendChild(a); tr.appendChild(b); tb.appendChild(tr);
}
function showTip(idx, x, y, ki) {
  var k = D.kinds[ki === undefined ? view.k : ki], st = k.state.charAt(idx);
  var s = Math.floor(idx / N), t = idx % N;
  tip.textContent = '';
  var h = document.createElement('div');
  h.textContent = D.hosts[s] + ' \u2192 ' + D.hosts[t] + ' \u00b7 ' + k.label;
  h.style.fontWeight = '600';
  tip.appendChild(h);
  var tb = document.createElement('table');
  if (st === 's') row(tb, 'self', 'a host is not measured against itself');
  else if (st === 'm' && D.sample > 0)
    row(tb, 'not measured', 'not in this sweep\'s sample (--sample ' +
      D.sample + '): consecutive sweeps\' records fill the matrix');
  else if (st === 'm') row(tb, 'missing', 'no record for this pair');
  else {
    if (st === 'f') row(tb, 'status', 'failed', 'err');
    k.metrics.forEach(function (m, mi) {
      var v = (k.values[mi] || [])[idx];
      if (st === 'v' && v != null)
        row(tb, m.name, k.name === 'path' && k.derived && m.name === 'class' ?
          (PATHS[v] || fmt(v)) : fmt(v) + (m.unit ? ' ' + m.unit : ''));
    });
    if (st === 'v' && k.rel && D.group) {
      var rm = k.metrics[k.rel.m], g = Math.round(Math.sqrt(k.rel.typ.length));
      var ty = k.rel.typ[D.group[s] * g + D.group[t]];
      if (ty !== null) row(tb, 'typical ' + rm.name + ' of its site pair',
        fmt(ty) + (rm.unit ? ' ' + rm.unit : ''));
    }
    if (k.path && k.path[idx]) row(tb, 'path', k.path[idx]);
    if (k.n && k.n[idx] >= 0) row(tb, 'samples', String(k.n[idx]));
    if (k.rec) row(tb, 'records', k.rec[idx] + (k.fail[idx] ?
      ' (' + k.fail[idx] + ' failed)' : ''));
    if (k.t && k.t[idx] >= 0)
      row(tb, 'time', when(D.t0 + k.t[idx]));
    var e = k.err && k.err[idx];
    if (typeof e === 'number') e = D.errs[e];
    if (e) row(tb, (st === 'f' ? 'error' : 'last error') + ' (' + e[0] + ')',
      e[1], 'err');
  }
  tip.appendChild(tb);
  tip.hidden = false;
  moveTip(x, y);
}
function moveTip(x, y) {
  var w = tip.offsetWidth, hh = tip.offsetHeight;
  var left = x + 14, top = y + 14;
  if (left + w > window.innerWidth) left = Math.max(0, x - w - 14);
  if (top + hh > window.innerHeight) top = Math.max(0, y - hh - 14);
  tip.style.left = left + 'px'; tip.style.top = top + 'px';
}
table.addEventListener('mouseover', function (e) {
  var td = e.target.closest ? e.target.closest('td') : null;
  if (!td || td.parentNode.parentNode !== table.tBodies[0]) {
    tip.hidden = true; return;
  }
  var idx = (R0 + td.parentNode.sectionRowIndex) * N + C0 + td.cellIndex - 1;
  showTip(idx, e.clientX, e.clientY);
  highlight(idx);
});
table.addEventListener('mousemove', function (e) {
  if (!tip.hidden) moveTip(e.clientX, e.clientY);
});
table.addEventListener('mouseleave', function () {
  tip.hidden = true; highlight(-1);
});
/* Small multiples: every kind's matrix, same hosts in the same order,
   each with its own scale; hovering one highlights the pair in all. */
var STOPS = [[26, 152, 80], [254, 224, 139], [215, 48, 39]];
/* heatmap_color() */
function rgbOf(b) {
  var a = b <= 0.5 ? STOPS[0] : STOPS[1], c = b <= 0.5 ? STOPS[1] : STOPS[2];
  var t = b <= 0.5 ? b * 2 : (b - 0.5) * 2;
  return a.map(function (x, i) { return Math.round(x + (c[i] - x) * t); });
}
var mults = [].slice.call(document.querySelectorAll('canvas.mult'));
var cpx = Math.max(1, Math.floor(240 / Math.max(1, N)));
/* The palette of the colour classes, as RGBA bytes. */
var PAL = [];
for (var q = 0; q <= D.steps; q++) PAL.push(rgbOf(q / D.steps));
var SPECIAL = { s: [74, 74, 74], f: [139, 0, 0], m: [228, 228, 228] };
function drawMult(cv) {
  var ki = Number(cv.getAttribute('data-k')), k = D.kinds[ki];
  var m = k.metrics[k['default']] || null, vals = m ? k.values[k['default']] || [] : [];
  var r = m ? span(m, range(k, k['default'])) : null, rel = onRel(k);
  var W = N * cpx, g, img, px, i, j, x, y;
  cv.width = cv.height = W;
  g = cv.getContext('2d');
  img = g.createImageData(W, W); px = img.data;
  for (i = 0; i < N * N; i++) {
    var st = k.state.charAt(i), v = vals[i], c;
    if (st === 'v' && m && v != null)
      c = PAL[Math.round((rel ? relBadness(k, i) :
        badness(v, r.lo, r.hi, m.hb, 0)) * D.steps)];
    else c = SPECIAL[st === 'v' ? 'm' : st];
    var x0 = (i % N) * cpx, y0 = Math.floor(i / N) * cpx;
    for (y = y0; y < y0 + cpx; y++)
      for (x = x0, j = (y * W + x0) * 4; x < x0 + cpx; x++, j += 4) {
        px[j] = c[0]; px[j + 1] = c[1]; px[j + 2] = c[2]; px[j + 3] = 255;
      }
  }
  g.putImageData(img, 0, 0);
  if (D.group) {
    g.fillStyle = '#111';
    for (j = 1; j < N; j++) if (D.group[j] !== D.group[j - 1]) {
      g.fillRect(j * cpx, 0, 1, W); g.fillRect(0, j * cpx, W, 1);
    }
  }
  cv.base = g.getImageData(0, 0, W, W);
}
var lit = -1;
function highlight(idx) {
  if (idx === lit) return;
  var old = lit >= 0 ? tdOf(lit) : null;
  if (old) old.removeAttribute('data-hl');
  lit = idx;
  if (idx >= 0 && tdOf(idx)) tdOf(idx).setAttribute('data-hl', '');
  mults.forEach(function (cv) {
    cv.setAttribute('data-hl', String(idx));
    if (!cv.base) return;	/* not drawn yet */
    var g = cv.getContext('2d');
    g.putImageData(cv.base, 0, 0);
    if (idx < 0) return;
    var x = (idx % N) * cpx, y = Math.floor(idx / N) * cpx, w = Math.max(cpx, 3);
    g.fillStyle = 'rgba(0,0,0,.12)';
    g.fillRect(0, y, N * cpx, cpx); g.fillRect(x, 0, cpx, N * cpx);
    g.strokeStyle = '#000'; g.lineWidth = 2;
    g.strokeRect(x - 1, y - 1, w + 2, w + 2);
  });
}
mults.forEach(function (cv) {
  cv.style.width = cv.style.height = Math.max(N * cpx, 160) + 'px';
  cv.addEventListener('mousemove', function (e) {
    var rc = cv.getBoundingClientRect(), sc = rc.width / (N * cpx);
    var col = Math.floor((e.clientX - rc.left) / sc / cpx);
    var row = Math.floor((e.clientY - rc.top) / sc / cpx);
    if (col < 0 || row < 0 || col >= N || row >= N) return;
    highlight(row * N + col);
    showTip(row * N + col, e.clientX, e.clientY, Number(cv.getAttribute('data-k')));
  });
  cv.addEventListener('mouseleave', function () { tip.hidden = true; highlight(-1); });
  cv.addEventListener('click', function (e) {
    var rc = cv.getBoundingClientRect(), sc = rc.width / (N * cpx);
    zoom(Math.floor((e.clientY - rc.top) / sc / cpx),
      Math.floor((e.clientX - rc.left) / sc / cpx));
  });
});
/* Zoom: the table shows the block around (row, col) of the overview. */
function zoom(row, col) {
  if (BR >= N && BC >= N) return;
  unmark();
  R0 = Math.max(0, Math.min(N - BR, row - (BR >> 1)));
  C0 = Math.max(0, Math.min(N - BC, col - (BC >> 1)));
  var heads = table.tHead.rows[0].cells, cols = table.querySelectorAll('col');
  for (var j = 0; j < BC; j++) {
    heads[j + 1].textContent = D.hosts[C0 + j];
    if (cols[j + 1]) cols[j + 1].className = D.group && j > 0 &&
      D.group[C0 + j] !== D.group[C0 + j - 1] ? 'gl' : '';
  }
  for (var i = 0; i < BR; i++) {
    rows[i].cells[0].textContent = D.hosts[R0 + i];
    rows[i].className = D.group && i > 0 &&
      D.group[R0 + i] !== D.group[R0 + i - 1] ? 'gt' : '';
  }
  table.setAttribute('data-r0', String(R0));
  table.setAttribute('data-c0', String(C0));
  setText('block', 'rows ' + (R0 + 1) + '-' + (R0 + BR) + ', columns ' +
    (C0 + 1) + '-' + (C0 + BC) + ' of ' + N);
  render();
}
/* Findings: "show" marks a finding's cells in the matrix, in its first
   cell's kind and the block around that cell (data-cells: kind.cell). */
var marked = [];
function unmark() {
  marked.forEach(function (td) { td.removeAttribute('data-fx'); });
  marked = [];
}
function showFinding(li) {
  var cells = (li.getAttribute('data-cells') || '').split(' ')
    .filter(function (x) { return x; })
    .map(function (x) { var p = x.split('.'); return [Number(p[0]), Number(p[1])]; });
  if (!cells.length) return;
  var k = cells[0][0], first = cells[0][1];
  if (view.k !== k) {
    view.k = k; view.m = D.kinds[k]['default'];
    selKind.value = String(k);
    fill(selMetric, D.kinds[k].metrics.map(mlabelOf(D.kinds[k])), view.m);
  }
  if (BR < N || BC < N) zoom(Math.floor(first / N), first % N);
  else render();
  unmark();
  cells.forEach(function (c) {
    var td = c[0] === k ? tdOf(c[1]) : null;
    if (td) { td.setAttribute('data-fx', ''); marked.push(td); }
  });
  document.body.setAttribute('data-finding', li.getAttribute('data-rank'));
  table.scrollIntoView({ block: 'nearest' });
}
[].forEach.call(document.querySelectorAll('#diagnosis li.finding button.show'),
  function (a) {
    a.addEventListener('click', function (e) {
      e.preventDefault(); showFinding(a.parentNode);
    });
  });
if (mults.length) document.getElementById('multiples').hidden = false;
document.body.setAttribute('data-view', D.kinds[view.k].name + '\/' +
  (D.kinds[view.k].metrics[view.m] || { name: '' }).name);
if (window.performance && performance.mark) performance.mark('heatmap-ready');
/* The overviews below the matrix are drawn after it is shown: a pixel per
   pair of a thousand hosts is a few hundred ms the first view need not
   wait for. */
setTimeout(function () {
  mults.forEach(drawMult);
  if (lit >= 0) { var l = lit; lit = -1; highlight(l); }
}, 0);
})();
