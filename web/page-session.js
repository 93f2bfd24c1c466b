// One session: header and actions, budgets, the verifier × attempt matrix, each attempt's steps,
// transcript, tool calls, verdicts, feedback and diff, best-of-N candidates, and its raw events.
// Long texts (tool results, verifier outputs, diffs, events) are fetched only when opened.
import {get, getText, post, idempotencyKey, ApiError} from './api.js';
import {h, replace, fmtCost, fmtTokens, fmtDuration, fmtBytes, fmtInt, sessionState, statusBadge,
        verifiedBadge, link, truncate, fmtTime} from './dom.js';
import {eventsPanel} from './events-panel.js';

export const name = 'session';

// Events after which the recorded snapshot has changed.
const REFETCH_ON = new Set(['session', 'status', 'attempt_started', 'attempt_finished', 'agent_finished',
  'tool_finished', 'verdict', 'feedback', 'budget_warning', 'verification_skipped', 'model_finished',
  'best_of', 'resync']);

export function mount(root, [id], {app, subscribe}) {
  const base = `/api/v1/sessions/${encodeURIComponent(id)}`;
  const state = {
    data: null,
    liveText: new Map(), // iteration -> text streamed since this page opened
    open: new Set(),     // keys of the <details> the user opened, kept across re-renders
    cache: new Map(),    // lazily fetched texts by URL
    verify: null,        // the answer of the last Re-verify
    disposed: false,
  };
  const head = h('div', {class: 'session-head'});
  const body = h('div', {class: 'session-body'});
  const events = eventsPanel(base, state);
  replace(root, h('p', {class: 'crumbs'}, link('/', 'Sessions'), ' / ', h('span', {class: 'mono'}, id)),
          head, body, events.el);
  root.dataset.sessionId = id;

  let timer = null, inFlight = false, again = false;
  async function load() {
    if (inFlight) { again = true; return; }
    inFlight = true;
    try {
      const data = await get(base);
      if (state.disposed) return;
      state.data = data;
      render();
    } catch (err) {
      if (state.disposed) return;
      if (err instanceof ApiError && err.status === 404) {
        replace(head, h('section', {class: 'empty', 'data-testid': 'not-found'}, h('h1', {}, 'No such session'),
                        h('p', {}, `There is no session ${id}.`)));
      } else {
        app.toast(`Could not load the session: ${err.message}`, 'bad');
      }
    } finally {
      inFlight = false;
      if (again) { again = false; schedule(); }
    }
  }
  function schedule() {
    clearTimeout(timer);
    timer = setTimeout(load, 300);
  }

  function render() {
    const {session: s} = state.data;
    // An attempt open on screen (the last one opens by itself) stays open when the next arrives.
    for (const el of body.querySelectorAll('details.attempt[open]')) state.open.add(`attempt:${el.dataset.iteration}`);
    root.dataset.status = sessionState(s);
    root.dataset.verified = String(!!s.verified);
    root.dataset.iterations = String(s.iterations ?? 0);
    replace(head, header(s, state, app, {load, base}));
    replace(body,
      failureSummary(state.data),
      budgets(state.data.budgets),
      state.verify ? verifyResult(state.verify) : null,
      matrix(state.data.attempts ?? [], state, base),
      candidates(state.data),
      timeline(state.data.attempts ?? [], s, state, base),
      wholeDiff(state, base));
  }

  subscribe([`session:${id}`]);
  load();
  events.load();

  return {
    onEvent(type, data, eventId) {
      if (data.session && typeof data.session === 'string' && data.session !== id) return;
      if (type === 'text_delta' && data.iteration) {
        const text = (state.liveText.get(data.iteration) ?? '') + (data.text ?? '');
        state.liveText.set(data.iteration, text);
        const el = body.querySelector(`[data-live-transcript="${data.iteration}"]`);
        if (el) { el.textContent = text; el.closest('.attempt')?.setAttribute('data-streaming', 'true'); }
      }
      if (type === 'resync') { events.reload(); return load(); }
      if (type !== 'session') events.live(type, data, eventId);
      if (REFETCH_ON.has(type)) schedule();
    },
    dispose() {
      state.disposed = true;
      clearTimeout(timer);
    },
  };
}

