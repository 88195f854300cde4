// tickreel viewer: watching together. A watch party (serve/party.rs) is joined by its event stream
// (GET /api/party/events?party=ID: `hello`, then `state` and `party` events); one member has the
// controls: the viewer tells this module each change of its playback (changed()), which the
// controller's page sends (POST /api/party/act, one request in flight, the newest state after
// it); every other page applies each state it receives (hooks.apply) and refuses its own
// playback actions (may()). Bookmarks with notes, asking for and handing over the controls go
// through the same action route. Each page keeps, per state sequence number, when it sent it
// (the controller) or applied it (a follower), in the wall clock (the follow-latency benchmark
// compares the two pages').
'use strict';
window.tickreelParty = (() => {
  const LOG_MAX = 4096;     // sent/applied times kept (the newest)
  const SYNC_MS = 2000;     // while playing, the controller sends its position this often
  const now = () => performance.timeOrigin + performance.now();

  function create(hooks) {
    const P = {
      id: null, member: null, key: null, name: null, rec: null, roster: null, state: null,
      source: null, opened: false, applying: false, ended: null,
      inFlight: false, dirty: false, dirtyAt: null, dirtySync: false,
      sent: new Map(), applied: new Map(), refused: 0, errors: [],
    };
    const $ = (id) => document.getElementById(id);
    const keep = (m, k, v) => { m.set(k, v); if (m.size > LOG_MAX) m.delete(m.keys().next().value); };

    const active = () => P.id !== null && !P.ended;
    const controller = () => active() && P.roster && P.roster.controller === P.member;
    const locked = () => active() && !controller() && !P.applying;
    function nameOf(id) {
      const m = P.roster && P.roster.members.find((x) => x.id === id);
      return m ? m.name : 'member ' + id;
    }
    const LOCKED = () => `${P.roster ? nameOf(P.roster.controller) : 'another member'} has the controls: ask for them`;

    async function post(path, body) {
      const r = await fetch(hooks.apiUrl(path), {
        method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body),
      });
      let res = null;
      try { res = await r.json(); } catch (e) { /* not JSON */ }
      if (!r.ok) throw new Error((res && res.error) || (path + ': HTTP ' + r.status));
      return res;
    }
    const act = (action, extra) => post('party/act', Object.assign({ party: P.id, key: P.key, action }, extra || {}));

    // The viewer's playback changed: the controller sends it (the newest, one request at a time).
    function changed(sync) {
      if (!controller() || P.applying || !P.opened) return;
      if (!P.dirty) { P.dirtyAt = now(); P.dirtySync = !!sync; } else if (!sync) P.dirtySync = false;
      P.dirty = true;
      if (!P.inFlight) flush();
    }
    async function flush() {
      P.inFlight = true;
      try {
        while (P.dirty && controller()) {
          P.dirty = false;
          const at = P.dirtyAt, st = hooks.current();
          const res = await act('control', { tick: st.tick, playing: st.playing, dir: st.dir, speed: st.speed, sync: P.dirtySync });
          keep(P.sent, res.seq, at);
        }
      } catch (e) {
        P.errors.push(e.message);
        hooks.showError(e.message);
      } finally {
        P.inFlight = false;
      }
    }
    setInterval(() => { if (controller() && hooks.current().playing) changed(true); }, SYNC_MS);

    function applyState(st) {
      P.state = st;
      if (!P.opened) return;
      // the controller's own state comes back: it is already shown
      if (st.by === P.member && controller()) return;
      P.applying = true;
      try { hooks.apply(st); } finally { P.applying = false; }
      keep(P.applied, st.seq, now());
    }

    // Joins party id: resolves once its recording is open and its state applied.
    function join(id) {
      if (P.source) P.source.close();
      Object.assign(P, { id, member: null, key: null, roster: null, state: null, opened: false, ended: null });
      return new Promise((resolve, reject) => {
        const es = new EventSource(hooks.apiUrl('party/events', { party: id }));
        P.source = es;
        const mine = () => P.source === es;
        es.addEventListener('hello', (ev) => {
          if (!mine()) return;
          const h = JSON.parse(ev.data);
          Object.assign(P, { member: h.member, key: h.key, rec: h.rec, name: h.name, limits: h.limits });
          hooks.open(h.rec).then(() => {
            P.opened = true;
            if (P.state) applyState(P.state);
            show();
            resolve(state());
          }, (e) => { hooks.showError(e.message); reject(e); });
        });
        es.addEventListener('state', (ev) => { if (mine()) applyState(JSON.parse(ev.data)); });
        es.addEventListener('party', (ev) => {
          if (!mine()) return;
          P.roster = JSON.parse(ev.data);
          if (P.roster.ended) { P.ended = P.roster.ended; es.close(); }
          show();
        });
        es.onerror = () => {
          // a stream the page left (or replaced) is not asked for again
          if (!mine()) { es.close(); return; }
          // a party that ended (or never was) is not asked for again
          if (P.member === null) { es.close(); reject(new Error('no such watch party (it may have ended)')); }
        };
      });
    }

    // A new party on the recording open, joined at once; its link.
    async function start(rec, tick) {
      const res = await post('party', { rec, tick: Math.max(0, Math.floor(tick || 0)) });
      await join(res.party);
      return link();
    }
    function link() { return active() ? location.origin + location.pathname + '?party=' + P.id : null; }
    async function leave() {
      if (!active()) return;
      const id = P.id, key = P.key, es = P.source;
      P.source = null;
      P.id = null;
      P.roster = null;
      show();
      // the action first, the stream after: a stream closed first can reach the server before
      // the action, which then finds no such member and the party waits LEFT_GRACE to end
      await post('party/act', { party: id, key, action: 'leave' }).catch(() => {});
      if (es) es.close();
    }

    // May the viewer's own playback action go ahead (not in a party, or at its controls)?
    function may() {
      if (!locked()) return true;
      P.refused++;
      const w = $('party-who');
      if (w) w.textContent = LOCKED();
      return false;
    }

    function state() {
      return {
        id: P.id, member: P.member, name: P.name, rec: P.rec, controller: P.roster ? P.roster.controller : null,
        isController: controller(), members: P.roster ? P.roster.members.map((m) => m.name) : [],
        requests: P.roster ? P.roster.requests.slice() : [],
        bookmarks: P.roster ? P.roster.bookmarks.map((b) => ({ tick: b.tick, note: b.note, by: b.by })) : [],
        seq: P.state ? P.state.seq : null, ended: P.ended, refused: P.refused, errors: P.errors.slice(),
        link: link(),
      };
    }
    // Sent (controller) and applied (follower) times by state sequence number.
    const times = () => ({ sent: Object.fromEntries(P.sent), applied: Object.fromEntries(P.applied) });

    // ---- the panel ----------------------------------------------------------------------------
    function show() {
      const sec = $('party-section');
      if (!sec) return;
      sec.hidden = P.id === null;
      document.body.classList.toggle('party-follower', active() && !controller());
      for (const id of ['play', 'reverse', 'step-fwd', 'step-back', 'speed', 'timeline']) $(id).disabled = active() && !controller();
      if (P.id === null) return;
      $('party-link').value = link() || '';
      if (P.ended) { $('party-who').textContent = 'the party ended: ' + P.ended; return; }
      if (!P.roster) return;
      const r = P.roster;
      $('party-who').textContent = controller() ? 'you have the controls' : `${nameOf(r.controller)} has the controls`;
      const ul = $('party-members');
      ul.innerHTML = '';
      for (const m of r.members) {
        const li = document.createElement('li');
        li.textContent = m.name + (m.id === P.member ? ' (you)' : '') + (m.id === r.controller ? ' · controls' : '') +
          (r.requests.includes(m.id) ? ' · asks for the controls ' : '');
        if (controller() && m.id !== P.member) {
          const b = document.createElement('button');
          b.textContent = 'hand over'; b.className = 'party-hand'; b.dataset.member = m.id;
          b.onclick = () => hand(m.id).catch((e) => hooks.showError(e.message));
          li.appendChild(b);
        }
        ul.appendChild(li);
      }
      $('party-ask').hidden = controller();
      $('party-ask').disabled = r.requests.includes(P.member);
      const bl = $('party-bookmarks');
      bl.innerHTML = '';
      for (const b of r.bookmarks) {
        const li = document.createElement('li');
        li.textContent = `tick ${b.tick} · ${b.note || '(no note)'} · ${b.by}`;
        li.dataset.tick = b.tick;
        li.onclick = () => { if (controller()) hooks.seek(b.tick); };
        bl.appendChild(li);
      }
    }
    async function ask() { await act('request'); }
    async function hand(to) { await act('hand', { to: Number(to) }); }
    async function bookmark(note, tick) {
      if (!active()) throw new Error('join or start a watch party first');
      return act('bookmark', { tick: Math.max(0, Math.floor(tick)), note: String(note || '') });
    }
    function wire() {
      $('party-ask').onclick = () => ask().catch((e) => hooks.showError(e.message));
      $('party-leave').onclick = () => leave();
      $('party-mark').onclick = () => {
        bookmark($('party-note').value, hooks.current().tick).then(() => { $('party-note').value = ''; },
          (e) => hooks.showError(e.message));
      };
      $('party-start').onclick = () => {
        const c = hooks.current();
        if (!c.rec) { hooks.showError('open a recording first'); return; }
        start(c.rec, c.tick).then((u) => { history.replaceState(null, '', u); }, (e) => hooks.showError(e.message));
      };
    }

    return { active, controller, locked, may, changed, join, start, leave, ask, hand, bookmark, state, times, wire, link, LOCKED, show };
  }
  return { create };
})();
