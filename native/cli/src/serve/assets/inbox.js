// tickreel viewer, the reports inbox: the catalog's shadow-play reports (GET /api/reports, open
// ones first) as a list to work through — player (name and UUID), reason, reporter, server, time
// on the local clock, status and who decided — and a report's panel: the same fields, its
// figures (every number the report's metadata and the recording's analysis carry, whatever
// their names), and the decision (POST /api/reports/decide, with the moderator's name).
'use strict';
window.tickreelInbox = (() => {
  const localTime = (ms) => (ms === null || ms === undefined) ? '' : new Date(ms).toLocaleString();
  const short = (uuid) => uuid ? uuid.slice(0, 8) : '';

  // The fields of a report row the list shows by name; any other number is a figure.
  const ROW_KEYS = new Set(['id', 'player', 'player_name', 'reporter', 'reason', 'created_ms', 'status',
    'recording', 'server', 'reviewed_by', 'reviewed_ms']);

  // Fills the list `ul` with `rows`; `onOpen(row)` when one is clicked.
  function list(ul, rows, current, onOpen) {
    ul.innerHTML = '';
    for (const r of rows) {
      const li = document.createElement('li');
      li.dataset.id = String(r.id);
      li.className = 'report-row status-' + r.status + (current === r.id ? ' open' : '');
      const top = document.createElement('div');
      const st = document.createElement('span'); st.className = 'badge'; st.textContent = r.status;
      const who = document.createElement('b'); who.textContent = ' ' + r.player_name;
      const why = document.createElement('span'); why.textContent = ' — ' + r.reason;
      top.append(st, who, why);
      const sub = document.createElement('div'); sub.className = 'dim';
      sub.textContent = `${localTime(r.created_ms)} · ${r.player}` +
        ` · by ${short(r.reporter)}` + (r.server ? ` · server ${short(r.server)}` : '') +
        (r.reviewed_by ? ` · ${r.status} by ${r.reviewed_by}` : '');
      li.append(top, sub);
      // any figure a report row carries beyond these (the catalog's analysis columns)
      const figs = Object.keys(r).filter((k) => !ROW_KEYS.has(k) && typeof r[k] === 'number')
        .map((k) => `${k.replace(/_/g, ' ')} ${fmt(r[k])}`);
      if (figs.length) { const f = document.createElement('div'); f.className = 'dim figs'; f.textContent = figs.join(' · '); li.appendChild(f); }
      li.title = r.recording ? 'open the recording at the report' : 'this report wrote no recording';
      li.onclick = () => onOpen(r);
      ul.appendChild(li);
    }
  }

  // Every number in `v` with its path (`a.b.0`), at most `max`.
  function figures(v, path, out, max) {
    if (out.length >= max) return out;
    if (typeof v === 'number') out.push([path, v]);
    else if (Array.isArray(v)) {
      // an array of numbers is one figure (its length), not one row per number
      if (v.every((x) => typeof x === 'number')) { if (v.length) out.push([path + ' (count)', v.length]); }
      else v.forEach((x, i) => figures(x, path ? path + '.' + i : String(i), out, max));
    } else if (v && typeof v === 'object') {
      for (const k of Object.keys(v)) figures(v[k], path ? path + '.' + k : k, out, max);
    }
    return out;
  }

  // What the report panel shows: the catalog row's fields (when opened from the inbox), the
  // report compound's known keys in words, then every other figure.
  function panel(table, rep, row, info, who) {
    table.innerHTML = '';
    const add = (k, v) => { const tr = table.insertRow(); tr.insertCell().textContent = k; tr.insertCell().textContent = v; };
    if (row) {
      add('player', `${row.player_name} (${row.player})`);
      add('reason', row.reason);
      add('reporter', row.reporter);
      if (row.server) add('server', row.server);
      add('reported', localTime(row.created_ms));
      add('status', row.status + (row.reviewed_by ? ` by ${row.reviewed_by}, ${localTime(row.reviewed_ms)}` : ''));
      for (const k of Object.keys(row)) if (!ROW_KEYS.has(k) && typeof row[k] === 'number') add(k.replace(/_/g, ' '), fmt(row[k]));
    }
    if (rep) {
      if (!row && rep.player !== undefined) add('player', who(rep.player));
      if (rep.report_tick !== undefined) add('report tick', String(rep.report_tick));
      if (!row && rep.created_ms !== undefined) add('reported', localTime(rep.created_ms));
      if (rep.context_radius !== undefined) add('radius', rep.context_radius + ' blocks');
      if (rep.context_entities) add('nearby', rep.context_entities.map(who).join(', ') || 'nobody');
    }
    const known = new Set(['player', 'report_tick', 'created_ms', 'context_radius', 'context_entities']);
    const rest = {};
    for (const k of Object.keys(rep || {})) if (!known.has(k)) rest[k] = rep[k];
    for (const [k, v] of figures(rest, '', [], 40)) add(k.replace(/_/g, ' '), fmt(v));
    if (info && info.analysis) for (const [k, v] of figures(info.analysis, 'analysis', [], 60)) add(k.replace(/_/g, ' '), fmt(v));
    if (info && info.metadata) {
      for (const [key, v] of Object.entries(info.metadata)) {
        if (/analysis/.test(key)) for (const [k, x] of figures(v, key, [], 60)) add(k.replace(/_/g, ' '), fmt(x));
      }
    }
  }
  const fmt = (v) => Number.isInteger(v) ? String(v) : v.toFixed(2);

  return { list, panel, figures, localTime };
})();