function header(s, state, app, {load, base}) {
  const status = sessionState(s);
  const act = (label, action, enabled, title) => h('button', {
    class: action === 'stop' ? 'danger' : 'secondary',
    disabled: !enabled || app.readOnly, title,
    dataset: {action, testid: `action-${action}`},
    onclick: (e) => runAction(e.currentTarget, action),
  }, label);

  async function runAction(button, action) {
    const key = button.dataset.key || idempotencyKey(); // a retried click reuses its key
    button.dataset.key = key;
    button.disabled = true;
    try {
      const answer = await post(`${base}/${action}`, {}, key);
      delete button.dataset.key;
      if (action === 'rerun' && answer?.id) {
        app.toast(`Re-run started: ${answer.id}`, 'good');
        app.navigate(`/sessions/${encodeURIComponent(answer.id)}`);
        return;
      }
      if (action === 'verify') {
        state.verify = answer;
        app.toast(answer.passed ? 'Re-verify: every verifier passed' : 'Re-verify: failing', answer.passed ? 'good' : 'bad');
      } else {
        app.toast(action === 'stop' ? 'Stopping…' : 'Resumed', 'info');
      }
      load();
    } catch (err) {
      delete button.dataset.key;
      app.toast(`${action}: ${err.message}`, 'bad');
      button.disabled = false;
    }
  }

  const stopped = s.status === 'active' && !s.running;
  return h('header', {class: 'card header', 'data-testid': 'session-header'},
    h('div', {class: 'title-row'},
      h('h1', {class: 'goal', 'data-testid': 'session-goal'}, s.goal),
      h('div', {class: 'actions', 'data-testid': 'session-actions'},
        act('Stop', 'stop', s.hosted && s.running, 'End this session (interrupted)'),
        act('Resume', 'resume', stopped, 'Go on with this stopped session'),
        act('Re-run', 'rerun', true, 'A new session with the same goal and configuration'),
        act('Re-verify', 'verify', true, 'Run the verifiers on the workspace as it is now'))),
    h('div', {class: 'meta'},
      h('span', {'data-testid': 'session-status', dataset: {status}}, statusBadge(status)), ' ',
      verifiedBadge(s.verified),
      s.reason ? h('span', {class: 'reason', 'data-testid': 'session-reason'}, s.reason) : null),
    s.notice ? h('p', {class: 'notice'}, s.notice) : null,
    h('dl', {class: 'facts'},
      fact('Id', h('span', {class: 'mono'}, s.id)),
      fact('Kind', s.kind),
      fact('Model', s.agent ? `${s.agent} (agent)` : s.model || '—'),
      fact('Workspace', h('span', {class: 'mono'}, s.workspace || '—')),
      s.batch ? fact('Batch', link(`/batches/${encodeURIComponent(s.batch)}`, s.batch)) : null,
      s.parent_id ? fact('Parent', link(`/sessions/${encodeURIComponent(s.parent_id)}`, s.parent_id)) : null,
      fact('Started', fmtTime(s.created_at))));
}

function fact(label, value) {
  return h('div', {}, h('dt', {}, label), h('dd', {}, value));
}

// The failure summary above the fold: what failed last and why, so nobody has to open logs.
function failureSummary(data) {
  const s = data.session;
  if (s.verified) return null;
  const last = [...(data.attempts ?? [])].reverse().find((a) => (a.verdicts ?? []).length > 0);
  if (!last) return null;
  const failing = last.verdicts.filter((v) => v.result !== 'pass');
  if (failing.length === 0) return null;
  return h('section', {class: 'card summary tone-bad-border', 'data-testid': 'failure-summary'},
    h('h2', {}, `Failing after attempt ${last.iteration}`),
    h('ul', {}, failing.map((v) => h('li', {dataset: {verdict: v.result}},
      h('strong', {}, v.verifier), ' — ', statusBadge(v.result), ' ',
      v.category ? h('span', {class: 'sub'}, v.category.replace(/_/g, ' ')) : null,
      v.tests ? h('span', {class: 'sub'}, ` · ${fmtInt(v.tests.failed)} failing of ${fmtInt(v.tests.total)}`) : null,
      v.feedback || v.reasoning ? h('div', {class: 'quote'}, truncate(v.feedback || v.reasoning, 400)) : null))));
}

