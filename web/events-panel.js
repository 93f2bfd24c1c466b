// A session's raw events, as its --events file has them: read from the store page by page (200 at
// a time, so a session of thousands of events stays fast), filtered by type, and followed live by
// asking for the lines after the last one shown whenever the stream says something happened.
// Every row is keyed by its line number `n`, so no event is ever listed twice.
import {get} from './api.js';
import {h, replace, truncate} from './dom.js';

const PAGE = 200;

function summary(e) {
  switch (e.type) {
    case 'text_delta': case 'thinking_delta': return JSON.stringify(e.text ?? '');
    case 'tool_started': return `${e.name ?? ''} ${truncate(typeof e.arguments === 'string' ? e.arguments : JSON.stringify(e.arguments ?? ''), 100)}`;
    case 'tool_finished': return `${e.name ?? ''}${e.is_error ? ' (error)' : ''} ${e.exit_code !== undefined ? `exit ${e.exit_code}` : ''}`;
    case 'verifier_started': return e.verifier ?? '';
    case 'verdict': return `${e.verifier ?? ''}: ${e.result ?? ''}${e.category ? ` (${e.category})` : ''}`;
    case 'status': return `${e.status ?? ''}${e.reason ? `: ${e.reason}` : ''}`;
    case 'budget_warning': return `${e.budget}: ${e.percent}% (${e.used} of ${e.limit})`;
    case 'feedback': case 'warning': return truncate(e.text ?? '', 140);
    case 'error': return truncate(e.message ?? '', 140);
    case 'model_finished': return `${e.model ?? ''} → ${e.stop_reason ?? ''}`;
    case 'attempt_finished': case 'agent_finished': return `${e.stop ?? ''} ${truncate(e.answer ?? '', 100)}`;
    default: return '';
  }
}

export function eventsPanel(base, pageState) {
  const list = h('ol', {class: 'events', 'data-testid': 'events-list'});
  const more = h('button', {class: 'secondary', hidden: true, 'data-testid': 'events-more'}, 'Load more');
  const note = h('p', {class: 'sub'});
  const typeFilter = h('select', {'data-testid': 'events-type'},
    h('option', {value: ''}, 'every type'),
    ['attempt_started', 'model_finished', 'tool_started', 'tool_finished', 'verdict', 'feedback',
     'budget_warning', 'status', 'warning', 'error', 'text_delta'].map((t) => h('option', {value: t}, t)));
  const hideDeltas = h('input', {type: 'checkbox', checked: true, 'data-testid': 'events-hide-deltas'});
  const state = {cursor: null, lastN: 0, shown: new Set(), loading: false, pending: false, timer: null, opened: false};

  const el = h('details', {class: 'card events-panel', 'data-testid': 'events-panel'},
    h('summary', {}, h('strong', {}, 'Raw events'), ' ',
      h('a', {href: `${base}/events.ndjson`, download: true, 'data-testid': 'events-download',
              onclick: (e) => e.stopPropagation()}, 'download NDJSON')),
    h('div', {class: 'filters'}, h('label', {}, 'Type', typeFilter),
      h('label', {class: 'check'}, hideDeltas, ' hide text deltas')),
    note, list, more);

  function rowFor(e) {
    const body = h('pre', {class: 'output', hidden: true}, JSON.stringify(e, null, 2));
    return h('li', {class: `event ev-${e.type}`, dataset: {n: e.n, type: e.type, testid: 'event'},
                    onclick: () => { body.hidden = !body.hidden; }},
      h('span', {class: 'n mono'}, e.n), h('span', {class: 'type'}, e.type),
      h('span', {class: 'sub'}, e.iteration ? `#${e.iteration}${e.step ? `.${e.step}` : ''}` : ''),
      h('span', {class: 'what'}, summary(e)), body);
  }

  function add(events) {
    for (const e of events) {
      if (e.n === undefined || state.shown.has(e.n)) continue;
      state.shown.add(e.n);
      state.lastN = Math.max(state.lastN, e.n);
      if (hideDeltas.checked && (e.type === 'text_delta' || e.type === 'thinking_delta')) continue;
      list.appendChild(rowFor(e));
    }
    list.dataset.count = String(list.children.length);
  }

  async function page(after) {
    return get(`${base}/events`, {after, limit: PAGE, type: typeFilter.value || undefined});
  }

  async function load() {
    state.shown.clear();
    state.lastN = 0;
    replace(list);
    try {
      const body = await page(0);
      add(body.events ?? []);
      state.cursor = body.next_cursor ?? null;
      more.hidden = !state.cursor;
      note.textContent = '';
      el.dataset.available = 'true';
    } catch (err) {
      el.dataset.available = 'false';
      note.textContent = err.status === 404 ? 'No events were kept for this session.' : `could not load: ${err.message}`;
    }
  }

  // The lines after the last one shown, while the whole history is loaded.
  async function newer() {
    if (state.cursor || state.loading) { state.pending = !state.cursor; return; }
    state.loading = true;
    try {
      let after = state.lastN;
      for (;;) {
        const body = await page(after);
        add(body.events ?? []);
        if (!body.next_cursor || !(body.events ?? []).length) break;
        after = state.lastN;
      }
      el.dataset.available = 'true';
      note.textContent = '';
    } catch { /* the next event asks again */ } finally {
      state.loading = false;
      if (state.pending) { state.pending = false; schedule(); }
    }
  }

  function schedule() {
    if (pageState.disposed) return;
    clearTimeout(state.timer);
    state.timer = setTimeout(newer, 400);
  }

  more.addEventListener('click', async () => {
    const body = await get(`${base}/events`, {after: state.lastN, limit: PAGE, type: typeFilter.value || undefined});
    add(body.events ?? []);
    state.cursor = body.next_cursor ?? null;
    more.hidden = !state.cursor;
  });
  typeFilter.addEventListener('change', load);
  hideDeltas.addEventListener('change', load);

  return {
    el,
    load,
    reload: load,
    live() { schedule(); },
  };
}
