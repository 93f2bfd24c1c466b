// One batch: its goals as a grid, spend against the budget, the verifiers that fail most, and the
// stop and re-run-failed actions. Live from the `batch:ID` topic.
import {get, post, idempotencyKey} from './api.js';
import {h, replace, fmtCost, fmtTokens, fmtInt, statusBadge, verifiedBadge, link, truncate} from './dom.js';
import {progress} from './page-batches.js';

export const name = 'batch';

export function mount(root, [id], {subscribe, app}) {
  const base = `/api/v1/batches/${encodeURIComponent(id)}`;
  let data = null, disposed = false, timer = null, failedOnly = false;
  const head = h('div');
  const body = h('div');
  replace(root, h('p', {class: 'crumbs'}, link('/batches', 'Batches'), ' / ', h('span', {class: 'mono'}, id)), head, body);
  root.dataset.batchId = id;

  async function load() {
    try {
      const answer = await get(base);
      if (disposed) return;
      data = answer.batch ?? answer;
      render();
    } catch (err) {
      if (err.status === 404) replace(head, h('section', {class: 'empty', 'data-testid': 'not-found'}, h('h1', {}, 'No such batch')));
      else app.toast(`Could not load the batch: ${err.message}`, 'bad');
    }
  }

  async function action(button, what) {
    const key = button.dataset.key || idempotencyKey();
    button.dataset.key = key;
    button.disabled = true;
    try {
      const answer = await post(`${base}/${what}`, {}, key);
      delete button.dataset.key;
      if (what === 'rerun-failed' && answer?.id) {
        app.toast(`Re-running the failed goals as ${answer.id}`, 'good');
        app.navigate(`/batches/${encodeURIComponent(answer.id)}`);
        return;
      }
      app.toast('Stopping the batch…', 'info');
      load();
    } catch (err) {
      delete button.dataset.key;
      button.disabled = false;
      app.toast(`${what}: ${err.message}`, 'bad');
    }
  }

  function render() {
    const b = data;
    root.dataset.state = b.state;
    const goals = b.goal_list ?? [];
    const notCompleted = goals.filter((g) => g.state === 'failed' || (g.state === 'done' && g.status !== 'completed')).length;
    const spendPct = b.cost_budget > 0 && b.cost_usd !== null ? Math.min(100, (100 * b.cost_usd) / b.cost_budget) : 0;
    replace(head, h('header', {class: 'card header', 'data-testid': 'batch-header'},
      h('div', {class: 'title-row'},
        h('h1', {}, 'Batch ', h('span', {class: 'mono'}, b.id)),
        h('div', {class: 'actions'},
          h('button', {class: 'danger', disabled: b.state !== 'running' || app.readOnly, dataset: {action: 'stop', testid: 'batch-stop'},
                       onclick: (e) => action(e.currentTarget, 'stop')}, 'Stop batch'),
          h('button', {class: 'secondary', disabled: b.state === 'running' || notCompleted === 0 || app.readOnly,
                       dataset: {action: 'rerun-failed', testid: 'batch-rerun-failed'},
                       onclick: (e) => action(e.currentTarget, 'rerun-failed')}, `Re-run failed (${notCompleted})`))),
      h('div', {class: 'meta'}, h('span', {'data-testid': 'batch-state', dataset: {state: b.state}}, statusBadge(b.state)),
        h('span', {class: 'sub'}, ` ${b.source} · ${fmtInt(b.goals)} goals · ${fmtInt(b.verified)} verified`)),
      progress(b),
      h('div', {class: 'budget', 'data-testid': 'batch-spend', dataset: {budget: 'cost_usd'}},
        h('div', {class: 'budget-label'}, h('span', {}, 'Spend'),
          h('span', {class: 'sub'}, `${fmtCost(b.cost_usd)} / ${b.cost_budget > 0 ? fmtCost(b.cost_budget) : 'no limit'} · ${fmtTokens(b.tokens)} tokens`)),
        h('div', {class: `bar tone-${b.cost_budget > 0 ? (spendPct >= 100 ? 'bad' : spendPct >= 80 ? 'warn' : 'good') : 'muted'}`},
          h('span', {style: {width: `${spendPct}%`}})))));

    const failing = b.failing_verifiers ?? [];
    const maxGoals = Math.max(1, ...failing.map((f) => f.goals));
    const shown = failedOnly ? goals.filter((g) => g.state === 'failed' || (g.state === 'done' && !g.verified)) : goals;
    replace(body,
      failing.length ? h('section', {class: 'card', 'data-testid': 'failing-verifiers'},
        h('h2', {}, 'Verifiers that fail most'),
        h('ul', {class: 'histogram'}, failing.map((f) => h('li', {dataset: {verifier: f.verifier, goals: f.goals}},
          h('span', {class: 'hist-label'}, f.verifier),
          h('span', {class: 'hist-bar'}, h('span', {style: {width: `${(100 * f.goals) / maxGoals}%`}})),
          h('span', {class: 'num'}, `${f.goals} goal${f.goals === 1 ? '' : 's'}`))))) : null,
      h('section', {class: 'card'},
        h('div', {class: 'title-row'}, h('h2', {}, 'Goals'),
          h('label', {class: 'check'}, h('input', {type: 'checkbox', checked: failedOnly, 'data-testid': 'failed-only',
            onchange: (e) => { failedOnly = e.target.checked; render(); }}), ' failed only')),
        h('div', {class: 'goal-grid', 'data-testid': 'goal-grid'}, shown.map(goalCard))));
  }

  subscribe([`batch:${id}`]);
  load();
  return {
    onEvent(type, d) {
      if (type === 'batch' && d.batch && typeof d.batch === 'object' && data) {
        data = {...data, ...d.batch};
        render();
      } else if (type === 'batch_state' && data && d.state) {
        data = {...data, state: d.state};
        render();
        clearTimeout(timer);
        timer = setTimeout(load, 300);
      } else if (type === 'progress' && data) {
        // About four a second while it runs: the counts come with the next whole fetch.
        if (!timer) timer = setTimeout(() => { timer = null; load(); }, 800);
      } else if (type === 'goal' && data) {
        const goal = d.goal ?? d;
        const list = data.goal_list ?? [];
        const i = list.findIndex((g) => g.id === goal.id);
        if (i >= 0) list[i] = {...list[i], ...goal}; else list.push(goal);
        data.goal_list = list;
        render();
        clearTimeout(timer);
        timer = setTimeout(() => { timer = null; load(); }, 800); // the failing-verifier counts come with the whole batch
      } else if (type === 'resync') load();
    },
    dispose() { disposed = true; clearTimeout(timer); },
  };
}

function goalCard(g) {
  const state = g.state === 'done' ? (g.status || 'done') : g.state;
  return h('div', {class: `goal-card state-${g.state}`, dataset: {goalId: g.id, state: g.state, status: g.status ?? '',
                                                                   verified: String(!!g.verified), testid: 'goal-card'}},
    h('div', {class: 'goal-card-head'}, h('span', {class: 'mono'}, g.id), statusBadge(state)),
    h('div', {class: 'goal-text', title: g.goal}, truncate(g.goal, 140)),
    h('div', {class: 'sub'}, g.verified ? verifiedBadge(true) : null,
      ` ${fmtInt(g.iterations ?? 0)} attempts · ${fmtTokens(g.tokens)} tokens · ${fmtCost(g.cost_usd)}`),
    (g.failing ?? []).length ? h('div', {class: 'sub failing'}, 'failing: ', g.failing.join(', ')) : null,
    g.session_id ? link(`/sessions/${encodeURIComponent(g.session_id)}`, 'open session →') : null);
}