function budgets(b) {
  if (!b) return null;
  const bar = (key, label, fmt) => {
    const item = b[key];
    if (!item) return null;
    const limited = item.limit > 0;
    const pct = limited ? Math.min(100, (100 * (item.used ?? 0)) / item.limit) : 0;
    const tone = !limited ? 'muted' : pct >= 100 ? 'bad' : pct >= 80 ? 'warn' : 'good';
    return h('div', {class: 'budget', dataset: {budget: key, used: item.used ?? '', limit: item.limit}},
      h('div', {class: 'budget-label'}, h('span', {}, label),
        h('span', {class: 'sub'}, `${fmt(item.used)} / ${limited ? fmt(item.limit) : 'no limit'}`)),
      h('div', {class: `bar tone-${tone}`, role: 'progressbar', 'aria-valuenow': Math.round(pct),
                'aria-valuemin': 0, 'aria-valuemax': 100, 'aria-label': label},
        h('span', {style: {width: limited ? `${pct}%` : '0'}})));
  };
  return h('section', {class: 'budgets', 'data-testid': 'budgets'},
    bar('attempts', 'Attempts', fmtInt), bar('tokens', 'Tokens', fmtTokens),
    bar('cost_usd', 'Cost', fmtCost), bar('time_ms', 'Time', fmtDuration));
}

function verifyResult(v) {
  return h('section', {class: `card summary ${v.passed ? 'tone-good-border' : 'tone-bad-border'}`,
                       'data-testid': 'verify-result', dataset: {passed: String(!!v.passed)}},
    h('h2', {}, `Re-verify: ${v.passed ? 'every verifier passed' : 'failing'} (the workspace now, not recorded)`),
    h('ul', {}, (v.verdicts ?? []).map((x) => h('li', {dataset: {verdict: x.result}},
      h('strong', {}, x.verifier), ' ', statusBadge(x.result), ' ', h('span', {class: 'sub'}, x.feedback ? truncate(x.feedback, 200) : '')))),
    v.feedback && !v.passed ? h('pre', {class: 'quote'}, truncate(v.feedback, 2000)) : null);
}

// Verifier × attempt. A red cell is red whatever the session's status says.
function matrix(attempts, state, base) {
  const names = [];
  for (const a of attempts) for (const v of a.verdicts ?? []) if (!names.includes(v.verifier)) names.push(v.verifier);
  if (names.length === 0) return null;
  const rows = names.map((name) => {
    const counts = attempts.map((a) => (a.verdicts ?? []).find((v) => v.verifier === name)?.tests?.failed)
      .filter((n) => n !== null && n !== undefined);
    const trend = counts.length >= 2 ? `failing ${counts[0]} → ${counts[counts.length - 1]}`
      : counts.length === 1 ? `failing ${counts[0]}` : '';
    return h('tr', {dataset: {verifier: name}},
      h('th', {scope: 'row'}, h('div', {}, name),
        trend ? h('div', {class: 'sub', 'data-testid': 'failing-trend'}, trend) : null),
      attempts.map((a) => {
        const v = (a.verdicts ?? []).find((x) => x.verifier === name);
        if (!v) {
          const why = a.skip_reason ? `skipped: ${a.skip_reason}` : a.finished ? 'not run' : 'pending';
          return h('td', {class: 'cell cell-none', dataset: {verdict: 'none', iteration: a.iteration}, title: why}, '·');
        }
        const outputUrl = `${base}/verdicts/${a.iteration}/${v.seq}/output`;
        const text = v.result === 'pass' ? '✓ pass' : v.result === 'fail' ? '✗ fail' : '! error';
        return h('td', {class: `cell cell-${v.result}`, dataset: {verdict: v.result, iteration: a.iteration},
                        title: [v.category, v.feedback].filter(Boolean).join(': ')},
          h('div', {}, text),
          v.tests ? h('div', {class: 'sub'}, `${fmtInt(v.tests.failed)} failing` +
                      (v.tests.total !== null && v.tests.total !== undefined ? ` / ${fmtInt(v.tests.total)}` : '')) : null,
          v.output_bytes ? lazyText(state, `out:${a.iteration}:${v.seq}`, 'output', outputUrl, v.output_head, v.output_bytes) : null);
      }));
  });
  return h('section', {class: 'card', 'data-testid': 'verdict-matrix'},
    h('h2', {}, 'Checks'),
    h('div', {class: 'table-wrap'}, h('table', {class: 'matrix'},
      h('thead', {}, h('tr', {}, h('th', {}, 'Verifier'), attempts.map((a) => h('th', {}, `Attempt ${a.iteration}`)))),
      h('tbody', {}, rows))));
}

