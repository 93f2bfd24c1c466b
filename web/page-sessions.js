// Sessions: the list with filters, updated in place from the `sessions` topic, and the form that
// starts a goal.
import {get, post, idempotencyKey} from './api.js';
import {h, replace, fmtCost, fmtTokens, fmtDuration, fmtAge, sessionState, statusBadge,
        verifiedBadge, link, truncate, shortId} from './dom.js';

export const name = 'sessions';

const STATUSES = ['active', 'stopped', 'completed', 'budget_exhausted', 'stalled', 'blocked',
                  'interrupted', 'failed'];
const KINDS = ['run', 'chat', 'goal', 'heartbeat', 'best_of'];

function filtersFromUrl() {
  const p = new URLSearchParams(location.search);
  return {status: p.get('status') ?? '', verified: p.get('verified') ?? '', kind: p.get('kind') ?? '',
          batch: p.get('batch') ?? '', q: p.get('q') ?? ''};
}

function matches(s, f) {
  if (f.status === 'stopped' && !(s.status === 'active' && !s.running)) return false;
  if (f.status && f.status !== 'stopped' && s.status !== f.status) return false;
  if (f.verified === 'true' && !s.verified) return false;
  if (f.kind && s.kind !== f.kind) return false;
  if (f.batch && s.batch !== f.batch) return false;
  if (f.q) {
    const q = f.q.toLowerCase();
    if (!s.goal?.toLowerCase().includes(q) && !s.id?.toLowerCase().includes(q)) return false;
  }
  return true;
}

