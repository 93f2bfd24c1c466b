// Batches: every batch this server knows, live from the `sessions` topic's changes.
import {get} from './api.js';
import {h, replace, fmtCost, fmtTokens, fmtAge, statusBadge, link} from './dom.js';

export const name = 'batches';

export function batchRow(b) {
  return h('tr', {dataset: {batchId: b.id, state: b.state, testid: 'batch-row'}},
    h('td', {class: 'mono'}, link(`/batches/${encodeURIComponent(b.id)}`, b.id)),
    h('td', {}, statusBadge(b.state)),
    h('td', {class: 'sub'}, b.source),
    h('td', {}, progress(b)),
    h('td', {class: 'num'}, `${b.verified ?? 0}/${b.goals ?? 0}`),
    h('td', {class: 'num'}, fmtTokens(b.tokens)),
    h('td', {class: 'num'}, `${fmtCost(b.cost_usd)}${b.cost_budget ? ` / ${fmtCost(b.cost_budget)}` : ''}`),
    h('td', {class: 'sub nowrap'}, fmtAge(b.created_at)));
}

// A stacked bar of done / failed / running / queued goals, with the counts in words.
export function progress(b) {
  const total = Math.max(1, b.goals ?? 0);
  const seg = (n, cls) => n ? h('span', {class: cls, style: {width: `${(100 * n) / total}%`}}) : null;
  const done = Math.max(0, (b.done ?? 0) - (b.failed ?? 0));
  return h('div', {class: 'progress-wrap'},
    h('div', {class: 'stack', title: `${b.done ?? 0} done, ${b.failed ?? 0} failed, ${b.running ?? 0} running, ${b.queued ?? 0} queued`},
      seg(done, 'seg-good'), seg(b.failed, 'seg-bad'), seg(b.running, 'seg-live'), seg(b.queued, 'seg-muted')),
    h('div', {class: 'sub'}, `${b.done ?? 0} done · ${b.failed ?? 0} failed · ${b.running ?? 0} running · ${b.queued ?? 0} queued`));
}

export function mount(root, _params, {subscribe, app}) {
  const tbody = h('tbody', {'data-testid': 'batches-body'});
  const empty = h('p', {class: 'empty', hidden: true}, 'No batch yet. `ralph batch` or POST /api/v1/batches starts one.');
  let disposed = false, timer = null;
  replace(root, h('div', {class: 'page-head'}, h('h1', {}, 'Batches')),
    h('div', {class: 'table-wrap'}, h('table', {class: 'data', 'data-testid': 'batches-table'},
      h('thead', {}, h('tr', {}, ['Id', 'State', 'Source', 'Progress', 'Verified', 'Tokens', 'Cost', 'Created']
        .map((t) => h('th', {}, t)))), tbody)), empty);
  async function load() {
    try {
      const body = await get('/api/v1/batches');
      if (disposed) return;
      replace(tbody, (body.batches ?? []).map(batchRow));
      empty.hidden = tbody.children.length > 0;
      root.dataset.loaded = 'true';
    } catch (err) {
      app.toast(`Could not load the batches: ${err.message}`, 'bad');
    }
  }
  subscribe(['sessions', 'batches']);
  load();
  return {
    onEvent(type, data) {
      // A batch starts or ends (batch_state), or one of its goals, a session, changed.
      if (type === 'resync' || type === 'batch_state' || (type === 'session' && data.session?.batch)) {
        clearTimeout(timer);
        timer = setTimeout(load, 500);
      }
    },
    dispose() { disposed = true; clearTimeout(timer); },
  };
}