// A <details> whose body is fetched the first time it opens; the head is shown until then.
function lazyText(state, key, label, url, head, bytes) {
  const pre = h('pre', {class: 'output'}, head ?? '');
  const note = h('div', {class: 'sub'});
  const details = h('details', {class: 'lazy', dataset: {lazy: key}, open: state.open.has(key)},
    h('summary', {}, `${label} (${fmtBytes(bytes)})`), note, pre);
  const fill = async () => {
    if (state.cache.has(url)) { pre.textContent = state.cache.get(url); details.dataset.loaded = 'true'; return; }
    note.textContent = 'loading…';
    try {
      const text = await getText(url);
      const shown = typeof text === 'string' ? text : JSON.stringify(text, null, 2);
      state.cache.set(url, shown);
      pre.textContent = shown;
      note.textContent = '';
      details.dataset.loaded = 'true';
    } catch (err) {
      note.textContent = `could not load: ${err.message}`;
    }
  };
  details.addEventListener('toggle', () => {
    if (details.open) { state.open.add(key); fill(); } else state.open.delete(key);
  });
  if (details.open) fill();
  return details;
}

function candidates(data) {
  const list = data.candidates ?? [];
  if (list.length === 0) return null;
  // Why the winner won is the best-of session's reason.
  const winner = list.find((c) => c.winner);
  const why = data.session?.reason;
  return h('section', {class: 'card', 'data-testid': 'candidates'},
    h('h2', {}, `Best of ${list.length}`),
    why ? h('p', {class: 'why', 'data-testid': 'ranking-why'},
      winner ? `Candidate ${winner.attempt} won: ${why}` : why) : null,
    h('div', {class: 'candidates'}, list.map((c) => h('div', {
      class: `candidate ${c.winner ? 'winner' : ''}`, dataset: {candidate: c.attempt, winner: String(!!c.winner)}},
      h('div', {class: 'candidate-head'}, h('strong', {}, `Candidate ${c.attempt}`),
        c.winner ? h('span', {class: 'badge tone-good'}, '★ winner') : null),
      h('div', {}, statusBadge(c.status), ' ', verifiedBadge(c.verified)),
      h('dl', {class: 'facts small'}, fact('Attempts', fmtInt(c.iterations)), fact('Cost', fmtCost(c.cost_usd)),
        fact('Tokens', fmtTokens(c.tokens))),
      c.answer ? h('div', {class: 'quote'}, truncate(c.answer, 300)) : null,
      c.session_id ? link(`/sessions/${encodeURIComponent(c.session_id)}`, 'open session') : null))));
}

function timeline(attempts, s, state, base) {
  if (attempts.length === 0) {
    return h('section', {class: 'card', 'data-testid': 'timeline'}, h('h2', {}, 'Attempts'),
      h('p', {class: 'empty'}, s.running ? 'The first attempt is starting…' : 'No attempt was recorded.'));
  }
  const last = attempts[attempts.length - 1].iteration;
  return h('section', {class: 'timeline', 'data-testid': 'timeline'},
    h('h2', {}, 'Attempts'),
    attempts.map((a) => attempt(a, a.iteration === last, state, base)));
}

function attemptOutcome(a) {
  if (!a.finished) return 'running';
  const verdicts = a.verdicts ?? [];
  // A red verdict makes the attempt red whatever else says otherwise; `verified` on an attempt
  // says its verifiers ran, not that they passed.
  if (verdicts.some((v) => v.result !== 'pass')) return 'fail';
  if (a.passed) return 'pass';
  if (verdicts.length === 0) return a.skip_reason ? 'skipped' : 'unverified';
  return 'fail';
}

function attempt(a, isLast, state, base) {
  const key = `attempt:${a.iteration}`;
  const outcome = attemptOutcome(a);
  const open = state.open.has(key) || (isLast && !state.open.has(`closed:${key}`));
  const usage = a.usage ?? {};
  const details = h('details', {class: `card attempt outcome-${outcome}`, open,
    dataset: {iteration: a.iteration, outcome, finished: String(!!a.finished), testid: 'attempt'}},
    h('summary', {},
      h('span', {class: 'attempt-title'}, `Attempt ${a.iteration}`), ' ',
      statusBadge(outcome === 'pass' ? 'pass' : outcome === 'fail' ? 'fail' : outcome === 'running' ? 'running' : outcome),
      h('span', {class: 'sub'}, ` · ${fmtInt(a.steps)} step${a.steps === 1 ? '' : 's'} · ${fmtDuration(a.duration_ms)} · ` +
        `${fmtTokens((usage.input_tokens ?? 0) + (usage.output_tokens ?? 0))} tokens` + (a.stop ? ` · ${a.stop}` : ''))),
    attemptBody(a, state, base));
  details.addEventListener('toggle', () => {
    if (details.open) { state.open.add(key); state.open.delete(`closed:${key}`); }
    else { state.open.delete(key); state.open.add(`closed:${key}`); }
  });
  return details;
}

