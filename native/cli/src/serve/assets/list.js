// tickreel viewer, the list of recordings: files, live recordings and the catalog's recordings
// as one entry each (a catalog recording that is also a listed file or object is that file,
// with the catalog's duration, server, courses and players), with server, size, date and
// duration, searched by name and filtered by server, player, course, kind, date range, least
// duration and least size, sorted by name, date, size, duration or server. Live recordings are
// marked. A network's list (`serve --catalog URL --storage s3://...`) is every server's.
'use strict';
window.tickreelList = (() => {
  const size = (b) => b >= 1 << 30 ? (b / (1 << 30)).toFixed(1) + ' GB' : b >= 1 << 20 ? (b / (1 << 20)).toFixed(1) + ' MB'
    : b >= 1024 ? Math.round(b / 1024) + ' kB' : b + ' B';
  const duration = (s) => s >= 3600 ? `${Math.floor(s / 3600)} h ${Math.round(s % 3600 / 60)} min`
    : s >= 60 ? `${Math.floor(s / 60)} min ${Math.round(s % 60)} s` : `${s.toFixed(1)} s`;

  // One entry per recording: { name, label, kind, size, date (ms), seconds, server, courses, players }.
  function entries(res) {
    const out = res.recordings.map((r) => ({ name: r.name, label: r.name, kind: r.kind, size: r.size, date: r.modified_ms,
      seconds: null, server: null, courses: [], players: [] }));
    const tag = (e, c) => { e.seconds = c.seconds; e.server = c.server || null; e.courses = c.courses || []; e.players = c.players || []; };
    // a catalog row is the listed entry whose name ends its location (found by the location's
    // trailing parts: a few look-ups a row, not a scan of the list)
    const byName = new Map(out.map((e) => [e.name, e]));
    const listed = (location) => {
      const parts = location.split('/');
      for (let i = 0; i < parts.length; i++) {
        const e = byName.get(parts.slice(i).join('/'));
        if (e) return e;
      }
      return null;
    };
    for (const c of res.catalog) {
      const file = listed(c.location);
      if (file) { tag(file, c); if (c.started_ms) file.date = c.started_ms; continue; }
      const e = { name: c.name, label: c.location, kind: 'catalog', size: c.size, date: c.started_ms };
      tag(e, c);
      out.push(e);
    }
    return out;
  }

  // The servers named in `all`, sorted.
  const servers = (all) => [...new Set(all.map((e) => e.server).filter(Boolean))].sort();

  const SORTS = {
    name: (a, b) => a.label.localeCompare(b.label),
    date: (a, b) => (b.date || 0) - (a.date || 0),
    size: (a, b) => (b.size || 0) - (a.size || 0),
    duration: (a, b) => (b.seconds || 0) - (a.seconds || 0),
    server: (a, b) => (a.server || '\uffff').localeCompare(b.server || '\uffff') || a.label.localeCompare(b.label),
  };

  const has = (list, text) => list.some((x) => x.toLowerCase().includes(text));
  // The day `d` ('YYYY-MM-DD', local) starts at, in ms; NaN for none.
  const day = (d) => d ? new Date(d + 'T00:00:00').getTime() : NaN;

  // The entries `q` shows: { text, kind ('' for all), server ('' for all), player, course,
  // from, to ('YYYY-MM-DD'), minMinutes, minMB, sort }.
  function select(all, q) {
    const text = (q.text || '').toLowerCase(), player = (q.player || '').trim().toLowerCase(),
      course = (q.course || '').trim().toLowerCase();
    const from = day(q.from), to = day(q.to) + 86400000;
    const minS = Number(q.minMinutes) > 0 ? Number(q.minMinutes) * 60 : 0;
    const minB = Number(q.minMB) > 0 ? Number(q.minMB) * (1 << 20) : 0;
    return all.filter((e) => (!q.kind || e.kind === q.kind) && (!q.server || e.server === q.server)
      && (!text || e.label.toLowerCase().includes(text))
      && (!player || has(e.players || [], player)) && (!course || has(e.courses || [], course))
      && (Number.isNaN(from) || (e.date && e.date >= from)) && (Number.isNaN(to) || (e.date && e.date < to))
      && (!minS || (e.seconds || 0) >= minS) && (!minB || (e.size || 0) >= minB))
      .sort(SORTS[q.sort] || SORTS.name);
  }

  function render(ul, shown, current, onOpen) {
    ul.innerHTML = '';
    for (const e of shown) {
      const li = document.createElement('li');
      li.dataset.name = e.name;
      li.classList.toggle('open', e.name === current);
      li.classList.toggle('live', e.kind === 'live');
      const n = document.createElement('div'); n.textContent = e.label;
      const k = document.createElement('span'); k.className = 'kind' + (e.kind === 'live' ? ' live' : '');
      k.textContent = e.kind === 'live' ? '● live' : e.kind;
      n.appendChild(k);
      const d = document.createElement('div'); d.className = 'dim';
      const sv = document.createElement('span'); sv.className = 'server'; sv.textContent = e.server || '—';
      sv.title = 'server';
      d.append(sv, ' ' + [e.size ? size(e.size) : '', e.date ? new Date(e.date).toLocaleString() : '',
        e.seconds !== null && e.seconds !== undefined ? duration(e.seconds) : ''].filter(Boolean).join(' · '));
      li.append(n, d);
      const tags = [...(e.courses || []).map((c) => 'course ' + c), ...(e.players || []).slice(0, 8)];
      if (tags.length) { const t = document.createElement('div'); t.className = 'dim tags'; t.textContent = tags.join(' · '); li.appendChild(t); }
      li.onclick = () => onOpen(e.name);
      ul.appendChild(li);
    }
  }
  return { entries, select, render, servers, size, duration };
})();
