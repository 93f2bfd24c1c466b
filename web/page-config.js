// The configuration the server's sessions start from, as the API gives it (secrets masked there).
import {get} from './api.js';
import {h, replace} from './dom.js';

export const name = 'config';

function flatten(value, prefix, out) {
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    for (const [k, v] of Object.entries(value)) flatten(v, prefix ? `${prefix}.${k}` : k, out);
  } else {
    out.push([prefix, value]);
  }
  return out;
}

export function mount(root, _params, {subscribe, app}) {
  const filter = h('input', {type: 'search', placeholder: 'filter keys', 'data-testid': 'config-filter'});
  const tbody = h('tbody', {'data-testid': 'config-body'});
  let rows = [];
  replace(root, h('div', {class: 'page-head'}, h('h1', {}, 'Configuration')),
    h('p', {class: 'sub'}, 'What sessions started here run with unless their goal says otherwise. Secrets are masked by the server.'),
    h('div', {class: 'filters'}, h('label', {class: 'grow'}, 'Key', filter)),
    h('div', {class: 'table-wrap'}, h('table', {class: 'data config', 'data-testid': 'config-table'},
      h('thead', {}, h('tr', {}, h('th', {}, 'Key'), h('th', {}, 'Value'))), tbody)));
  const show = () => {
    const q = filter.value.trim().toLowerCase();
    const out = [];
    let section = null;
    for (const [k, v] of rows.filter(([key]) => !q || key.toLowerCase().includes(q))) {
      const head = k.includes('.') ? k.slice(0, k.indexOf('.')) : '(top level)';
      if (head !== section) {
        section = head;
        out.push(h('tr', {class: 'section'}, h('th', {colspan: 2}, head)));
      }
      out.push(h('tr', {dataset: {key: k}}, h('td', {class: 'mono'}, k),
        h('td', {class: 'mono'}, v === null ? h('span', {class: 'sub'}, 'unset')
          : v === '' ? h('span', {class: 'sub'}, '""')
          : typeof v === 'string' ? v : JSON.stringify(v))));
    }
    replace(tbody, out);
  };
  filter.addEventListener('input', show);
  subscribe(['sessions']); // keeps the tab's stream (and its connection state) as other pages have it
  get('/api/v1/config').then((c) => {
    // Top-level keys first, then each section's keys together.
    rows = flatten(c.config ?? c, '', []).sort(([a], [b]) => (a.includes('.') - b.includes('.')) || a.localeCompare(b));
    show();
    root.dataset.loaded = 'true';
  }).catch((err) => app.toast(`Could not load the configuration: ${err.message}`, 'bad'));
  return {dispose() {}};
}