function attemptBody(a, state, base) {
  const steps = [];
  for (const m of a.model_calls ?? []) steps.push({step: m.step, order: 0, at: m.at, model: m});
  for (const t of a.tool_calls ?? []) steps.push({step: t.seq, order: 1, at: t.at, tool: t});
  steps.sort((x, y) => (x.at && y.at ? x.at.localeCompare(y.at) : 0) || x.order - y.order);

  const live = state.liveText.get(a.iteration);
  const transcript = a.finished
    ? h('pre', {class: 'transcript', 'data-testid': 'transcript'}, a.answer || (a.finished ? '(no answer)' : ''))
    : h('pre', {class: 'transcript live', 'data-testid': 'transcript', 'data-live-transcript': a.iteration},
        live ?? '');
  return h('div', {class: 'attempt-body'},
    h('div', {class: 'cols'},
      h('div', {class: 'col'},
        h('h3', {}, a.finished ? 'Answer' : 'Transcript (live)'), transcript,
        (a.tool_calls ?? []).length ? h('h3', {}, `Tool calls (${a.tool_calls.length})`) : null,
        (a.tool_calls ?? []).map((t) => toolCall(a, t, state, base))),
      h('div', {class: 'col side'},
        h('h3', {}, 'Steps'),
        steps.length ? h('ol', {class: 'steps', 'data-testid': 'steps'}, steps.map((x) => x.model
          ? h('li', {class: 'step step-model', dataset: {step: x.step}},
              h('span', {class: 'step-kind'}, 'model'), ` ${x.model.model || ''} → ${x.model.stop_reason || '…'}`,
              x.model.usage ? h('span', {class: 'sub'}, ` ${fmtTokens(x.model.usage.input_tokens)} in / ${fmtTokens(x.model.usage.output_tokens)} out`) : null)
          : h('li', {class: `step step-tool ${x.tool.is_error ? 'is-error' : ''}`, dataset: {step: x.step}},
              h('span', {class: 'step-kind'}, 'tool'), ` ${x.tool.name}`,
              h('span', {class: 'sub'}, ` ${x.tool.exit_code !== null && x.tool.exit_code !== undefined ? `exit ${x.tool.exit_code} · ` : ''}${fmtDuration(x.tool.duration_ms)}`))))
          : h('p', {class: 'sub'}, 'no step recorded'),
        (a.verdicts ?? []).length ? h('h3', {}, 'Verdicts') : null,
        (a.verdicts ?? []).map((v) => h('div', {class: 'verdict', dataset: {verdict: v.result, verifier: v.verifier}},
          statusBadge(v.result), ' ', h('strong', {}, v.verifier),
          v.tests ? h('span', {class: 'sub'}, ` · ${fmtInt(v.tests.failed)} failing` +
            (v.tests.failed_before !== null && v.tests.failed_before !== undefined ? ` (was ${fmtInt(v.tests.failed_before)})` : '')) : null,
          v.duration_ms !== undefined ? h('span', {class: 'sub'}, ` · ${fmtDuration(v.duration_ms)}`) : null,
          v.feedback || v.reasoning ? h('div', {class: 'quote'}, truncate(v.feedback || v.reasoning, 600)) : null)),
        a.skip_reason ? h('p', {class: 'sub'}, `verification skipped: ${a.skip_reason}`) : null,
        a.feedback ? h('div', {class: 'feedback', 'data-testid': 'feedback'},
          h('h3', {}, `Feedback sent to attempt ${a.iteration + 1}`), h('pre', {class: 'quote'}, a.feedback)) : null,
        a.finished ? attemptDiff(a, state, base) : null)));
}

