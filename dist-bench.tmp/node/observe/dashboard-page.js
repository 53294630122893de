/**
 * The live dashboard served at `/`: one static page, inline CSS and JS, SVG charts, no
 * dependencies and no build step (a TS string module, so `tsc` ships it in dist/). It polls
 * `/status` and `/history?since=<iteration>` once a second and redraws. Each chart's <svg> carries
 * `data-points` (points drawn) and `data-last` (the last value) for people and tests alike.
 * (The script avoids backticks and dollar-brace so the page can live in a template literal.)
 */
export const DASHBOARD_HTML = String.raw `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>seedswarm</title>
<style>
  :root { --fg: #1d2330; --mut: #6b7385; --bg: #f6f7f9; --card: #fff; --line: #e3e6ec;
          --a: #2f6fdf; --b: #e0662f; --ok: #1f9d55; --bad: #d23c3c; }
  @media (prefers-color-scheme: dark) {
    :root { --fg: #e6e8ee; --mut: #9aa1b2; --bg: #12151b; --card: #1b1f27; --line: #2b303b; }
  }
  * { box-sizing: border-box; }
  body { margin: 0; font: 14px/1.4 system-ui, sans-serif; color: var(--fg); background: var(--bg); }
  header { display: flex; flex-wrap: wrap; align-items: baseline; gap: 12px; padding: 14px 20px 4px; }
  h1 { font-size: 18px; margin: 0; }
  .badge { padding: 2px 8px; border-radius: 10px; font-size: 12px; color: #fff; background: var(--mut); }
  .badge.training { background: var(--ok); } .badge.leaving, .badge.down { background: var(--bad); }
  .mut { color: var(--mut); } code { font-size: 12px; }
  .bar { height: 6px; background: var(--line); border-radius: 3px; margin: 6px 20px 10px; }
  .bar > div { height: 100%; width: 0; background: var(--a); border-radius: 3px; transition: width .3s; }
  .stats { display: grid; grid-template-columns: repeat(auto-fill, minmax(130px, 1fr)); gap: 8px; padding: 0 20px; }
  .stat { background: var(--card); border: 1px solid var(--line); border-radius: 6px; padding: 8px 10px; }
  .stat b { display: block; font-size: 18px; font-variant-numeric: tabular-nums; }
  .stat span { color: var(--mut); font-size: 12px; }
  .charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(420px, 1fr)); gap: 12px; padding: 12px 20px 20px; }
  .chart { background: var(--card); border: 1px solid var(--line); border-radius: 6px; padding: 8px 10px; }
  .chart h2 { font-size: 13px; margin: 0 0 4px; font-weight: 600; }
  svg { width: 100%; height: 180px; display: block; }
  svg text { fill: var(--mut); font-size: 10px; }
  svg .grid { stroke: var(--line); stroke-width: 1; }
  svg .s0 { stroke: var(--a); } svg .s1 { stroke: var(--b); }
  svg polyline { fill: none; stroke-width: 1.6; vector-effect: non-scaling-stroke; }
  #err { display: none; margin: 0 20px; padding: 6px 10px; border-radius: 6px; background: var(--bad); color: #fff; }
</style>
</head>
<body>
<header>
  <h1 id="name">seedswarm</h1><span id="state" class="badge">connecting</span>
  <span class="mut">run <code id="run">-</code></span><span class="mut">peer <code id="peer">-</code></span>
  <span class="mut" id="backend"></span>
</header>
<div class="bar"><div id="progress"></div></div>
<div id="err"></div>
<section class="stats">
  <div class="stat"><b id="iteration">-</b><span>iteration</span></div>
  <div class="stat"><b id="loss">-</b><span>training loss</span></div>
  <div class="stat"><b id="accuracy">-</b><span>test accuracy</span></div>
  <div class="stat"><b id="rate">-</b><span>iterations / s</span></div>
  <div class="stat"><b id="peers">-</b><span>peers</span></div>
  <div class="stat"><b id="bytes">-</b><span>in / out</span></div>
  <div class="stat"><b id="checksum">-</b><span>checksum</span></div>
  <div class="stat"><b id="uptime">-</b><span>uptime</span></div>
</section>
<section class="charts">
  <div class="chart"><h2>Training loss <span class="mut">by iteration</span></h2><svg id="c-loss" data-points="0"></svg></div>
  <div class="chart"><h2>Test accuracy <span class="mut">by iteration</span></h2><svg id="c-accuracy" data-points="0"></svg></div>
  <div class="chart"><h2>Iterations per second <span class="mut">over time</span></h2><svg id="c-rate" data-points="0"></svg></div>
  <div class="chart"><h2>Peers <span class="mut">over time</span></h2><svg id="c-peers" data-points="0"></svg></div>
  <div class="chart"><h2>Bytes per iteration <span class="mut">in (blue) / out (orange)</span></h2><svg id="c-bytes" data-points="0"></svg></div>
</section>
<script>
"use strict";
var rows = [], last = -1, W = 600, H = 180, PAD = { l: 46, r: 8, t: 8, b: 18 };
var $ = function (id) { return document.getElementById(id); };
var NS = "http://www.w3.org/2000/svg";

function fmt(v, digits) {
  if (v === null || v === undefined || !isFinite(v)) return "-";
  var a = Math.abs(v);
  if (a >= 1e9) return (v / 1e9).toFixed(1) + "G";
  if (a >= 1e6) return (v / 1e6).toFixed(1) + "M";
  if (a >= 1e4) return (v / 1e3).toFixed(1) + "k";
  return v.toFixed(digits === undefined ? (a >= 100 ? 0 : a >= 1 ? 2 : 4) : digits);
}
function bytes(v) {
  return v >= 1e9 ? (v / 1e9).toFixed(1) + "G" : v >= 1e6 ? (v / 1e6).toFixed(1) + "M" : v >= 1e3 ? (v / 1e3).toFixed(0) + "k" : String(v);
}
function dur(s) {
  var h = Math.floor(s / 3600), m = Math.floor(s / 60) % 60, x = s % 60;
  return (h ? h + "h " : "") + (h || m ? m + "m " : "") + x + "s";
}
function el(name, attrs, text) {
  var e = document.createElementNS(NS, name);
  for (var k in attrs) e.setAttribute(k, attrs[k]);
  if (text !== undefined) e.textContent = text;
  return e;
}
// Averages points into at most n buckets: a long run stays fast to draw.
function thin(pts, n) {
  if (pts.length <= n) return pts;
  var out = [], size = pts.length / n;
  for (var i = 0; i < n; i++) {
    var a = Math.floor(i * size), b = Math.max(a + 1, Math.floor((i + 1) * size)), sx = 0, sy = 0;
    for (var j = a; j < b; j++) { sx += pts[j][0]; sy += pts[j][1]; }
    out.push([sx / (b - a), sy / (b - a)]);
  }
  return out;
}
// Draws series (arrays of [x, y]) into an svg with a y grid and min/max labels.
function chart(id, series, xLabel) {
  var svg = $(id);
  svg.setAttribute("viewBox", "0 0 " + W + " " + H);
  while (svg.firstChild) svg.removeChild(svg.firstChild);
  series = series.map(function (s) { return thin(s.filter(function (p) { return isFinite(p[1]); }), 400); });
  var all = [].concat.apply([], series);
  svg.setAttribute("data-points", String(all.length));
  if (all.length === 0) { svg.appendChild(el("text", { x: W / 2 - 30, y: H / 2 }, "waiting for data")); return; }
  var xs = all.map(function (p) { return p[0]; }), ys = all.map(function (p) { return p[1]; });
  var x0 = Math.min.apply(null, xs), x1 = Math.max.apply(null, xs);
  var y0 = Math.min.apply(null, ys), y1 = Math.max.apply(null, ys);
  if (y1 === y0) { y1 += Math.abs(y1) * 0.1 || 1; y0 -= Math.abs(y0) * 0.1 || 0; }
  if (x1 === x0) x1 = x0 + 1;
  var px = function (x) { return PAD.l + (x - x0) / (x1 - x0) * (W - PAD.l - PAD.r); };
  var py = function (y) { return H - PAD.b - (y - y0) / (y1 - y0) * (H - PAD.t - PAD.b); };
  for (var i = 0; i <= 4; i++) {
    var y = y0 + (y1 - y0) * i / 4;
    svg.appendChild(el("line", { class: "grid", x1: PAD.l, x2: W - PAD.r, y1: py(y), y2: py(y) }));
    svg.appendChild(el("text", { x: 2, y: py(y) + 3 }, fmt(y)));
  }
  svg.appendChild(el("text", { x: PAD.l, y: H - 4 }, xLabel(x0)));
  svg.appendChild(el("text", { x: W - PAD.r - 60, y: H - 4 }, xLabel(x1)));
  series.forEach(function (s, k) {
    var pts = s.map(function (p) { return px(p[0]).toFixed(1) + "," + py(p[1]).toFixed(1); }).join(" ");
    svg.appendChild(el("polyline", { class: "s" + k, points: pts }));
  });
  var lastSeries = series[0].length ? series[0] : all;
  svg.setAttribute("data-last", String(lastSeries[lastSeries.length - 1][1]));
}

function draw() {
  var t0 = rows.length ? rows[0].t : 0;
  var it = function (x) { return "it " + Math.round(x); };
  var sec = function (x) { return dur(Math.round((x - t0) / 1000)); };
  chart("c-loss", [rows.map(function (r) { return [r.iteration, r.loss === null ? NaN : r.loss]; })], it);
  chart("c-accuracy", [rows.filter(function (r) { return r.accuracy !== null; }).map(function (r) { return [r.iteration, r.accuracy]; })], it);
  chart("c-rate", [rows.map(function (r) { return [r.t, r.itPerSec]; })], sec);
  chart("c-peers", [rows.map(function (r) { return [r.t, r.peers]; })], sec);
  // Bytes per iteration between rows a step apart (about 1% of the rows): smooth but responsive.
  var bin = [], bout = [], step = Math.max(1, Math.floor(rows.length / 100));
  for (var i = step; i < rows.length; i += step) {
    var a = rows[i - step], b = rows[i], d = b.iteration - a.iteration;
    if (d <= 0 || b.bytesIn < a.bytesIn) continue;
    bin.push([b.iteration, (b.bytesIn - a.bytesIn) / d]);
    bout.push([b.iteration, (b.bytesOut - a.bytesOut) / d]);
  }
  chart("c-bytes", [bin, bout], it);
}

function show(s) {
  $("name").textContent = s.run.name;
  $("run").textContent = s.run.id.slice(0, 16);
  $("run").title = s.run.id;
  $("peer").textContent = s.peerId.slice(-10);
  $("peer").title = s.peerId;
  $("backend").textContent = s.run.algorithm + " on " + s.backend;
  $("state").textContent = s.state;
  $("state").className = "badge " + s.state;
  $("iteration").textContent = s.iteration + " / " + s.iterations;
  $("progress").style.width = (100 * s.iteration / Math.max(1, s.iterations)).toFixed(1) + "%";
  $("loss").textContent = fmt(s.loss, 4);
  $("accuracy").textContent = s.accuracy === null ? "-" : (100 * s.accuracy).toFixed(1) + "%";
  $("peers").textContent = String(s.peers);
  $("bytes").textContent = bytes(s.bytesIn) + " / " + bytes(s.bytesOut);
  $("checksum").textContent = s.checksum.slice(0, 8);
  $("checksum").title = s.checksum;
  $("uptime").textContent = dur(s.uptimeSeconds);
  var r = rows[rows.length - 1];
  $("rate").textContent = r ? fmt(r.itPerSec, 1) : "-";
  document.title = s.run.name + " " + s.iteration + "/" + s.iterations + " - seedswarm";
}

function poll() {
  Promise.all([
    fetch("status").then(function (r) { return r.json(); }),
    fetch("history?since=" + last).then(function (r) { return r.json(); })
  ]).then(function (res) {
    var fresh = res[1];
    if (fresh.length && rows.length && fresh[0].iteration <= rows[rows.length - 1].iteration) rows = [];
    rows = rows.concat(fresh);
    if (rows.length > 4000) rows = rows.slice(rows.length - 4000);
    if (rows.length) last = rows[rows.length - 1].iteration;
    $("err").style.display = "none";
    show(res[0]);
    draw();
  }, function (e) {
    $("err").textContent = "node not answering (" + e.message + "); retrying";
    $("err").style.display = "block";
    $("state").textContent = "down";
    $("state").className = "badge down";
  }).then(function () { setTimeout(poll, 1000); });
}
poll();
</script>
</body>
</html>
`;
//# sourceMappingURL=dashboard-page.js.map