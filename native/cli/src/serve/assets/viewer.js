// tickreel viewer: a top-down x/z map of a recording, drawn on a canvas from frames the server's
// playheads make (GET /api/frames: every entity's position at each tick of a block). Nothing here
// reads a whole recording: blocks of BLOCK ticks are fetched around the play position and at most
// MAX_BLOCKS are kept (least recently used out), so memory stays bounded however long it plays.
// The page's state is on window.tickreelViewer (the browser test reads it). Its other parts:
// race.js (ghost races), timeline.js (markers), inspector.js (the followed entity), inbox.js
// (the reports inbox and a report's panel), party.js (watching together), terrain.js (the terrain's blocks, their colours and
// the map's top-down image of them), blocks.js (the edited blocks at the play position).
'use strict';
(() => {
  const BLOCK = 128;        // ticks per frames request
  const MAX_BLOCKS = 48;    // blocks kept in memory
  const TRAIL = 100;        // ticks of trail behind each marker
  const TRAIL_STEP = 2;
  const FADES = 5;          // trail fading bands
  const JUMP = 16;          // a trail step longer than this (blocks) is a teleport: not joined
  const params = new URLSearchParams(location.search);
  const token = params.get('token');
  const $ = (id) => document.getElementById(id);
  const Race = window.tickreelRace;
  const Inspector = window.tickreelInspector;
  const Inbox = window.tickreelInbox;
  const List = window.tickreelList;
  const View3d = window.tickreelView3d;
  const Party = window.tickreelParty;
  const SECOND_JUMP = 1, LONG_JUMP = 10; // seconds: arrow keys, with Shift

  function apiUrl(path, q) {
    const u = new URLSearchParams(q || {});
    if (token) u.set('token', token);
    return '/api/' + path + '?' + u.toString();
  }
  async function getJson(path, q) {
    const r = await fetch(apiUrl(path, q));
    let body = null;
    try { body = await r.json(); } catch (e) { /* not JSON */ }
    if (!r.ok) throw new Error((body && body.error) || (path + ': HTTP ' + r.status));
    return body;
  }

  const S = {
    list: [], catalog: [], hasCatalog: false,
    rec: null, info: null, first: 0, last: 0, rate: 20, tick: 0, terrain: null, terrainImage: null,
    world: { terrainRequests: 0, terrainSame: 0, blockRequests: 0, lastTerrain: 0, lastBlocks: 0, blocksTick: null, busy: {}, again: {}, seekTimer: null },
    playing: false, dir: 1, speed: 1, follow: null, names: new Map(),
    markers: null, report: null, context: new Set(), gen: 0,
    live: false, liveState: null, liveFollow: true, source: null,
    race: null, shown: null, errors: [], stalled: false,
    drawn: 0, played: 0, // frames drawn, ticks played (the memory benchmark reads them)
    inbox: [], inboxRow: null, inspected: null, inspectedAt: 0, urlAt: 0, urlShown: '', insetAt: 0,
    view: { cx: 0, cz: 0, scale: 4, fitted: false },
  };
  // block index -> { frames: Map(tick -> frame), ticks: sorted ticks, complete, pending, used }
  const blocks = new Map();

  function showError(msg) {
    S.errors.push(String(msg));
    const el = $('error');
    el.textContent = String(msg);
    el.hidden = false;
  }
  function clearError() { $('error').hidden = true; }

  // ---- frames -------------------------------------------------------------------------------
  const blockOf = (t) => Math.floor(t / BLOCK);

  function loadBlock(b) {
    const have = blocks.get(b);
    if (have) {
      have.used = performance.now();
      if (have.complete || have.pending) return have.pending || Promise.resolve(have);
    }
    const gen = S.gen;
    const back = S.dir < 0;
    const lo = b * BLOCK, hi = lo + BLOCK - 1;
    const q = { rec: S.rec, count: BLOCK, from: back ? hi : lo };
    if (back) q.dir = 'back';
    const entry = have || { frames: new Map(), ticks: [], complete: false, pending: null, used: performance.now() };
    entry.pending = getJson('frames', q).then((res) => {
      if (gen !== S.gen) return entry;
      for (const f of res.frames) {
        if (f.t < lo || f.t > hi) continue;
        entry.frames.set(f.t, toFrame(f, res));
      }
      entry.ticks = [...entry.frames.keys()].sort((a, c) => a - c);
      edgeFrom(res.edge);
      // Complete when nothing more can come into it: it holds its last tick, or the recording's
      // (of a recording that no longer grows). Otherwise it is asked again once the edge moves.
      const top = entry.ticks.length ? entry.ticks[entry.ticks.length - 1] : -1;
      const ended = res.edge && res.edge.state === 'finished';
      // (asked again after the end and nothing new: a stretch without ticks)
      entry.complete = !S.live || top >= hi || (ended && (top >= S.last || top === entry.edgeAt));
      entry.edgeAt = top;
      if (res.faults) showError('damaged chunk(s) played past: ' + res.faults.map((f) => f.error).join('; '));
      entry.pending = null;
      return entry;
    }, (err) => {
      // kept as done (empty), so that a failing block is not asked for again at every frame
      entry.pending = null;
      entry.complete = true;
      entry.failed = true;
      showError(err.message);
      throw err;
    });
    blocks.set(b, entry);
    evict();
    return entry.pending;
  }

  // A frame of the API in blocks and degrees (it comes in the format's units), with its
  // entities by id.
  function toFrame(f, res) {
    const ps = res.pos_scale, ang = 360 / res.angle_units;
    const byId = new Map();
    for (const e of f.e) { e[1] /= ps; e[2] /= ps; e[3] /= ps; e[4] *= ang; byId.set(e[0], e); }
    return { t: f.t, e: f.e, byId };
  }

  // A seek asks for its one frame alone too (a small answer, shown at once) while the block
  // of frames around it loads; the last few are kept.
  const singles = new Map();
  async function loadSingle(t) {
    const gen = S.gen;
    const res = await getJson('frames', { rec: S.rec, from: t, count: 1 });
    if (gen !== S.gen || !res.frames.length) return;
    const f = toFrame(res.frames[0], res);
    singles.set(f.t, f);
    while (singles.size > 8) singles.delete(singles.keys().next().value);
  }

  function evict() {
    while (blocks.size > MAX_BLOCKS) {
      let oldest = null, when = Infinity;
      for (const [k, v] of blocks) if (!v.pending && v.used < when) { oldest = k; when = v.used; }
      if (oldest === null) return;
      blocks.delete(oldest);
    }
  }

  // The frame shown at tick t: the last one at or before it in its block (ticks may be sparse).
  function frameAt(t) {
    t = Math.floor(t);
    const blk = blocks.get(blockOf(t));
    if (!blk || blk.ticks.length === 0 || (blk.pending && !blk.frames.has(t))) return singles.get(t) || null;
    const f = blk.frames.get(t);
    if (f) return f;
    let best = null;
    for (const k of blk.ticks) { if (k <= t) best = k; else break; }
    if (best === null) {
      const prev = blocks.get(blockOf(t) - 1);
      if (prev && prev.ticks.length && !prev.pending) return prev.frames.get(prev.ticks[prev.ticks.length - 1]);
      return null;
    }
    // A hole at the live edge, not yet filled: not this tick's frame.
    if (!blk.complete && t > blk.ticks[blk.ticks.length - 1]) return null;
    return blk.frames.get(best);
  }

  // A block is asked for when missing, and again when the live edge cut it and has moved since.
  const needs = (blk) => !blk || (!blk.complete && !blk.pending && S.last > blk.edgeAt);
  function want(t) {
    const b = blockOf(t);
    if (needs(blocks.get(b))) loadBlock(b).catch(() => {});
    const next = b + (S.dir > 0 ? 1 : -1);
    if (S.playing && next * BLOCK <= S.last && (next + 1) * BLOCK > S.first && needs(blocks.get(next))) {
      loadBlock(next).catch(() => {});
    }
  }

  function edgeFrom(edge) {
    if (!edge) return;
    if (edge.first_tick !== null && edge.first_tick !== undefined) S.first = edge.first_tick;
    if (edge.last_tick !== null && edge.last_tick !== undefined) S.last = edge.last_tick;
    S.liveState = edge.state || null;
    const tl = $('timeline');
    tl.min = S.first; tl.max = S.last;
    // the sidebar's tick range follows a live recording as it grows
    if (S.aboutText) $('summary').textContent = S.aboutText(S.first, S.last);
  }

  // ---- opening a recording ------------------------------------------------------------------
  async function open(name, opts) {
    opts = opts || {};
    // another recording than the party's: this page leaves it
    if (party.active() && !opts.party) party.leave();
    S.gen++;
    blocks.clear();
    singles.clear();
    if (S.source) { S.source.close(); S.source = null; }
    Object.assign(S, { rec: name, info: null, aboutText: null, markers: null, report: null, race: null, shown: null,
      follow: null, playing: false, dir: 1, context: new Set(), names: new Map(), stalled: false,
      inboxRow: opts.row || S.inbox.find((r) => r.recording === name) || null, inspected: null });
    $('report').hidden = true;
    $('inspect').hidden = true;
    timeline.set(null, null, who, paletteName);
    if (S.inbox.length) showInbox();
    S.view.fitted = false;
    clearError();
    $('chart').hidden = true;
    $('race-info').textContent = '';
    for (const li of $('list').children) li.classList.toggle('open', li.dataset.name === name);
    const info = await getJson('info', { rec: name });
    S.info = info;
    S.rate = info.tick_rate || 20;
    S.live = info.kind === 'live';
    edgeFrom(info.edge);
    for (const e of info.entities) if (e.name) S.names.set(e.id, e.name);
    fillAbout(info);
    const me = $('mark-entity');
    while (me.options.length > 1) me.remove(1);
    for (const e of info.entities) me.add(new Option((e.name || 'entity') + ' #' + e.id, e.id));
    timeline.setFilter({ entity: null });
    S.tick = S.first;
    if (info.report) openReport(info.report);
    else if (S.inboxRow) showReportPanel();
    if (opts.tick !== undefined && opts.tick !== null) S.tick = clamp(Number(opts.tick));
    if (opts.follow) setFollow(Number(opts.follow));
    $('live-row').hidden = !S.live;
    if (S.live) {
      startLive();
      // a recording being written opens at its newest tick, playing on as it grows
      if (S.liveFollow && (opts.tick === undefined || opts.tick === null)) { S.tick = S.last; S.dir = 1; S.speed = 1; play(); }
    }
    refreshMarkers();
    worldBlocks.clear();
    S.world.blocksTick = null;
    S.terrain = null; S.terrainImage = null; S.terrainKey = undefined;
    clearTimeout(S.world.seekTimer);
    S.world.lastTerrain = S.world.lastBlocks = performance.now();
    if (View3d.isOn()) View3d.setTerrain(null);
    loadTerrain(S.tick).catch((e) => showError(e.message));
    worldFetch('blocks', () => loadBlocks(S.tick));
    await loadBlock(blockOf(S.tick));
    const f = frameAt(S.tick);
    if (f) addEntities(f.e.map((e) => e[0]));
    render();
    return state();
  }

  function refreshMarkers() {
    const gen = S.gen;
    getJson('markers', { rec: S.rec }).then((m) => {
      if (gen !== S.gen) return;
      S.markers = m;
      timeline.set(m, S.report, who, paletteName);
    }, (e) => showError(e.message));
  }

  function startLive() {
    const es = new EventSource(apiUrl('live', { rec: S.rec }));
    const gen = S.gen;
    let lastMarkers = 0;
    es.addEventListener('edge', (ev) => {
      if (gen !== S.gen) return;
      edgeFrom(JSON.parse(ev.data));
      if (performance.now() - lastMarkers > 2000) { lastMarkers = performance.now(); refreshMarkers(); }
      if (S.liveState === 'finished' || S.liveState === 'lost') es.close();
    });
    es.onerror = () => { if (S.liveState === 'finished') es.close(); };
    S.source = es;
  }

  function fillAbout(info) {
    $('about').hidden = false;
    const ent = info.entities.length;
    S.aboutText = (first, last) => `${info.kind}, ticks ${first}..${last} at ${S.rate} ticks/s, ` +
      `${ent} registered entities, ${info.chunks} chunks` + (info.gaps.length ? `, ${info.gaps.length} gaps` : '');
    $('summary').textContent = S.aboutText(S.first, S.last);
    const sel = $('follow');
    while (sel.options.length > 1) sel.remove(1);
    const runSel = $('run-entity'), ghostSel = $('ghost-entity');
    runSel.innerHTML = ''; ghostSel.innerHTML = '';
    for (const e of info.entities) {
      const label = (e.name || 'entity') + ' #' + e.id;
      sel.add(new Option(label, e.id));
      runSel.add(new Option(label, e.id));
      ghostSel.add(new Option(label, e.id));
    }
    if (info.entities.length > 1) ghostSel.selectedIndex = 1;
    $('race').hidden = false;
    const gr = $('ghost-rec');
    gr.innerHTML = '';
    gr.add(new Option('(this recording)', ''));
    for (const r of S.list) if (r.name !== S.rec) gr.add(new Option(r.name, r.name));
    $('course-row').hidden = !S.hasCatalog;
  }

  // Entities seen in frames but not registered (no name) can be followed and raced too.
  function addEntities(ids) {
    for (const sel of [$('follow'), $('run-entity'), $('ghost-entity')]) {
      const have = new Set([...sel.options].map((o) => o.value));
      for (const id of ids) if (!have.has(String(id))) sel.add(new Option('#' + id, id));
    }
    if ($('ghost-entity').selectedIndex === 0 && $('ghost-entity').options.length > 1) $('ghost-entity').selectedIndex = 1;
    if (S.follow !== null) $('follow').value = String(S.follow);
  }

  // An entity by name and id; a palette id by name (or its number).
  function who(id) { return (S.names.get(id) || 'entity') + ' #' + id; }
  function paletteName(kind, id) {
    const p = S.info && S.info.palette && S.info.palette[kind];
    return (p && p[id]) || ((kind === 'blocks' ? 'state ' : kind === 'items' ? 'item ' : 'cause ') + id);
  }

  function openReport(rep) {
    S.report = rep;
    $('report').hidden = false;
    showReportPanel();
    S.context = new Set(rep.context_entities || []);
    if (rep.player !== undefined) setFollow(rep.player);
    if (rep.report_tick !== undefined) S.tick = clamp(rep.report_tick);
  }

  function showReportPanel() {
    Inbox.panel($('report-meta'), S.report || {}, S.inboxRow, S.info, who);
    $('decide-row').hidden = !S.inboxRow;
    if (S.staff) { $('moderator').value = S.staff; $('moderator').disabled = true; $('moderator').title = 'your staff token\'s name'; }
    $('report').hidden = !S.report && !S.inboxRow;
  }

  // ---- the reports inbox --------------------------------------------------------------------
  async function loadInbox() {
    // a reviewer works from the review desk's queue (/desk): the inbox is moderators'
    if (!S.hasCatalog || S.role === 'reviewer') return;
    const res = await getJson('reports');
    S.inbox = res.reports;
    $('inbox-section').hidden = false;
    $('inbox-count').textContent = `${res.open} open of ${res.reports.length}`;
    showInbox();
  }
  function showInbox() {
    Inbox.list($('inbox'), S.inbox, S.inboxRow && S.inboxRow.id, (row) => {
      if (!row.recording) { showError(`report ${row.id} wrote no recording`); return; }
      open(row.recording, { row }).catch((e) => showError(e.message));
    });
  }
  async function decide(status) {
    const row = S.inboxRow;
    if (!row) throw new Error('open a report from the inbox first');
    // with staff tokens the server records the token's name, whatever is typed
    const by = S.staff || $('moderator').value.trim();
    if (!by) { $('moderator').focus(); throw new Error('your name is recorded with the decision: type it first'); }
    try { localStorage.setItem('tickreel.moderator', by); } catch (e) { /* storage off */ }
    const r = await fetch(apiUrl('reports/decide'), {
      method: 'POST', headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ id: row.id, status, by }),
    });
    let body = null;
    try { body = await r.json(); } catch (e) { /* not JSON */ }
    if (!r.ok) throw new Error((body && body.error) || ('decision: HTTP ' + r.status));
    S.inboxRow = Object.assign({}, row, body);
    $('decide-info').textContent = `${body.status} by ${body.reviewed_by}`;
    await loadInbox();
    S.inboxRow = S.inbox.find((x) => x.id === row.id) || S.inboxRow;
    showInbox();
    showReportPanel();
    return S.inboxRow;
  }

  function setFollow(id) {
    S.follow = (id === null || id === '' || Number.isNaN(id)) ? null : Number(id);
    S.inspectedAt = 0;
    const sel = $('follow');
    if (S.follow !== null && ![...sel.options].some((o) => Number(o.value) === S.follow) ) {
      sel.add(new Option((S.names.get(S.follow) || 'entity') + ' #' + S.follow, S.follow));
    }
    sel.value = S.follow === null ? '' : String(S.follow);
  }

  const clamp = (t) => Math.max(S.first, Math.min(S.last, t));

  // ---- playback -----------------------------------------------------------------------------
  let prevNow = null;
  function tickLoop(now) {
    const dt = prevNow === null ? 0 : Math.min(0.25, (now - prevNow) / 1000);
    prevNow = now;
    if (S.rec && S.info) {
      if (S.playing) {
        let next = S.tick + S.dir * S.speed * S.rate * dt;
        const atEnd = next >= S.last, atStart = next <= S.first;
        next = clamp(next);
        if (frameAt(next)) {
          S.played += Math.abs(next - S.tick);
          S.tick = next;
          S.stalled = false;
        } else {
          S.stalled = true;
        }
        const liveEdge = S.live && S.liveFollow && S.liveState !== 'finished' && S.dir > 0;
        if ((atEnd && S.dir > 0 && !liveEdge) || (atStart && S.dir < 0)) stop();
      } else if (S.live && S.liveFollow && S.liveState === 'live' && S.tick >= S.last - 1) {
        S.tick = S.last;
      }
      want(S.tick);
      if (S.playing || S.live) worldWhilePlaying(now);
      render();
    }
    requestAnimationFrame(tickLoop);
  }

  // In a watch party only the controller's page plays, pauses, changes speed and seeks by its own
  // actions (party.may()); its changes go to the party (party.changed()), the others apply them.
  function play() { if (!party.may()) return; S.playing = true; buttons(); party.changed(); }
  function pause() { if (!party.may()) return; S.playing = false; buttons(); party.changed(); }
  // the end reached (every page of a party stops there)
  function stop() { S.playing = false; buttons(); party.changed(); }
  function buttons() {
    $('play').textContent = S.playing && S.dir > 0 ? 'II' : '\u25B6';
    $('reverse').textContent = S.playing && S.dir < 0 ? 'II' : '\u25C0';
    $('play').classList.toggle('on', S.playing && S.dir > 0);
    $('reverse').classList.toggle('on', S.playing && S.dir < 0);
  }
  function setSpeed(s) {
    s = Number(s);
    if (!(s >= 0.25 && s <= 16)) throw new Error('speed from 0.25 to 16');
    if (!party.may()) { $('speed').value = String(S.speed); return; }
    S.speed = s;
    $('speed').value = String(s);
    party.changed();
  }
  async function seek(t) {
    if (!party.may()) throw new Error(party.LOCKED());
    const tick = clamp(Math.round(Number(t)));
    S.tick = tick;
    party.changed();
    worldAfterSeek();
    const blk = blocks.get(blockOf(tick));
    const block = loadBlock(blockOf(tick));
    if (!blk || !blk.frames.has(tick)) await Promise.race([loadSingle(tick), block]);
    else await block;
    render();
    return S.shown;
  }
  async function step(n) {
    pause();
    // from the tick shown (the play position may be between ticks)
    return seek((S.shown ? S.shown.tick : Math.floor(S.tick)) + n);
  }

  // ---- drawing ------------------------------------------------------------------------------
  const map = $('map'), ctx = map.getContext('2d');
  function colorOf(id) { return `hsl(${(id * 137.508) % 360}, 70%, 60%)`; }
  function toScreen(x, z) {
    return [map.width / 2 + (x - S.view.cx) * S.view.scale, map.height / 2 + (z - S.view.cz) * S.view.scale];
  }
  function fit(frame) {
    if (!frame.e.length) return;
    let x0 = Infinity, x1 = -Infinity, z0 = Infinity, z1 = -Infinity;
    for (const e of frame.e) { x0 = Math.min(x0, e[1]); x1 = Math.max(x1, e[1]); z0 = Math.min(z0, e[3]); z1 = Math.max(z1, e[3]); }
    S.view.cx = (x0 + x1) / 2; S.view.cz = (z0 + z1) / 2;
    const span = Math.max(x1 - x0, z1 - z0, 16);
    S.view.scale = Math.min(map.width, map.height) * 0.8 / span;
    S.view.fitted = true;
  }

  // With the 3D view shown, the map is its inset and is drawn at most every INSET_MS: drawn at
  // every animation frame it took about a quarter of the browser's CPU time per 3D frame in
  // software rendering (BENCHMARKS.md, "Viewer 3D view").
  const INSET_MS = 100;
  function render() {
    const now = performance.now();
    const frame = frameAt(S.tick);
    if (frame) {
      S.drawn++;
      S.shown = { tick: frame.t, entities: frame.e };
      worldBlocks.moveTo(frame.t);
    }
    if (!View3d.isOn() || now - S.insetAt >= INSET_MS) { S.insetAt = now; drawMap(frame); }
    const tl = $('timeline');
    if (!dragging) tl.value = String(Math.floor(S.tick));
    const secs = (S.tick - S.first) / S.rate;
    $('clock').textContent = `tick ${Math.floor(S.tick)} / ${S.last}  ${secs.toFixed(2)} s  ${S.dir < 0 ? '-' : ''}${S.speed}x`;
    const wall = wallClock(S.tick);
    if ($('wall').textContent !== wall) $('wall').textContent = wall;
    if (View3d.isOn()) {
      view3dCtx.names = S.names; view3dCtx.follow = S.follow; view3dCtx.rec = S.rec;
      View3d.draw($('view3d'), frame, view3dCtx);
    }
    if (now - S.inspectedAt > 100) { S.inspectedAt = now; inspect(frame); drawHeight(); }
    if (now - S.urlAt > 250) { S.urlAt = now; followAddress(); }
  }

  // The map at `frame` (null: none held yet).
  function drawMap(frame) {
    const w = map.clientWidth, h = map.clientHeight;
    if (map.width !== w || map.height !== h) { map.width = w; map.height = h; }
    ctx.fillStyle = '#101216';
    ctx.fillRect(0, 0, map.width, map.height);
    if (frame) {
      if (!S.view.fitted) fit(frame);
      if (S.follow !== null) {
        const f = frame.byId.get(S.follow);
        if (f) { S.view.cx = f[1]; S.view.cz = f[3]; }
      }
    }
    drawTerrain();
    drawGrid();
    if (frame) drawBlocks();
    if (S.race) drawRace();
    if (frame) drawEntities(frame);
    drawHud(frame);
    drawMarks();
    if (S.race) drawChart();
  }

  // What the 3D view reads (one object, filled at each drawing).
  const view3dCtx = {
    names: null, follow: null, rec: null, frameAt,
    blockName: (id) => (S.info && S.info.palette && S.info.palette.blocks[id]) || null,
    // the edited blocks shown ([x, y, z, state]) and their version (a new one when one changed)
    blocks: () => worldBlocks.list(), blocksVersion: () => worldBlocks.version(),
  };

  // The 3D view (the map becomes its inset).
  async function set3d(on) {
    document.body.classList.toggle('three', on);
    $('view3d').hidden = !on;
    $('toggle-3d').classList.toggle('on', on);
    if (!on) { View3d.close(); return false; }
    await View3d.open($('view3d'));
    View3d.setTerrain(S.terrain);
    return true;
  }

  // The terrain at tick t (GET /api/terrain: the blocks seen and their faces, terrain.js
  // decodes them), fetched when a recording opens, again after a seek and while playing or
  // following a live recording (see worldAfterSeek): its top-down image for the map, made once
  // per answer, and its meshes in the 3D view.
  async function loadTerrain(t) {
    const rec = S.rec, gen = S.gen;
    S.world.terrainRequests++;
    const res = await getJson('terrain', { rec, tick: String(Math.floor(t)) });
    if (gen !== S.gen) return;
    // the same blocks as the terrain shown (no terrain captured between the two ticks): kept,
    // not decoded and meshed again
    const same = S.terrain && S.terrainKey !== undefined && S.terrainKey.length === res.sections.length
      && res.sections.every((x, i) => sectionKey(x) === S.terrainKey[i]) && res.truncated === S.terrain.truncated;
    if (same) { S.terrain.tick = res.tick; S.world.terrainSame++; return; }
    S.terrainKey = res.sections.map(sectionKey);
    S.terrain = window.tickreelTerrain.decode(res);
    S.terrainImage = window.tickreelTerrain.topImage(S.terrain);
    if (View3d.isOn()) View3d.setTerrain(S.terrain);
    render();
  }
  const sectionKey = (x) => `${x[0]},${x[1]},${x[2]}:${x[4]}`;
  // The terrain's image on the map (one drawImage, the image made once per terrain).
  function drawTerrain() {
    const im = S.terrainImage;
    if (!im) return;
    const [sx, sy] = toScreen(im.x0, im.z0), sc = S.view.scale;
    ctx.imageSmoothingEnabled = false;
    ctx.drawImage(im.canvas, sx, sy, im.w * sc, im.h * sc);
  }
  // The edited blocks as of tick t and the changes after it (GET /api/blocks?tick=T: the world
  // the server rebuilds at T; blocks.js holds them), for the map and the 3D view.
  async function loadBlocks(t) {
    const rec = S.rec, tick = Math.max(S.first, Math.floor(t));
    S.world.blockRequests++;
    S.world.blocksTick = tick;
    const res = await getJson('blocks', { rec, tick: String(tick) });
    if (rec !== S.rec) return;
    worldBlocks.set(rec, res, shownTick());
  }
  const shownTick = () => (S.shown ? S.shown.tick : Math.floor(S.tick));

  // The world refetched as the tick moves, with bounded requests: never per frame. After a seek
  // (the last of a burst: a dragged timeline asks once it rests for WORLD_SEEK_MS) the terrain
  // at the new tick, and the edited blocks when the tick left the window of changes held; while
  // playing or following a live recording, the terrain at most every WORLD_REFRESH_MS when the
  // tick moved, and the edited blocks at most every BLOCKS_REFRESH_MS when the play position
  // nears the end of the window held (going forward: asked at the position; backward: half a
  // window before it) or left it. One request of each kind in flight at a time.
  const WORLD_SEEK_MS = 250, WORLD_REFRESH_MS = 5000, BLOCKS_REFRESH_MS = 1000;
  function worldFetch(kind, f) {
    if (S.world.busy[kind]) { S.world.again[kind] = true; return; }
    S.world.busy[kind] = true;
    const gen = S.gen;
    f().catch((e) => showError(e.message)).finally(() => {
      S.world.busy[kind] = false;
      if (S.world.again[kind] && gen === S.gen) { S.world.again[kind] = false; worldFetch(kind, f); }
    });
  }
  function terrainTick() { return S.terrain ? S.terrain.tick : null; }
  function worldAfterSeek() {
    clearTimeout(S.world.seekTimer);
    S.world.seekTimer = setTimeout(() => {
      if (!S.rec) return;
      if (!worldBlocks.covers(S.rec, Math.floor(S.tick))) {
        S.world.lastBlocks = performance.now();
        worldFetch('blocks', () => loadBlocks(S.tick));
      }
      if (terrainTick() === Math.floor(S.tick)) return;
      S.world.lastTerrain = performance.now();
      worldFetch('terrain', () => loadTerrain(S.tick));
    }, WORLD_SEEK_MS);
  }
  function worldWhilePlaying(now) {
    if (now - S.world.lastTerrain >= WORLD_REFRESH_MS) {
      S.world.lastTerrain = now;
      if (terrainTick() !== Math.floor(S.tick)) worldFetch('terrain', () => loadTerrain(S.tick));
    }
    if (now - S.world.lastBlocks >= BLOCKS_REFRESH_MS && !S.world.busy.blocks) {
      const w = worldBlocks.window(), t = Math.floor(S.tick);
      let at = null;
      if (!w || !worldBlocks.covers(S.rec, t)) at = S.dir < 0 && w ? t - (w[1] - w[0]) / 2 : t;
      else if (S.dir > 0 && w[1] < S.last && t > w[0] + (w[1] - w[0]) * 0.75) at = t;
      else if (S.dir < 0 && w[0] > S.first && t < w[0] + (w[1] - w[0]) * 0.25) at = t - (w[1] - w[0]) / 2;
      if (at !== null) {
        S.world.lastBlocks = now;
        worldFetch('blocks', () => loadBlocks(Math.max(S.first, at)));
      }
    }
  }

  // The edited blocks at the play position (blocks.js): air by the recording's palette.
  const isAir = (id) => {
    const name = S.info && S.info.palette && S.info.palette.blocks[id];
    return name ? /(^|:)(cave_|void_)?air$/.test(name) : id === 0;
  };
  const worldBlocks = window.tickreelBlocks.create(isAir);
  // The edited blocks on the map: a square over each (at least 2 pixels), shaded by height.
  function drawBlocks() {
    const list = worldBlocks.list();
    if (!list.length) return;
    const sc = S.view.scale, side = Math.max(2, sc);
    let low = Infinity, high = -Infinity;
    for (const e of list) { low = Math.min(low, e[1]); high = Math.max(high, e[1]); }
    for (const e of list) {
      const [sx, sy] = toScreen(e[0], e[2]);
      if (sx < -side || sy < -side || sx > map.width || sy > map.height) continue;
      const k = high > low ? (e[1] - low) / (high - low) : 1;
      ctx.fillStyle = `hsl(35, 18%, ${Math.round(35 + 30 * k)}%)`;
      ctx.fillRect(sx, sy, side, side);
    }
  }

  // The followed entity's height over the frames held around the tick shown.
  function drawHeight() {
    const c = $('height');
    c.hidden = S.follow === null;
    if (c.hidden || !S.shown) return;
    Inspector.drawHeight(c, S.follow, S.shown.tick, frameAt, S.first, S.last);
  }

  // The wall-clock time of tick t (the recording's start time plus the ticks since its first).
  function wallClock(t) {
    if (!S.info || !S.info.started_ms) return '';
    const d = new Date(S.info.started_ms + (Math.floor(t) - S.first) / S.rate * 1000);
    return d.toLocaleDateString() + ' ' + d.toLocaleTimeString();
  }

  function inspect(frame) {
    const v = Inspector.inspect(S.follow, frame, frameAt, S.rate, S.markers, S.names, S.info && S.info.palette);
    S.inspected = v;
    $('inspect').hidden = !v;
    Inspector.show($('inspector'), v);
  }

  // The address names the moment shown: the recording, the tick and the followed entity (never
  // the token: the cookie carries it for this browser, and a shared link should not).
  function momentUrl() {
    const q = new URLSearchParams();
    if (S.rec) q.set('rec', S.rec);
    if (S.shown) q.set('tick', String(S.shown.tick));
    if (S.follow !== null) q.set('follow', String(S.follow));
    return location.origin + location.pathname + '?' + q.toString();
  }
  function followAddress() {
    // a party's page keeps the party's address (reopened, it joins again)
    if (!S.rec || S.playing || party.active()) return;
    const u = momentUrl();
    if (u !== S.urlShown && u !== location.href) { S.urlShown = u; history.replaceState(null, '', u); }
  }
  async function copyLink() {
    const u = momentUrl();
    history.replaceState(null, '', u);
    const box = $('link');
    box.value = u; box.hidden = false; box.select();
    try { await navigator.clipboard.writeText(u); } catch (e) { document.execCommand && document.execCommand('copy'); }
    return u;
  }

  function drawGrid() {
    const sc = S.view.scale;
    let g = Math.pow(10, Math.ceil(Math.log10(40 / sc)));
    ctx.strokeStyle = '#1d2129';
    ctx.lineWidth = 1;
    ctx.beginPath();
    const [x0] = [S.view.cx - map.width / 2 / sc], z0 = S.view.cz - map.height / 2 / sc;
    for (let x = Math.floor(x0 / g) * g; x < x0 + map.width / sc; x += g) { const [sx] = toScreen(x, 0); ctx.moveTo(sx, 0); ctx.lineTo(sx, map.height); }
    for (let z = Math.floor(z0 / g) * g; z < z0 + map.height / sc; z += g) { const [, sy] = toScreen(0, z); ctx.moveTo(0, sy); ctx.lineTo(map.width, sy); }
    ctx.stroke();
    ctx.fillStyle = '#556';
    ctx.fillText(`grid ${g} blocks`, 8, map.height - 8);
  }

  function drawEntities(frame) {
    const t = frame.t;
    // trails: positions over the last TRAIL ticks from the cached frames, fading out (in
    // FADES bands, each one stroke per entity)
    ctx.lineWidth = 2;
    const band = TRAIL / FADES;
    for (const e of frame.e) {
      let prev = null, open = -1;
      ctx.strokeStyle = colorOf(e[0]);
      for (let k = TRAIL; k >= 0; k -= TRAIL_STEP) {
        const f = k === 0 ? frame : frameAt(t - k);
        const p = f && f.byId.get(e[0]);
        if (!p) { prev = null; continue; }
        if (prev && Math.hypot(p[1] - prev[1], p[3] - prev[3]) < JUMP) {
          const b = Math.min(FADES - 1, Math.floor((TRAIL - k) / band));
          if (b !== open) {
            if (open >= 0) ctx.stroke();
            open = b;
            ctx.globalAlpha = 0.6 * (b + 1) / FADES;
            ctx.beginPath();
          }
          const [a, c] = toScreen(prev[1], prev[3]), [d, g] = toScreen(p[1], p[3]);
          ctx.moveTo(a, c); ctx.lineTo(d, g);
        }
        prev = p;
      }
      if (open >= 0) ctx.stroke();
    }
    ctx.globalAlpha = 1;
    ctx.font = '12px system-ui, sans-serif';
    for (const e of frame.e) {
      const [sx, sy] = toScreen(e[1], e[3]);
      const r = e[0] === S.follow ? 6 : 4;
      ctx.fillStyle = colorOf(e[0]);
      ctx.beginPath(); ctx.arc(sx, sy, r, 0, Math.PI * 2); ctx.fill();
      // heading (yaw 0 = +z, Minecraft's convention)
      const yaw = e[4] * Math.PI / 180;
      ctx.strokeStyle = ctx.fillStyle; ctx.lineWidth = 1.5;
      ctx.beginPath(); ctx.moveTo(sx, sy); ctx.lineTo(sx - Math.sin(yaw) * (r + 6), sy + Math.cos(yaw) * (r + 6)); ctx.stroke();
      if (S.report && e[0] === S.report.player) ring(sx, sy, 10, '#ff4d4d');
      else if (S.context.has(e[0])) ring(sx, sy, 8, '#e6c84d');
      const name = S.names.get(e[0]);
      if (name || e[0] === S.follow) {
        ctx.fillStyle = '#dde';
        ctx.fillText(name || ('#' + e[0]), sx + 8, sy - 6);
      }
    }
  }
  function ring(x, y, r, color) {
    ctx.strokeStyle = color; ctx.lineWidth = 2;
    ctx.beginPath(); ctx.arc(x, y, r, 0, Math.PI * 2); ctx.stroke();
  }

  function drawHud(frame) {
    const parts = [];
    parts.push(S.rec || 'pick a recording');
    if (frame) parts.push(`${frame.e.length} entities`);
    if (S.live) parts.push('live: ' + (S.liveState || '?'));
    if (S.stalled) parts.push('loading…');
    if (S.race) {
      const d = deltaAt(S.tick - S.race.run.origin_tick);
      if (d !== null) parts.push(`delta ${d >= 0 ? '+' : ''}${d.toFixed(2)} s`);
    }
    $('hud').textContent = parts.join(' · ');
  }

  // ---- ghost race (drawing in race.js) --------------------------------------------------------
  const deltaAt = (t) => Race.deltaAt(S.race, t);
  function drawRace() { Race.drawRace(ctx, toScreen, S.race, S.tick); }
  function drawChart() { Race.drawChart($('chart'), S.race, S.tick); }
  async function race(q) {
    q = Object.assign({ rec: S.rec }, q);
    const res = await getJson('ghost', q);
    S.race = res;
    $('chart').hidden = false;
    const r = res.run, gh = res.ghost;
    const last = res.delta.length ? res.delta[res.delta.length - 1][1] : 0;
    $('race-info').textContent = `run ${(r.duration_ticks / r.tick_rate).toFixed(2)} s, ghost ` +
      `${(gh.duration_ticks / gh.tick_rate).toFixed(2)} s${gh.catalog ? ' (' + gh.catalog.player_name + ', best of ' + gh.catalog.course + ')' : ''}` +
      `, final delta ${last >= 0 ? '+' : ''}${last.toFixed(2)} s, ${res.splits.length} splits`;
    setFollow(r.entity);
    return res;
  }

  // The board of a course (the catalog's best runs), each raceable against the run entity.
  async function board(course) {
    if (!course) throw new Error('type a course first');
    const res = await getJson('catalog/top', { course, n: 20 });
    const t = $('board');
    t.innerHTML = '';
    for (const r of res.runs) {
      const tr = t.insertRow();
      tr.insertCell().textContent = '#' + r.rank;
      tr.insertCell().textContent = `${r.player_name} ${r.time}`;
      const b = document.createElement('button'); b.textContent = 'race';
      b.onclick = () => race({ entity: $('run-entity').value, run_id: r.run_id }).catch((err) => showError(err.message));
      tr.insertCell().appendChild(b);
    }
    if (!res.runs.length) t.insertRow().insertCell().textContent = 'no runs on this course';
    // held runs: on no board and no ghost until a moderator clears them; shown with why
    for (const h of res.held || []) {
      const tr = t.insertRow();
      tr.className = 'held';
      tr.insertCell().textContent = 'held';
      tr.insertCell().textContent = `${h.player_name} ${h.time}`;
      tr.insertCell().textContent = h.holds.map((x) =>
        x.reason + (x.tick == null ? '' : ' at tick ' + x.tick) + ': ' + x.detail).join('; ');
    }
    return res.runs.length;
  }

  // ---- timeline -----------------------------------------------------------------------------
  const timeline = window.tickreelTimeline.create($('marks'), $('mark-tip'), (t) => { pause(); seek(t).catch(() => {}); });
  function drawMarks() { timeline.draw(S.first, S.last, S.info ? S.info.gaps : []); }
  function markFilters() {
    const box = $('mark-kinds');
    for (const k of window.tickreelTimeline.KINDS) {
      const l = document.createElement('label');
      const cb = document.createElement('input'); cb.type = 'checkbox'; cb.checked = true; cb.dataset.kind = k.key;
      const sw = document.createElement('i'); sw.style.background = k.color;
      l.append(cb, sw, document.createTextNode(k.label));
      cb.onchange = () => {
        const kinds = new Set([...box.querySelectorAll('input')].filter((c) => c.checked).map((c) => c.dataset.kind));
        timeline.setFilter({ kinds });
      };
      box.appendChild(l);
    }
    $('mark-entity').onchange = (e) => timeline.setFilter({ entity: e.target.value === '' ? null : Number(e.target.value) });
  }

  // ---- input --------------------------------------------------------------------------------
  let dragging = false;
  function wire() {
    $('play').onclick = () => { if (S.playing && S.dir > 0) pause(); else { S.dir = 1; play(); } };
    $('reverse').onclick = () => { if (S.playing && S.dir < 0) pause(); else { S.dir = -1; play(); } };
    $('step-fwd').onclick = () => step(1);
    $('step-back').onclick = () => step(-1);
    $('speed').onchange = (e) => setSpeed(e.target.value);
    $('follow').onchange = (e) => setFollow(e.target.value === '' ? null : Number(e.target.value));
    $('live-follow').onchange = (e) => { S.liveFollow = e.target.checked; };
    const tl = $('timeline');
    tl.addEventListener('input', () => { dragging = true; seek(Number(tl.value)).catch(() => {}); });
    tl.addEventListener('change', () => { dragging = false; });
    $('ghost-rec').onchange = async (e) => {
      const name = e.target.value || S.rec;
      const sel = $('ghost-entity');
      sel.innerHTML = '';
      try {
        const info = await getJson('info', { rec: name });
        for (const en of info.entities) sel.add(new Option((en.name || 'entity') + ' #' + en.id, en.id));
      } catch (err) { showError(err.message); }
    };
    $('board-go').onclick = () => { board($('course').value.trim()).catch((err) => showError(err.message)); };
    $('race-go').onclick = () => {
      const q = { entity: $('run-entity').value };
      const from = $('cp-from').value.trim(), to = $('cp-to').value.trim();
      if (from !== '' || to !== '') { q.from_checkpoint = from; q.to_checkpoint = to; }
      const course = $('course').value.trim();
      if (course) q.course = course;
      else {
        q.ghost_entity = $('ghost-entity').value;
        if ($('ghost-rec').value) q.ghost = $('ghost-rec').value;
      }
      race(q).catch((e) => showError(e.message));
    };
    $('race-clear').onclick = () => { S.race = null; $('chart').hidden = true; $('race-info').textContent = ''; };
    // pan by dragging the map, zoom with the wheel (around the pointer)
    // a click (no drag) on an entity follows it; a drag pans (and stops following)
    let pan = null;
    map.addEventListener('mousedown', (e) => { pan = { x: e.clientX, y: e.clientY, x0: e.clientX, y0: e.clientY, moved: false }; });
    window.addEventListener('mouseup', (e) => {
      if (pan && !pan.moved && e.target === map) {
        const r = map.getBoundingClientRect();
        const id = entityAt(e.clientX - r.left, e.clientY - r.top);
        if (id !== null) setFollow(id);
      }
      pan = null;
    });
    window.addEventListener('mousemove', (e) => {
      if (!pan) return;
      if (!pan.moved && Math.hypot(e.clientX - pan.x0, e.clientY - pan.y0) < 4) return;
      if (!pan.moved) { pan.moved = true; setFollow(null); }
      S.view.cx -= (e.clientX - pan.x) / S.view.scale; S.view.cz -= (e.clientY - pan.y) / S.view.scale;
      pan = { x: e.clientX, y: e.clientY };
    });
    map.addEventListener('wheel', (e) => { e.preventDefault(); zoom(Math.exp(-e.deltaY * 0.0015), e.offsetX, e.offsetY); }, { passive: false });
    window.addEventListener('keydown', (e) => {
      if (e.target.tagName === 'INPUT' && e.target.type !== 'range') return;
      if (e.ctrlKey || e.metaKey || e.altKey) return;
      const k = e.key;
      const jump = (secs) => { e.preventDefault(); seek((S.shown ? S.shown.tick : S.tick) + secs * S.rate).catch(() => {}); };
      if (k === ' ') { e.preventDefault(); $('play').onclick(); }
      else if (k === '.') step(1);
      else if (k === ',') step(-1);
      // J/K/L: play backward, pause, play forward (again: twice as fast)
      else if (k === 'j' || k === 'J') { if (S.playing && S.dir < 0) faster(); else { S.dir = -1; play(); } }
      else if (k === 'k' || k === 'K') pause();
      else if (k === 'l' || k === 'L') { if (S.playing && S.dir > 0) faster(); else { S.dir = 1; play(); } }
      else if (k === 'ArrowRight') jump(e.shiftKey ? LONG_JUMP : SECOND_JUMP);
      else if (k === 'ArrowLeft') jump(-(e.shiftKey ? LONG_JUMP : SECOND_JUMP));
      else if (k === ']' || k === '+' || k === '=') faster();
      else if (k === '[' || k === '-') slower();
      else if (k === '1') setSpeed(1);
    });
    $('copy-link').onclick = () => { copyLink().catch((err) => showError(err.message)); };
    try { $('moderator').value = localStorage.getItem('tickreel.moderator') || ''; } catch (e) { /* storage off */ }
    $('decide-reviewed').onclick = () => decide('reviewed').catch((err) => showError(err.message));
    $('decide-actioned').onclick = () => decide('actioned').catch((err) => showError(err.message));
    markFilters();
    party.wire();
    $('toggle-3d').onclick = () => { set3d(!View3d.isOn()).catch((err) => showError(err.message)); };
    View3d.wire($('view3d'), (id) => setFollow(id));
    for (const id of ['list-search', 'list-kind', 'list-sort', 'list-server', 'list-player', 'list-course', 'list-from',
      'list-to', 'list-min-minutes', 'list-min-mb']) $(id).addEventListener('input', showList);
  }
  const SPEEDS = [0.25, 0.5, 1, 2, 4, 8, 16];
  function faster() { setSpeed(SPEEDS[Math.min(SPEEDS.length - 1, SPEEDS.indexOf(S.speed) + 1)] || 1); }
  function slower() { setSpeed(SPEEDS[Math.max(0, SPEEDS.indexOf(S.speed) - 1)] || 1); }

  // The entity drawn nearest to (x, y) on the map, within 12 pixels, or null.
  function entityAt(x, y) {
    const f = S.shown && frameAt(S.tick);
    if (!f) return null;
    let best = null, dist = 12;
    for (const e of f.e) {
      const [sx, sy] = toScreen(e[1], e[3]);
      const d = Math.hypot(sx - x, sy - y);
      if (d < dist) { best = e[0]; dist = d; }
    }
    return best;
  }

  function zoom(f, px, py) {
    if (px === undefined) { px = map.width / 2; py = map.height / 2; }
    const wx = S.view.cx + (px - map.width / 2) / S.view.scale, wz = S.view.cz + (py - map.height / 2) / S.view.scale;
    S.view.scale = Math.max(0.01, Math.min(400, S.view.scale * f));
    S.view.cx = wx - (px - map.width / 2) / S.view.scale; S.view.cz = wz - (py - map.height / 2) / S.view.scale;
  }

  async function loadList() {
    const res = await getJson('recordings');
    S.list = res.recordings; S.catalog = res.catalog; S.hasCatalog = res.has_catalog;
    $('root').textContent = res.root + (res.truncated ? ' (the first ' + res.recordings.length + ' only)' : '');
    S.staff = res.staff || null;
    S.role = res.role || null;
    S.entries = List.entries(res);
    // the servers the list names, as filter choices (the chosen one kept)
    const sv = $('list-server'), chosen = sv.value;
    while (sv.options.length > 1) sv.remove(1);
    for (const name of List.servers(S.entries)) sv.add(new Option(name, name));
    sv.value = chosen;
    $('list-filters').hidden = false;
    showList();
  }
  function showList() {
    const q = { text: $('list-search').value, kind: $('list-kind').value, sort: $('list-sort').value,
      server: $('list-server').value, player: $('list-player').value, course: $('list-course').value,
      from: $('list-from').value, to: $('list-to').value, minMinutes: $('list-min-minutes').value, minMB: $('list-min-mb').value };
    const shown = List.select(S.entries || [], q);
    $('list-count').textContent = `${shown.length} of ${(S.entries || []).length}`;
    List.render($('list'), shown, S.rec, (name) => open(name).catch((e) => showError(e.message)));
  }

  function state() {
    return {
      rec: S.rec, first: S.first, last: S.last, tick: S.tick, shownTick: S.shown ? S.shown.tick : null,
      playing: S.playing, dir: S.dir, speed: S.speed, follow: S.follow, live: S.live, liveState: S.liveState,
      blocks: blocks.size, errors: S.errors.slice(), stalled: S.stalled, report: S.report,
      drawn: S.drawn, played: Math.floor(S.played),
      race: S.race ? { splits: S.race.splits.length, delta: S.race.delta.length } : null,
      view: Object.assign({}, S.view), markers: S.markers ? { teleports: S.markers.teleports.length, checkpoints: S.markers.checkpoints.length } : null,
      terrain: S.terrain ? { tick: S.terrain.tick, blocks: S.terrain.n, faces: S.terrain.faces, clear: S.terrain.clearCount, truncated: S.terrain.truncated,
        image: S.terrainImage ? { x0: S.terrainImage.x0, z0: S.terrainImage.z0, w: S.terrainImage.w, h: S.terrainImage.h, low: S.terrainImage.low, high: S.terrainImage.high } : null } : null,
      mapBlocks: S.shown ? worldBlocks.list().slice(0, 100).map((e) => e.slice()) : [],
      world: { terrainRequests: S.world.terrainRequests, terrainSame: S.world.terrainSame, blockRequests: S.world.blockRequests, blocksAsked: S.world.blocksTick, blocks: worldBlocks.state() },
      marks: timeline.counts(), inspected: S.inspected, inboxRow: S.inboxRow, wall: wallClock(S.tick),
      party: party.state(),
    };
  }

  // ---- watching together (party.js) ----------------------------------------------------------
  // A follower applies the controller's state: direction, speed, playing, and the tick (a
  // correction sent while playing only when this page is off by more than half a second).
  function applyParty(st) {
    if (!S.rec) return;
    S.dir = st.dir < 0 ? -1 : 1;
    setSpeed(st.speed);
    if (!st.sync || Math.abs(S.tick - st.tick) > S.rate / 2) seek(st.tick).catch(() => {});
    if (st.playing) play(); else pause();
  }
  const party = Party.create({
    apiUrl, showError,
    // (the recording already open, as on the page that starts the party, is not opened again)
    open: (rec) => (rec === S.rec && S.info ? Promise.resolve() : open(rec, { party: true })),
    apply: applyParty,
    seek: (t) => { seek(t).catch((e) => showError(e.message)); },
    current: () => ({ rec: S.rec, tick: S.playing ? S.tick : (S.shown && !S.stalled ? Math.max(S.first, Math.min(S.last, S.tick)) : S.tick),
      playing: S.playing, dir: S.dir, speed: S.speed }),
  });

  const ready = (async () => {
    wire();
    requestAnimationFrame(tickLoop);
    await loadList();
    await loadInbox().catch((e) => showError(e.message));
    // new recordings appear in the list (a failed refresh is not worth a message)
    setInterval(() => { loadList().catch(() => {}); loadInbox().catch(() => {}); }, 15000);
    const rec = params.get('rec'), partyId = params.get('party');
    if (partyId) await party.join(partyId);
    else if (rec) await open(rec, { tick: params.get('tick'), follow: params.get('follow') });
    return true;
  })().catch((e) => { showError(e.message); return false; });

  window.tickreelViewer = {
    ready, state, open,
    shown: () => S.shown,
    play: (dir) => { S.dir = dir === undefined ? S.dir : (dir < 0 ? -1 : 1); play(); return state(); },
    pause: () => { pause(); return state(); },
    reverse: () => { S.dir = -S.dir; buttons(); return state(); },
    setSpeed: (s) => { setSpeed(s); return state(); },
    seek, step, race, zoom, board, decide, copyLink, timeline, set3d,
    view3d: () => View3d.state(),
    // holds an answer of /api/blocks?tick= as if the server had given it (the 3D benchmark gives
    // a floor of 10,000 blocks that its recording does not have)
    holdBlocks: (res) => { worldBlocks.set(S.rec, res, shownTick()); return worldBlocks.state(); },
    // where the world point p is drawn in the 3D view, in the page's coordinates
    project3d: (p) => {
      const q = View3d.project(p), r = $('view3d').getBoundingClientRect();
      return q && [r.left + q[0], r.top + q[1]];
    },
    lookAt3d: (p, dist) => { View3d.lookAt(p, dist); return true; },
    // draws the 3D view at once (to read its pixels in the same task)
    redraw3d: () => View3d.redraw(),
    // where the world point (x, z) is on the map's canvas (its pixels)
    mapPoint: (x, z) => toScreen(x, z),
    // where entity id is drawn on the map, in the page's coordinates (the browser test clicks it)
    screenOf: (id) => {
      const f = frameAt(S.tick), e = f && f.byId.get(id);
      if (!e) return null;
      const r = map.getBoundingClientRect(), [x, y] = toScreen(e[1], e[3]);
      return [r.left + x, r.top + y];
    },
    follow: (id) => { setFollow(id); return state(); },
    // watching together: start (a party on the recording open; its link), join, ask for and
    // hand over the controls, bookmark, leave; the state sequence numbers' sent/applied times
    party: {
      start: () => party.start(S.rec, S.tick), join: (id) => party.join(id), ask: () => party.ask(),
      hand: (to) => party.hand(to), bookmark: (note, tick) => party.bookmark(note, tick === undefined ? S.tick : tick),
      leave: () => party.leave(), state: () => party.state(), times: () => party.times(),
    },
  };
})();
