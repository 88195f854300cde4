// tickreel viewer, the entity inspector: what the followed entity is doing at the tick shown —
// its position, its height (and above the ground where the frames say where the ground was),
// its horizontal and vertical speed over the last second of frames, its state flags, and its
// health and equipment as the recording's health and equipment events left them up to that tick.
'use strict';
window.tickreelInspector = (() => {
  // tickreel::format::flag
  const FLAGS = [[1, 'on ground'], [2, 'sneaking'], [4, 'sprinting'], [8, 'swimming'], [16, 'gliding']];
  const SLOTS = ['main hand', 'off hand', 'feet', 'legs', 'chest', 'head', 'body'];
  const GROUND_LOOKBACK = 200; // ticks searched back for the last time it stood on the ground

  // The last row of `rows` ([tick, entity, ...], sorted by tick) for `id` at or before `tick`.
  function lastOf(rows, id, tick, key) {
    const out = new Map();
    for (const r of rows || []) {
      if (r[0] > tick) break;
      if (r[1] === id) out.set(key ? key(r) : 0, r);
    }
    return out;
  }

  // The followed entity at the shown frame: { id, name, x, y, z, yaw, flags, speed, vspeed,
  // aboveGround, health, equipment: [[slot, item, count]] } or null when it is not in the frame.
  // `frameAt(t)` gives the cached frame at t (or null), `rate` ticks per second.
  function inspect(id, frame, frameAt, rate, markers, names, palette) {
    if (id === null || !frame) return null;
    const e = frame.byId.get(id);
    if (!e) return null;
    const flags = e[5] || 0;
    const out = { id, name: names.get(id) || null, x: e[1], y: e[2], z: e[3], yaw: e[4], flags, tick: frame.t,
      speed: null, vspeed: null, aboveGround: null, health: null, equipment: [] };
    // speed: over up to one second back, from the frames held
    for (let k = Math.max(1, Math.round(rate)); k >= 1; k = Math.floor(k / 2)) {
      const f = frameAt(frame.t - k);
      const p = f && f.t < frame.t && f.byId.get(id);
      if (p) {
        const dt = (frame.t - f.t) / rate;
        out.speed = Math.hypot(e[1] - p[1], e[3] - p[3]) / dt;
        out.vspeed = (e[2] - p[2]) / dt;
        break;
      }
      if (k === 1) break;
    }
    if (flags & 1) out.aboveGround = 0;
    else {
      for (let k = 1; k <= GROUND_LOOKBACK; k++) {
        const f = frameAt(frame.t - k);
        const p = f && f.byId.get(id);
        if (p && ((p[5] || 0) & 1)) { out.aboveGround = e[2] - p[2]; break; }
      }
    }
    if (markers) {
      const h = lastOf(markers.health, id, frame.t).get(0);
      if (h) out.health = h[2] / 100;
      const eq = lastOf(markers.equipment, id, frame.t, (r) => r[2]);
      for (const [slot, r] of [...eq].sort((a, b) => a[0] - b[0])) {
        if (r[3] === 0 || r[4] === 0) continue; // emptied
        const item = (palette && palette.items && palette.items[r[3]]) || ('item ' + r[3]);
        out.equipment.push([SLOTS[slot] || ('slot ' + slot), item, r[4]]);
      }
    }
    return out;
  }

  function flagNames(flags) {
    const on = FLAGS.filter(([b]) => flags & b).map(([, n]) => n);
    return on.length ? on.join(', ') : 'none';
  }

  // Fills the table `el` with what `inspect` found (rows of label, value).
  function show(el, v) {
    el.innerHTML = '';
    if (!v) return;
    const row = (k, val) => { const tr = el.insertRow(); tr.insertCell().textContent = k; tr.insertCell().textContent = val; };
    row('entity', (v.name ? v.name + ' ' : '') + '#' + v.id);
    row('position', `${v.x.toFixed(2)}  ${v.y.toFixed(2)}  ${v.z.toFixed(2)}`);
    row('height', `y ${v.y.toFixed(2)}` + (v.aboveGround === null ? '' : `, ${v.aboveGround.toFixed(2)} above ground`));
    row('speed', v.speed === null ? 'unknown' : `${v.speed.toFixed(2)} blocks/s (vertical ${v.vspeed >= 0 ? '+' : ''}${v.vspeed.toFixed(2)})`);
    row('flags', flagNames(v.flags));
    if (v.health !== null) row('health', v.health.toFixed(1));
    for (const [slot, item, n] of v.equipment) row(slot, n > 1 ? `${item} ×${n}` : item);
  }
  // The height strip: entity id's y over the frames held within HEIGHT_SPAN ticks of `tick`
  // (a gap where none is held), its ground ticks marked, the tick shown as a line.
  const HEIGHT_SPAN = 400;
  function drawHeight(c, id, tick, frameAt, first, last) {
    if (c.width !== c.clientWidth) c.width = c.clientWidth;
    c.height = c.clientHeight || 60;
    const g = c.getContext('2d');
    g.clearRect(0, 0, c.width, c.height);
    const lo = Math.max(first, tick - HEIGHT_SPAN), hi = Math.min(last, tick + HEIGHT_SPAN);
    const step = Math.max(1, Math.ceil((hi - lo) / c.width));
    const pts = [];
    let y0 = Infinity, y1 = -Infinity;
    for (let t = lo; t <= hi; t += step) {
      const f = frameAt(t), p = f && f.t === t && f.byId.get(id);
      pts.push(p ? [t, p[2], (p[5] || 0) & 1] : null);
      if (p) { y0 = Math.min(y0, p[2]); y1 = Math.max(y1, p[2]); }
    }
    if (y0 === Infinity) return;
    const X = (t) => (t - lo) / Math.max(1, hi - lo) * (c.width - 1);
    const Y = (y) => c.height - 12 - (y - y0) / Math.max(1, y1 - y0) * (c.height - 20);
    g.strokeStyle = '#7fc8ff'; g.lineWidth = 1.5; g.beginPath();
    let down = false;
    for (const p of pts) {
      if (!p) { down = false; continue; }
      if (down) g.lineTo(X(p[0]), Y(p[1])); else g.moveTo(X(p[0]), Y(p[1]));
      down = true;
    }
    g.stroke();
    g.fillStyle = '#50d070';
    for (const p of pts) if (p && p[2]) g.fillRect(X(p[0]), c.height - 4, 1.5, 3);
    g.fillStyle = '#ff4d4d'; g.fillRect(X(tick), 0, 1, c.height);
    g.fillStyle = '#99a'; g.font = '10px system-ui, sans-serif';
    g.fillText(`y ${y1.toFixed(1)}`, 4, 10); g.fillText(`y ${y0.toFixed(1)}`, 4, c.height - 6);
  }

  return { inspect, show, flagNames, drawHeight };
})();
