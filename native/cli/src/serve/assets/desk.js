// tickreel review desk (/desk): a reviewer's queue and vote; for moderators every report with
// its votes, verdict and known outcome (a calibration case), a decision, and reviewers' scores;
// for admins the retention by verdict, listed (dry run) and applied. The API: /api/desk.
'use strict';
window.tickreelDesk = (() => {
  const $ = (id) => document.getElementById(id);
  let last = null;
  let current = null;

  function fail(e) { const el = $('error'); el.hidden = false; el.textContent = String(e); }

  async function call(path, body) {
    const r = await fetch(path, body === undefined ? {} : {
      method: 'POST', headers: {'content-type': 'application/json'}, body: JSON.stringify(body),
    });
    const v = await r.json().catch(() => ({}));
    if (!r.ok) throw new Error(v.error || `${path}: ${r.status}`);
    return v;
  }

  const pct = (x) => x === null || x === undefined ? '–' : `${Math.round(x * 100)} %`;
  const cell = (tr, text) => { const td = tr.insertCell(); td.textContent = text; return td; };

  function queue(d) {
    const ul = $('queue'); ul.innerHTML = '';
    $('queue-count').textContent = `(${d.queue.length})`;
    for (const q of d.queue) {
      const li = document.createElement('li');
      li.dataset.id = String(q.id);
      li.className = 'report-row';
      li.textContent = `#${q.id} — ${q.reason}`;
      li.onclick = () => pick(q);
      ul.appendChild(li);
    }
    if (current && !d.queue.some((q) => q.id === current.id)) { current = null; $('vote-form').hidden = true; }
  }

  function pick(q) {
    current = q;
    $('vote-form').hidden = false;
    $('vote-id').textContent = `#${q.id}`;
    const a = $('vote-watch');
    if (q.recording) { a.hidden = false; a.href = `/?rec=${encodeURIComponent(q.recording)}`; } else a.hidden = true;
    $('vote-note').value = ''; $('vote-ticks').value = '';
  }

  function reports(d) {
    const body = $('desk-reports').tBodies[0]; body.innerHTML = '';
    for (const r of d.reports) {
      const tr = body.insertRow(); tr.dataset.id = String(r.id);
      cell(tr, `#${r.id}`); cell(tr, r.player_name); cell(tr, r.reason);
      cell(tr, r.votes.map((v) => `${v.reviewer}: ${v.verdict}${v.counted ? '' : ' (not counted)'}` +
        (v.note ? ` “${v.note}”` : '') + (v.ticks.length ? ` @${v.ticks.join(',')}` : '')).join('; '));
      cell(tr, r.verdict ? `${r.verdict} by ${r.verdict_by}` : '').className = 'verdict';
      const k = cell(tr, ''); k.className = 'known';
      const ks = select(['', 'cheating', 'not_cheating', 'unsure'], r.known || '');
      ks.title = 'known outcome (a calibration case)';
      ks.onchange = () => act(call('/api/desk/known', {id: r.id, verdict: ks.value || null}));
      k.appendChild(ks);
      const dc = cell(tr, '');
      for (const v of ['cheating', 'not_cheating', 'unsure']) {
        const b = document.createElement('button'); b.type = 'button'; b.textContent = v.replace('_', ' ');
        b.dataset.verdict = v;
        b.onclick = () => act(call('/api/desk/verdict', {id: r.id, verdict: v}));
        dc.appendChild(b);
      }
    }
    const sb = $('scores').tBodies[0]; sb.innerHTML = '';
    for (const s of d.scores) {
      const tr = sb.insertRow(); tr.dataset.reviewer = s.reviewer;
      cell(tr, s.reviewer);
      cell(tr, `${pct(s.known_agreement)} of ${s.known}`).className = 'known-agreement';
      cell(tr, `${pct(s.consensus_agreement)} of ${s.consensus}`);
      cell(tr, String(s.pending));
      cell(tr, s.counts ? 'yes' : 'no').className = 'counts';
    }
    const u = d.rule;
    $('rule').textContent = `${u.rule} of ${u.reviewers}; counts at ${pct(u.min_agreement)} after ${u.min_known} known`;
  }

  function select(values, chosen) {
    const s = document.createElement('select');
    for (const v of values) { const o = document.createElement('option'); o.value = v; o.textContent = v || '—'; s.appendChild(o); }
    s.value = chosen; return s;
  }

  function retentionFields(d) {
    for (const v of ['cheating', 'not_cheating', 'unsure']) {
      const el = $('keep-' + v);
      if (document.activeElement !== el && v in d.retention) el.value = d.retention[v] === null ? 'keep' : String(d.retention[v]);
    }
  }

  async function retention(apply) {
    const policies = {};
    for (const v of ['cheating', 'not_cheating', 'unsure']) {
      const t = $('keep-' + v).value.trim();
      if (t === '') continue;
      policies[v] = t === 'keep' ? null : Number(t);
    }
    const r = await call('/api/desk/retention', {policies, apply});
    const ul = $('retention-list'); ul.innerHTML = '';
    const verb = r.dry_run ? 'would delete' : 'deleted';
    for (const p of r.recordings) {
      const li = document.createElement('li'); li.className = 'recording';
      li.textContent = `${verb} ${p.location} (${p.size_bytes} bytes, ${p.reports} reports)`;
      ul.appendChild(li);
    }
    for (const id of r.reports_alone) {
      const li = document.createElement('li'); li.className = 'report-alone';
      li.textContent = `${verb} report #${id} (its recording is still pointed at: kept)`;
      ul.appendChild(li);
    }
    if (!ul.children.length) ul.textContent = 'nothing to delete';
    // the page's state says the result once the desk shows what is left after it
    if (apply) await load();
    last.retention_result = r;
    return r;
  }

  async function act(p) {
    try { await p; await load(); } catch (e) { fail(e); }
  }

  async function load() {
    const d = await call('/api/desk');
    const keep = last && last.retention_result;
    last = d; if (keep) last.retention_result = keep;
    $('who').textContent = `${d.name} (${d.role})`;
    queue(d);
    $('mod-section').hidden = !d.reports;
    if (d.reports) reports(d);
    $('admin-section').hidden = !d.retention;
    if (d.retention) retentionFields(d);
    return d;
  }

  document.addEventListener('DOMContentLoaded', () => {
    $('vote-form').onsubmit = (e) => {
      e.preventDefault();
      if (!current) return;
      const ticks = $('vote-ticks').value.split(/[\s,]+/).filter(Boolean).map(Number);
      const note = $('vote-note').value.trim();
      act(call('/api/desk/vote', {id: current.id, verdict: $('vote-verdict').value,
        note: note || null, ticks}).then((r) => { $('vote-info').textContent = `voted ${r.voted} on #${r.id}`; }));
    };
    $('retention-dry').onclick = () => retention(false).catch(fail);
    $('retention-apply').onclick = () => retention(true).catch(fail);
    load().catch(fail);
  });

  return { load, state: () => last, retention };
})();
