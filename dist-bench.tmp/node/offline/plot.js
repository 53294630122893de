const COLORS = ["#2f6fdf", "#e0662f", "#1f9d55", "#9b4dca", "#d23c3c", "#0f9aa8", "#b08900", "#555"];
const PANELS = [
    { title: "training loss", x: "iteration", series: (rs) => rs.flatMap((r) => (r.loss === null ? [] : [[r.iteration, r.loss]])) },
    {
        title: "test accuracy",
        x: "iteration",
        series: (rs) => rs.flatMap((r) => (r.accuracy === null ? [] : [[r.iteration, r.accuracy]])),
    },
    {
        title: "iterations per second",
        x: "seconds since start",
        series: (rs) => rs.map((r) => [(r.t - rs[0].t) / 1000, r.itPerSec]),
    },
    {
        title: "bytes per iteration (in + out)",
        x: "iteration",
        series: (rs) => {
            const out = [];
            const step = Math.max(1, Math.floor(rs.length / 100));
            for (let i = step; i < rs.length; i += step) {
                const a = rs[i - step];
                const b = rs[i];
                const d = b.iteration - a.iteration;
                // A restart resets the byte counters: skip that step.
                if (d > 0 && b.bytesIn >= a.bytesIn && b.bytesOut >= a.bytesOut) {
                    out.push([b.iteration, (b.bytesIn - a.bytesIn + b.bytesOut - a.bytesOut) / d]);
                }
            }
            return out;
        },
    },
];
const esc = (s) => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
function fmt(v) {
    const a = Math.abs(v);
    if (a >= 1e6)
        return `${(v / 1e6).toFixed(1)}M`;
    if (a >= 1e4)
        return `${(v / 1e3).toFixed(1)}k`;
    if (a >= 100)
        return v.toFixed(0);
    if (a >= 1)
        return v.toFixed(2);
    return v.toPrecision(2);
}
/** Averages points into at most n buckets. */
function thin(pts, n) {
    if (pts.length <= n)
        return pts;
    const out = [];
    const size = pts.length / n;
    for (let i = 0; i < n; i++) {
        const a = Math.floor(i * size);
        const b = Math.max(a + 1, Math.floor((i + 1) * size));
        let sx = 0;
        let sy = 0;
        for (let j = a; j < b; j++) {
            sx += pts[j][0];
            sy += pts[j][1];
        }
        out.push([sx / (b - a), sy / (b - a)]);
    }
    return out;
}
/** An SVG with one panel per measure and a legend naming the runs. */
export function plotRuns(runs) {
    const W = 520;
    const H = 240;
    const pad = { l: 52, r: 12, t: 26, b: 32 };
    const legendH = 22 * runs.length + 10;
    const cols = 2;
    const width = W * cols;
    const height = legendH + H * Math.ceil(PANELS.length / cols);
    const parts = [
        `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="11">`,
        `<rect width="${width}" height="${height}" fill="#fff"/>`,
    ];
    runs.forEach((run, k) => {
        const last = run.rows[run.rows.length - 1];
        const acc = run.rows.findLast((r) => r.accuracy !== null)?.accuracy;
        const info = last
            ? `${run.rows.length} rows, to iteration ${last.iteration}${acc == null ? "" : `, accuracy ${(acc * 100).toFixed(1)}%`}`
            : "no rows";
        const y = 20 + 22 * k;
        parts.push(`<rect x="12" y="${y - 9}" width="18" height="4" fill="${COLORS[k % COLORS.length]}"/>`, `<text x="36" y="${y}" fill="#222">${esc(run.label)} <tspan fill="#777">(${esc(info)})</tspan></text>`);
    });
    PANELS.forEach((panel, i) => {
        const ox = (i % cols) * W;
        const oy = legendH + Math.floor(i / cols) * H;
        const all = runs.map((r) => thin(r.rows.length ? panel.series(r.rows).filter((p) => Number.isFinite(p[1])) : [], 600));
        const pts = all.flat();
        parts.push(`<g transform="translate(${ox},${oy})" data-panel="${esc(panel.title)}" data-points="${pts.length}">`);
        parts.push(`<text x="${pad.l}" y="16" font-weight="bold" fill="#222">${esc(panel.title)}</text>`);
        if (pts.length === 0) {
            parts.push(`<text x="${W / 2 - 20}" y="${H / 2}" fill="#777">no data</text></g>`);
            return;
        }
        const x0 = Math.min(...pts.map((p) => p[0]));
        let x1 = Math.max(...pts.map((p) => p[0]));
        let [y0, y1] = [Math.min(...pts.map((p) => p[1])), Math.max(...pts.map((p) => p[1]))];
        if (x1 === x0)
            x1 = x0 + 1;
        if (y1 === y0)
            [y0, y1] = [y0 - (Math.abs(y0) * 0.1 || 1), y1 + (Math.abs(y1) * 0.1 || 1)];
        const px = (x) => pad.l + ((x - x0) / (x1 - x0)) * (W - pad.l - pad.r);
        const py = (y) => H - pad.b - ((y - y0) / (y1 - y0)) * (H - pad.t - pad.b);
        for (let g = 0; g <= 4; g++) {
            const y = y0 + ((y1 - y0) * g) / 4;
            parts.push(`<line x1="${pad.l}" x2="${W - pad.r}" y1="${py(y).toFixed(1)}" y2="${py(y).toFixed(1)}" stroke="#e5e5e5"/>`, `<text x="${pad.l - 4}" y="${(py(y) + 3).toFixed(1)}" text-anchor="end" fill="#777">${fmt(y)}</text>`);
        }
        parts.push(`<text x="${pad.l}" y="${H - pad.b + 14}" fill="#777">${fmt(x0)}</text>`, `<text x="${W - pad.r}" y="${H - pad.b + 14}" text-anchor="end" fill="#777">${fmt(x1)}</text>`, `<text x="${(W + pad.l) / 2}" y="${H - 6}" text-anchor="middle" fill="#777">${esc(panel.x)}</text>`);
        all.forEach((s, k) => {
            if (s.length === 0)
                return;
            const d = s.map((p) => `${px(p[0]).toFixed(1)},${py(p[1]).toFixed(1)}`).join(" ");
            parts.push(`<polyline fill="none" stroke-width="1.5" stroke="${COLORS[k % COLORS.length]}" points="${d}"/>`);
        });
        parts.push("</g>");
    });
    parts.push("</svg>");
    return `${parts.join("\n")}\n`;
}
//# sourceMappingURL=plot.js.map