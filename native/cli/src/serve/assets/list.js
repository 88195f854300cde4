// tickreel viewer, the list of recordings: files, live recordings and the catalog's recordings
// as one entry each (a catalog recording that is also a listed file is that file, with the
// catalog's duration), with size, date and duration, searched by name, filtered by kind and
// sorted by name, date, size or duration.
'use strict';
window.tickreelList = (() => {
  const size = (b) => b >= 1 << 30 ? (b / (1 << 30)).toFixed(1) + ' GB' : b >= 1 << 20 ? (b / (1 << 20)).toFixed(1) + ' MB'
    : b >= 1024 ? Math.round(b / 1024) + ' kB' : b + ' B';
  const duration = (s) => s >= 3600 ? `${Math.floor(s / 3600)} h ${Math.round(s % 3600 / 60)} min`
    : s >= 60 ? `${Math.floor(s / 60)} min ${Math.round(s % 60)} s` : `${s.toFixed(1)} s`;

  // One entry per recording: { name, label, kind, size, date (ms), seconds }.
  function entries(res) {
    const out = res.recordings.map((r) => ({ name: r.name, label: r.name, kind: r.kind, size: r.size, date: r.modified_ms, seconds: null }));
    for (const c of res.catalog) {
      const file = out.find((e) => c.location.endsWith('/' + e.name));
      if (file) { file.seconds = c.seconds; continue; }
      out.push({ name: c.name, label: c.location, kind: 'catalog', size: c.size, date: c.started_ms, seconds: c.seconds });
    }
    return out;
  }

  const SORTS = {
    name: (a, b) => a.label.localeCompare(b.label),
    date: (a, b) => (b.date || 0) - (a.date || 0),
    size: (a, b) => (b.size || 0) - (a.size || 0),
    duration: (a, b) => (b.seconds || 0) - (a.seconds || 0),
  };

  // The entries `q` shows: { text, kind ('' for all), sort }.
  function select(all, q) {
    const text = (q.text || '').toLowerCase();
    return all.filter((e) => (!q.kind || e.kind === q.kind) && (!text || e.label.toLowerCase().includes(text)))
      .sort(SORTS[q.sort] || SORTS.name);
  }

  function render(ul, shown, current, onOpen) {
    ul.innerHTML = '';
    for (const e of shown) {
      const li = document.createElement('li');
      li.dataset.name = e.name;
      li.classList.toggle('open', e.name === current);
      const n = document.createElement('div'); n.textContent = e.label;
      const k = document.createElement('span'); k.className = 'kind' + (e.kind === 'live' ? ' live' : '');
      k.textContent = e.kind === 'live' ? '● live' : e.kind;
      n.appendChild(k);
      const d = document.createElement('div'); d.className = 'dim';
      d.textContent = [e.size ? size(e.size) : '', e.date ? new Date(e.date).toLocaleString() : '',
        e.seconds !== null && e.seconds !== undefined ? duration(e.seconds) : ''].filter(Boolean).join(' · ');
      li.append(n, d);
      li.onclick = () => onOpen(e.name);
      ul.appendChild(li);
    }
  }
  return { entries, select, render, size, duration };
})();
