// tickreel viewer, the timeline that explains: the markers of GET /api/markers (teleports,
// checkpoints, joins and leaves, block changes, hits and damage, chat) and the report's tick, a
// row per kind above the slider. Markers closer than a pixel are clustered into one mark whose
// height grows with their count; hovering a mark says what it holds, clicking it jumps to it.
// Filters: one entity (markers involving it) and the kinds shown.
'use strict';
window.tickreelTimeline = (() => {
  const ROW = 6; // pixels per kind
  const KINDS = [
    { key: 'teleport', label: 'teleports', color: '#b070ff' },
    { key: 'checkpoint', label: 'checkpoints', color: '#50d070' },
    { key: 'join', label: 'joins and leaves', color: '#5ab0ff' },
    { key: 'block', label: 'block changes', color: '#d8a040' },
    { key: 'hit', label: 'hits and damage', color: '#ff6a40' },
    { key: 'chat', label: 'chat', color: '#e8e8f0' },
    { key: 'report', label: 'report', color: '#ff3d3d' },
  ];
  const CHANNELS = ['public', 'private', 'team', 'system'];

  // The markers as items { t, kind, ents: [ids], text }, sorted by tick. `who(id)` names an
  // entity, `name(kind, id)` a palette id.
  function items(m, report, who, name) {
    const out = [];
    const add = (t, kind, ents, text) => out.push({ t, kind, ents: ents.filter((e) => e !== null && e !== undefined), text });
    if (m) {
      for (const [t, e] of m.teleports || []) add(t, 'teleport', [e], `${who(e)} teleported`);
      for (const [t, e, i] of m.checkpoints || []) add(t, 'checkpoint', [e], `${who(e)} reached checkpoint ${i}`);
      for (const [t, e] of m.joins || []) add(t, 'join', [e], `${who(e)} appeared`);
      for (const [t, e] of m.leaves || []) add(t, 'join', [e], `${who(e)} left`);
      for (const [t, c, x, y, z, st, n] of m.blocks || []) {
        const what = name('blocks', st);
        const by = c === null ? 'a block' : `${who(c)}:`;
        add(t, 'block', [c], n > 1 ? `${by} ${n} blocks changed, from ${x} ${y} ${z} (${what})`
          : `${by} block at ${x} ${y} ${z} is now ${what}`);
      }
      for (const [t, a, b] of m.attacks || []) add(t, 'hit', [a, b], `${who(a)} hit ${who(b)}`);
      for (const [t, e, amount, cause, src] of m.damage || []) {
        add(t, 'hit', [e, src], `${who(e)} took ${(amount / 100).toFixed(1)} damage (${name('damage', cause)})` +
          (src === null ? '' : ` from ${who(src)}`));
      }
      for (const [t, s, ch, text] of m.chat || []) {
        add(t, 'chat', [s], `${s === null ? 'server' : who(s)} [${CHANNELS[ch] || 'channel ' + ch}]: ${text}`);
      }
    }
    if (report && report.report_tick !== undefined) add(report.report_tick, 'report', [report.player], `report of ${who(report.player)}`);
    out.sort((a, b) => a.t - b.t);
    return out;
  }

  // Per kind row, per pixel column: { n, first, last } of the items shown there.
  function bins(list, filter, first, last, width) {
    const span = Math.max(1, last - first);
    const rows = KINDS.map(() => new Map());
    for (const it of list) {
      if (!filter.kinds.has(it.kind)) continue;
      if (filter.entity !== null && !it.ents.includes(filter.entity)) continue;
      const x = Math.round((it.t - first) / span * (width - 1));
      if (x < 0 || x >= width) continue;
      const row = rows[KINDS.findIndex((k) => k.key === it.kind)];
      const b = row.get(x);
      if (b) { b.n++; b.last = it; } else row.set(x, { n: 1, first: it, last: it });
    }
    return rows;
  }

  function create(canvas, tip, onJump) {
    const T = {
      list: [], filter: { entity: null, kinds: new Set(KINDS.map((k) => k.key)) },
      rows: null, key: '', gaps: [], first: 0, last: 0,
    };
    const height = KINDS.length * ROW;
    function layout(first, last) {
      const w = canvas.clientWidth || 1;
      const key = [first, last, w, T.list.length, T.filter.entity, [...T.filter.kinds].join()].join('|');
      if (key === T.key && T.rows) return;
      T.key = key; T.first = first; T.last = last;
      T.rows = bins(T.list, T.filter, first, last, w);
    }
    function draw(first, last, gaps) {
      if (canvas.width !== canvas.clientWidth) canvas.width = canvas.clientWidth;
      if (canvas.height !== height) canvas.height = height;
      layout(first, last);
      const g = canvas.getContext('2d');
      g.clearRect(0, 0, canvas.width, canvas.height);
      const span = Math.max(1, last - first);
      const X = (t) => (t - first) / span * (canvas.width - 1);
      for (const gp of gaps || []) { g.fillStyle = '#633'; g.fillRect(X(gp[0]), 0, Math.max(1, X(gp[1]) - X(gp[0])), height); }
      KINDS.forEach((k, i) => {
        g.fillStyle = k.color;
        for (const [x, b] of T.rows[i]) {
          // a cluster is taller and wider the more it holds (1, 2-9, 10+)
          const h = b.n === 1 ? ROW - 2 : ROW;
          const w = b.n >= 10 ? 3 : 2;
          g.globalAlpha = b.n === 1 ? 0.75 : 1;
          g.fillRect(x - (w >> 1), i * ROW + (ROW - h), w, h);
        }
      });
      g.globalAlpha = 1;
    }
    // The cluster under a pointer at (x, y) of the canvas, within 3 pixels.
    function at(x, y) {
      if (!T.rows) return null;
      const i = Math.max(0, Math.min(KINDS.length - 1, Math.floor(y / ROW)));
      let best = null, dist = 4;
      for (const [bx, b] of T.rows[i]) {
        const d = Math.abs(bx - x);
        if (d < dist) { best = b; dist = d; }
      }
      return best && { kind: KINDS[i], n: best.n, first: best.first, last: best.last };
    }
    function describe(c) {
      if (c.n === 1) return `tick ${c.first.t}: ${c.first.text}`;
      return `${c.n} ${c.kind.label}, ticks ${c.first.t}–${c.last.t}; first: ${c.first.text}`;
    }
    canvas.addEventListener('mousemove', (e) => {
      const c = at(e.offsetX, e.offsetY);
      if (!c) { tip.hidden = true; canvas.title = ''; return; }
      tip.textContent = describe(c);
      tip.hidden = false;
      tip.style.left = Math.min(e.offsetX, canvas.clientWidth - 260) + 'px';
    });
    canvas.addEventListener('mouseleave', () => { tip.hidden = true; });
    canvas.addEventListener('click', (e) => {
      const c = at(e.offsetX, e.offsetY);
      if (c) onJump(c.first.t);
      else onJump(T.first + e.offsetX / Math.max(1, canvas.clientWidth - 1) * (T.last - T.first));
    });
    return {
      set(m, report, who, name) { T.list = items(m, report, who, name); T.key = ''; },
      setFilter(f) { Object.assign(T.filter, f); T.key = ''; },
      filter: () => ({ entity: T.filter.entity, kinds: [...T.filter.kinds] }),
      draw, at, describe,
      // what is shown, per kind (the browser test reads it)
      counts() {
        const out = {};
        if (!T.rows) return out;
        KINDS.forEach((k, i) => { let n = 0; for (const b of T.rows[i].values()) n += b.n; out[k.key] = n; });
        return out;
      },
      items: () => T.list,
      // the pixel column of tick t on the canvas, and the middle of kind's row
      pointOf(t, kind) {
        const span = Math.max(1, T.last - T.first);
        return [Math.round((t - T.first) / span * (canvas.clientWidth - 1)), KINDS.findIndex((k) => k.key === kind) * ROW + ROW / 2];
      },
    };
  }
  return { KINDS, create, items };
})();