function toolCall(a, t, state, base) {
  const key = `tool:${a.iteration}:${t.seq}`;
  const url = `${base}/tool-calls/${a.iteration}/${t.seq}`;
  const args = typeof t.arguments === 'string' ? t.arguments : JSON.stringify(t.arguments ?? {}, null, 2);
  // The body (arguments, result) is made when first opened: a long session has many calls.
  const result = h('pre', {class: 'output'});
  const note = h('div', {class: 'sub'});
  const body = h('div', {class: 'tool-body'});
  const build = () => {
    if (body.firstChild) return;
    result.textContent = t.result_head ?? '';
    if (t.result_bytes > (t.result_head?.length ?? 0)) note.textContent = `loading the whole ${fmtBytes(t.result_bytes)}…`;
    replace(body, h('div', {class: 'label'}, 'arguments'), h('pre', {class: 'args'}, args),
      h('div', {class: 'label'}, 'result'), note, result);
  };
  const details = h('details', {class: `tool ${t.is_error ? 'is-error' : ''}`, open: state.open.has(key),
    dataset: {toolSeq: t.seq, tool: t.name, testid: 'tool-call'}},
    h('summary', {}, h('span', {class: 'mono'}, t.name), ' ',
      h('span', {class: 'sub'}, truncate(oneLine(args), 80)), ' ',
      t.is_error ? h('span', {class: 'badge tone-bad'}, 'error') : null,
      h('span', {class: 'sub right'}, `${t.exit_code !== null && t.exit_code !== undefined ? `exit ${t.exit_code} · ` : ''}${fmtDuration(t.duration_ms)} · ${fmtBytes(t.result_bytes)}`)),
    body);
  const fill = async () => {
    build();
    if (details.dataset.loaded) return;
    try {
      const full = state.cache.get(url) ?? await get(url);
      state.cache.set(url, full);
      result.textContent = full.result ?? '';
      note.textContent = '';
      details.dataset.loaded = 'true';
    } catch (err) {
      note.textContent = `could not load the whole result: ${err.message}`;
    }
  };
  details.addEventListener('toggle', () => {
    if (details.open) { state.open.add(key); fill(); } else state.open.delete(key);
  });
  if (details.open) fill();
  return details;
}

function oneLine(text) {
  return text.replace(/\s+/g, ' ').trim();
}

function attemptDiff(a, state, base) {
  // The changed files when the API lists them; the diff itself is fetched when opened.
  const files = a.diff?.files;
  return h('div', {class: 'diff-block', 'data-testid': 'attempt-diff'},
    h('h3', {}, 'Changes in this attempt'),
    files === undefined ? null
      : files.length ? h('ul', {class: 'files'}, files.map((f) => h('li', {class: 'mono'},
        h('span', {class: 'added'}, `+${f.added ?? '?'}`), ' ', h('span', {class: 'removed'}, `−${f.removed ?? '?'}`), ' ', f.path)))
      : h('p', {class: 'sub'}, 'no file changed'),
    diffView(state, `diff:${a.iteration}`, `${base}/diff?attempt=${a.iteration}`, 'diff'));
}

function wholeDiff(state, base) {
  return h('section', {class: 'card', 'data-testid': 'whole-diff'}, h('h2', {}, 'Changes against the start'),
    diffView(state, 'diff:all', `${base}/diff`, 'diff of every attempt'));
}

// A unified diff fetched when opened; "not available" when the server kept no snapshots (404).
function diffView(state, key, url, label) {
  const box = h('div', {class: 'diff'});
  const details = h('details', {class: 'lazy', open: state.open.has(key), dataset: {lazy: key}},
    h('summary', {}, label), box);
  const fill = async () => {
    if (details.dataset.loaded) return;
    box.textContent = 'loading…';
    try {
      const text = state.cache.get(url) ?? await getText(url);
      state.cache.set(url, text);
      replace(box, renderDiff(text));
      details.dataset.loaded = 'true';
      details.dataset.available = 'true';
    } catch (err) {
      if (err.status === 404) {
        replace(box, h('p', {class: 'sub', 'data-testid': 'diff-unavailable'}, 'Not available: the server kept no snapshot of this workspace (a session it did not run, or not a git repository).'));
        details.dataset.available = 'false';
        details.dataset.loaded = 'true';
      } else box.textContent = `could not load: ${err.message}`;
    }
  };
  details.addEventListener('toggle', () => {
    if (details.open) { state.open.add(key); fill(); } else state.open.delete(key);
  });
  if (details.open) fill();
  return details;
}

function renderDiff(text) {
  if (!text) return h('p', {class: 'sub'}, 'no change');
  const lines = text.split('\n');
  const limit = 4000; // past this, the download keeps the rest
  const pre = h('pre', {class: 'diff-text'});
  for (const line of lines.slice(0, limit)) {
    const cls = line.startsWith('+++') || line.startsWith('---') || line.startsWith('diff ') ? 'd-file'
      : line.startsWith('@@') ? 'd-hunk' : line.startsWith('+') ? 'd-add' : line.startsWith('-') ? 'd-del' : '';
    pre.appendChild(h('span', {class: cls}, line + '\n'));
  }
  return [pre, lines.length > limit ? h('p', {class: 'sub'}, `${lines.length - limit} more lines not shown`) : null];
}
