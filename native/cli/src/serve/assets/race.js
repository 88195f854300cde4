// tickreel viewer, the ghost race: both runs' paths on the map, the ghost's marker where it was
// at the same time into its run, and the chart of the live delta with the splits. The race comes
// from GET /api/ghost: paths are [t, x, z] and the delta [t, seconds], t in ticks from the run's
// start, positive seconds when the run is behind.
'use strict';
window.tickreelRace = (() => {
  function pathAt(path, t) {
    if (!path.length) return null;
    let lo = 0, hi = path.length - 1;
    if (t <= path[0][0]) return path[0];
    if (t >= path[hi][0]) return path[hi];
    while (hi - lo > 1) { const m = (lo + hi) >> 1; if (path[m][0] <= t) lo = m; else hi = m; }
    const a = path[lo], b = path[hi], f = (t - a[0]) / (b[0] - a[0] || 1);
    return [t, a[1] + (b[1] - a[1]) * f, a[2] + (b[2] - a[2]) * f];
  }
  function deltaAt(race, t) {
    const p = pathAt(race.delta, t);
    return p ? p[1] : null;
  }
  const JUMP = 16; // blocks between two points of a path: a teleport, not joined
  function drawPath(ctx, toScreen, path, color) {
    ctx.strokeStyle = color; ctx.lineWidth = 2; ctx.globalAlpha = 0.8;
    ctx.beginPath();
    path.forEach((p, i) => {
      const [x, y] = toScreen(p[1], p[2]);
      const q = path[i - 1];
      if (i && Math.hypot(p[1] - q[1], p[2] - q[2]) < JUMP) ctx.lineTo(x, y); else ctx.moveTo(x, y);
    });
    ctx.stroke(); ctx.globalAlpha = 1;
  }
  function drawRace(ctx, toScreen, race, tick) {
    drawPath(ctx, toScreen, race.run.path, '#4da3ff');
    drawPath(ctx, toScreen, race.ghost.path, '#ffa64d');
    const t = tick - race.run.origin_tick;
    const g = pathAt(race.ghost.path, t);
    if (g) {
      const [x, y] = toScreen(g[1], g[2]);
      ctx.strokeStyle = '#ffa64d'; ctx.lineWidth = 2;
      ctx.beginPath(); ctx.moveTo(x, y - 7); ctx.lineTo(x + 7, y); ctx.lineTo(x, y + 7); ctx.lineTo(x - 7, y); ctx.closePath(); ctx.stroke();
    }
  }
  function drawChart(c, race, tick) {
    const g = c.getContext('2d');
    if (c.width !== c.clientWidth || c.height !== c.clientHeight) { c.width = c.clientWidth; c.height = c.clientHeight; }
    g.fillStyle = '#15181d'; g.fillRect(0, 0, c.width, c.height);
    const d = race.delta;
    if (!d.length) return;
    const tEnd = Math.max(1, d[d.length - 1][0]);
    let m = 0.5;
    for (const p of d) m = Math.max(m, Math.abs(p[1]));
    const X = (t) => 30 + (c.width - 40) * t / tEnd, Y = (v) => c.height / 2 - (c.height / 2 - 12) * v / m;
    g.strokeStyle = '#444'; g.beginPath(); g.moveTo(30, Y(0)); g.lineTo(c.width - 10, Y(0)); g.stroke();
    g.fillStyle = '#99a'; g.font = '11px system-ui, sans-serif';
    g.fillText(`+${m.toFixed(2)} s behind`, 32, 11); g.fillText(`-${m.toFixed(2)} s ahead`, 32, c.height - 3);
    g.strokeStyle = '#e0c050'; g.lineWidth = 1.5; g.beginPath();
    d.forEach((p, i) => { if (i) g.lineTo(X(p[0]), Y(p[1])); else g.moveTo(X(p[0]), Y(p[1])); });
    g.stroke();
    // split labels on as many rows as they need not to overlap
    const rowEnds = [];
    for (const s of race.splits) {
      const x = X(s.run_ticks);
      g.strokeStyle = '#5a8'; g.beginPath(); g.moveTo(x, 0); g.lineTo(x, c.height); g.stroke();
      const text = `cp ${s.checkpoint} ${s.delta_seconds >= 0 ? '+' : ''}${s.delta_seconds.toFixed(2)}`;
      const w = g.measureText(text).width + 6;
      let row = rowEnds.findIndex((end) => end <= x);
      if (row < 0) { row = rowEnds.length; rowEnds.push(0); }
      rowEnds[row] = x + 2 + w;
      g.fillStyle = '#8c8';
      g.fillText(text, x + 2, c.height - 14 - 12 * (row % Math.max(1, Math.floor((c.height - 28) / 12))));
    }
    const t = tick - race.run.origin_tick;
    g.strokeStyle = '#fff'; g.beginPath(); g.moveTo(X(t), 0); g.lineTo(X(t), c.height); g.stroke();
  }
  return { pathAt, deltaAt, drawRace, drawChart };
})();