export function row(s) {
  const state = sessionState(s);
  return h('tr', {class: 'session-row', dataset: {sessionId: s.id, status: state, verified: String(!!s.verified),
                                                   testid: 'session-row'}},
    h('td', {class: 'mono', title: s.id}, link(`/sessions/${encodeURIComponent(s.id)}`, shortId(s.id))),
    h('td', {class: 'goal', title: s.goal}, link(`/sessions/${encodeURIComponent(s.id)}`, truncate(s.goal, 90)),
      s.reason ? h('div', {class: 'sub'}, truncate(s.reason, 120)) : null,
      s.batch ? h('div', {class: 'sub', title: s.batch}, 'batch ', link(`/batches/${encodeURIComponent(s.batch)}`, shortId(s.batch))) : null),
    h('td', {}, statusBadge(state), ' ', s.verified ? verifiedBadge(true) : null),
    h('td', {class: 'num', dataset: {iterations: s.iterations}},
      `${s.iterations ?? 0}/${s.max_iterations ? s.max_iterations : '∞'}`),
    h('td', {class: 'num'}, fmtTokens((s.input_tokens ?? 0) + (s.output_tokens ?? 0))),
    h('td', {class: 'num'}, fmtCost(s.cost_usd)),
    h('td', {class: 'num'}, fmtDuration(s.elapsed_ms)),
    h('td', {class: 'sub nowrap', title: s.updated_at || s.created_at, dataset: {at: s.updated_at || s.created_at}},
      fmtAge(s.updated_at || s.created_at)),
    h('td', {class: 'sub nowrap', title: s.agent || s.model}, s.agent ? `${s.agent} (CLI)` : (s.model || '—').replace(/^[^/]+\//, '')));
}

export function mount(root, _params, {app, subscribe}) {
  const filters = filtersFromUrl();
  const tbody = h('tbody', {'data-testid': 'sessions-body'});
  const more = h('button', {class: 'secondary', hidden: true, 'data-testid': 'load-more'}, 'Load more');
  const empty = h('p', {class: 'empty', hidden: true, 'data-testid': 'sessions-empty'}, 'No sessions yet.');
  const error = h('p', {class: 'error', hidden: true});
  let cursor = null;
  let disposed = false;

  const field = (key, input) => {
    input.value = filters[key];
    input.addEventListener(input.tagName === 'INPUT' ? 'input' : 'change', () => {
      filters[key] = input.value.trim();
      const p = new URLSearchParams();
      for (const [k, v] of Object.entries(filters)) if (v) p.set(k, v);
      history.replaceState(null, '', p.toString() ? `/?${p}` : '/');
      clearTimeout(field.timer);
      field.timer = setTimeout(load, input.tagName === 'INPUT' ? 250 : 0);
    });
    return input;
  };

  const filterBar = h('form', {class: 'filters', 'data-testid': 'filters', onsubmit: (e) => e.preventDefault()},
    h('label', {}, 'Status', field('status', h('select', {name: 'status', 'data-testid': 'filter-status'},
      h('option', {value: ''}, 'any'), STATUSES.map((s) => h('option', {value: s}, s.replace(/_/g, ' ')))))),
    h('label', {}, 'Verified', field('verified', h('select', {name: 'verified', 'data-testid': 'filter-verified'},
      h('option', {value: ''}, 'any'), h('option', {value: 'true'}, 'verified only')))),
    h('label', {}, 'Kind', field('kind', h('select', {name: 'kind', 'data-testid': 'filter-kind'},
      h('option', {value: ''}, 'any'), KINDS.map((k) => h('option', {value: k}, k.replace(/_/g, '-')))))),
    h('label', {}, 'Batch', field('batch', h('input', {name: 'batch', placeholder: 'batch id', size: 14,
      'data-testid': 'filter-batch'}))),
    h('label', {class: 'grow'}, 'Search', field('q', h('input', {name: 'q', type: 'search',
      placeholder: 'text in the goal or id', 'data-testid': 'filter-q'}))));

  const startForm = buildStartForm(app);

  replace(root,
    h('div', {class: 'page-head'}, h('h1', {}, 'Sessions'),
      app.readOnly ? h('span', {class: 'badge tone-muted'}, 'read-only server') : null),
    app.readOnly ? null : startForm,
    filterBar, error,
    h('div', {class: 'table-wrap'},
      h('table', {class: 'data', 'data-testid': 'sessions-table'},
        h('thead', {}, h('tr', {}, ['Id', 'Goal', 'Status', 'Attempts', 'Tokens', 'Cost', 'Time',
                                    'Updated', 'Model'].map((t) => h('th', {}, t)))),
        tbody)),
    empty, more);

  async function load(append = false) {
    try {
      const body = await get('/api/v1/sessions', {...filters, limit: 50, cursor: append ? cursor : undefined});
      if (disposed) return;
      error.hidden = true;
      if (!append) replace(tbody);
      for (const s of body.sessions ?? []) tbody.appendChild(row(s));
      cursor = body.next_cursor ?? null;
      more.hidden = !cursor;
      empty.hidden = tbody.children.length > 0;
      root.dataset.loaded = 'true';
    } catch (err) {
      error.textContent = `Could not load the sessions: ${err.message}`;
      error.hidden = false;
    }
  }
  more.addEventListener('click', () => load(true));

  subscribe(['sessions']);
  load();
  // "2 min ago" stays true while the page is open.
  const ticker = setInterval(() => {
    for (const cell of tbody.querySelectorAll('td[data-at]')) cell.textContent = fmtAge(cell.dataset.at);
  }, 15000);

  return {
    onEvent(type, data) {
      if (type === 'resync') return load();
      if (type !== 'session' || !data.session) return;
      const s = data.session;
      const existing = tbody.querySelector(`tr[data-session-id="${CSS.escape(s.id)}"]`);
      if (!matches(s, filters)) {
        existing?.remove();
      } else if (existing) {
        existing.replaceWith(row(s));
      } else {
        tbody.insertBefore(row(s), tbody.firstChild);
      }
      empty.hidden = tbody.children.length > 0;
    },
    dispose() { disposed = true; clearInterval(ticker); },
  };
}

// The start-a-goal form: one goals-file line, as POST /api/v1/sessions takes it.
function buildStartForm(app) {
  const message = h('p', {class: 'form-message', 'data-testid': 'start-message'});
  let key = null; // one key per submission, kept while the same form is retried
  const form = h('form', {class: 'card start-form', 'data-testid': 'start-form'},
    h('details', {},
      h('summary', {}, h('strong', {}, 'Start a goal')),
      h('div', {class: 'form-grid'},
        h('label', {class: 'span2'}, 'Goal', h('textarea', {name: 'goal', rows: 2, required: true,
          placeholder: 'What should the agent achieve?', 'data-testid': 'start-goal'})),
        h('label', {class: 'span2'}, 'Verify command', h('input', {name: 'verify', placeholder: 'e.g. pytest -q',
          'data-testid': 'start-verify'})),
        h('label', {}, 'Max iterations', h('input', {name: 'max_iterations', type: 'number', min: 1, value: '',
          placeholder: 'default', 'data-testid': 'start-max-iterations'})),
        h('label', {}, 'Model', h('input', {name: 'model', placeholder: 'default (provider/model)',
          'data-testid': 'start-model'})),
        h('div', {class: 'span2 actions'},
          h('button', {type: 'submit', 'data-testid': 'start-submit'}, 'Start'), message))));
  form.addEventListener('input', () => { key = null; });
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const data = new FormData(form);
    const body = {goal: data.get('goal').trim()};
    if (data.get('verify').trim()) body.verify = data.get('verify').trim();
    if (data.get('max_iterations')) body.max_iterations = Number(data.get('max_iterations'));
    if (data.get('model').trim()) body.model = data.get('model').trim();
    for (const el of form.querySelectorAll('.invalid')) el.classList.remove('invalid');
    key ??= idempotencyKey();
    const button = form.querySelector('button[type=submit]');
    button.disabled = true;
    message.textContent = 'Starting…';
    message.dataset.state = 'pending';
    try {
      const answer = await post('/api/v1/sessions', body, key);
      message.textContent = '';
      message.dataset.state = 'started';
      form.reset();
      key = null;
      app.navigate(`/sessions/${encodeURIComponent(answer.id)}`);
    } catch (err) {
      message.textContent = err.message;
      message.dataset.state = 'error';
      if (err.field) form.querySelector(`[name="${CSS.escape(err.field)}"]`)?.classList.add('invalid');
    } finally {
      button.disabled = false;
    }
  });
  return form;
}
