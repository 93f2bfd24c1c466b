// Workers and the shared queue (a PostgreSQL store), live from the `workers` topic.
import {get} from './api.js';
import {h, replace, fmtDuration, fmtTime, link} from './dom.js';
import {batchRow} from './page-batches.js';

export const name = 'workers';

export function mount(root, _params, {subscribe, app}) {
  const body = h('div');
  let disposed = false;
  replace(root, h('div', {class: 'page-head'}, h('h1', {}, 'Workers and queue')), body);

  function render(w) {
    const workers = w.workers ?? [];
    const queue = w.queue ?? [];
    root.dataset.workers = String(workers.length);
    replace(body,
      h('section', {class: 'card', 'data-testid': 'workers'},
        h('h2', {}, `Workers (${workers.length})`),
        workers.length === 0
          ? h('p', {class: 'empty'}, 'No worker is running. Workers share a PostgreSQL store: ',
              h('code', {}, 'ralph worker'), ' on any machine takes goals from its queue.',
              app.store === 'sqlite' ? ' This server\'s store is SQLite, which has no shared queue.' : '')
          : h('div', {class: 'table-wrap'}, h('table', {class: 'data'},
              h('thead', {}, h('tr', {}, ['Worker', 'Heartbeat', 'Goals', 'Lease until'].map((t) => h('th', {}, t)))),
              h('tbody', {}, workers.map((x) => {
                const stale = x.heartbeat_age_ms > 30000;
                return h('tr', {dataset: {worker: x.name, stale: String(stale), testid: 'worker-row'}},
                  h('td', {class: 'mono'}, x.name),
                  h('td', {}, h('span', {class: `badge tone-${stale ? 'warn' : 'good'}`}, `${fmtDuration(x.heartbeat_age_ms)} ago`)),
                  h('td', {}, (x.goals ?? []).map((g) => h('div', {dataset: {goalId: g.id, batch: g.batch}},
                    link(`/batches/${encodeURIComponent(g.batch)}`, g.batch), ' / ', h('span', {class: 'mono'}, g.id)))),
                  h('td', {class: 'sub'}, (x.goals ?? []).map((g) => h('div', {}, fmtTime(g.lease_until)))));
              }))))),
      h('section', {class: 'card', 'data-testid': 'queue'},
        h('h2', {}, `Queue (${queue.length} batch${queue.length === 1 ? '' : 'es'})`),
        queue.length === 0 ? h('p', {class: 'empty'}, 'The queue is empty.')
          : h('div', {class: 'table-wrap'}, h('table', {class: 'data'},
              h('thead', {}, h('tr', {}, ['Id', 'State', 'Source', 'Progress', 'Verified', 'Tokens', 'Cost', 'Created'].map((t) => h('th', {}, t)))),
              h('tbody', {}, queue.map(batchRow))))));
    root.dataset.loaded = 'true';
  }

  async function load() {
    try {
      const w = await get('/api/v1/workers');
      if (!disposed) render(w);
    } catch (err) {
      if (disposed) return;
      // An older server has no workers view: say so instead of an empty page.
      replace(body, h('section', {class: 'card', 'data-testid': 'workers-unavailable'},
        h('p', {class: 'empty'}, err.status === 404 ? 'This server has no workers view (GET /api/v1/workers).'
          : `Could not load the workers: ${err.message}`)));
      root.dataset.loaded = 'true';
      root.dataset.available = 'false';
    }
  }
  subscribe(['workers']);
  load();
  return {
    onEvent(type, data) {
      if (type === 'workers') render(data.workers !== undefined && !Array.isArray(data) ? data : {workers: []});
      else if (type === 'resync') load();
    },
    dispose() { disposed = true; },
  };
}
