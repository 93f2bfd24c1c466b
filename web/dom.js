// Small DOM and formatting helpers shared by every page. Text always goes in as text nodes
// (never innerHTML), so nothing the agent or a tool wrote can become markup.

// h('div', {class: 'x', dataset: {status: 'ok'}, onclick: f}, child, 'text', [more])
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'class') el.className = value;
    else if (key === 'dataset') {
      for (const [k, v] of Object.entries(value)) {
        if (v !== undefined && v !== null) el.dataset[k] = String(v);
      }
    } else if (key.startsWith('on') && typeof value === 'function') {
      el.addEventListener(key.slice(2), value);
    } else if (key === 'style' && typeof value === 'object') {
      Object.assign(el.style, value);
    } else if (value === true) el.setAttribute(key, '');
    else el.setAttribute(key, String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children) {
    if (child === undefined || child === null || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else if (child instanceof Node) el.appendChild(child);
    else el.appendChild(document.createTextNode(String(child)));
  }
}

export function clear(el) {
  while (el.firstChild) el.removeChild(el.firstChild);
  return el;
}

export function replace(el, ...children) {
  clear(el);
  append(el, children);
  return el;
}

const integer = new Intl.NumberFormat('en-US');

// An unknown number stays unknown: null and undefined show as an em dash, never as 0.
export function fmtInt(n) {
  return n === null || n === undefined ? '—' : integer.format(n);
}

export function fmtTokens(n) {
  if (n === null || n === undefined) return '—';
  if (n >= 1e6) return (n / 1e6).toFixed(n >= 1e7 ? 0 : 1) + 'M';
  if (n >= 1e4) return (n / 1e3).toFixed(0) + 'k';
  return integer.format(n);
}

export function fmtCost(usd) {
  if (usd === null || usd === undefined) return 'unknown';
  if (usd === 0) return '$0';
  if (usd < 0.01) return '$' + usd.toFixed(4);
  return '$' + usd.toFixed(2);
}

export function fmtDuration(ms) {
  if (ms === null || ms === undefined) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(s < 10 ? 1 : 0)} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${Math.round(s % 60)} s`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}

export function fmtBytes(n) {
  if (n === null || n === undefined) return '—';
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

export function fmtAge(iso) {
  if (!iso) return '—';
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return iso;
  const s = Math.max(0, (Date.now() - t) / 1000);
  if (s < 60) return `${Math.floor(s)} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
  return new Date(t).toISOString().slice(0, 10);
}

// The status a session shows: its recorded status, or "running"/"stopped" for an active one.
export function sessionState(s) {
  if (s.status === 'active') return s.running ? 'running' : 'stopped';
  return s.status;
}

const STATUS_TONE = {
  running: 'live', active: 'live', queued: 'muted', completed: 'good', done: 'good', pass: 'good',
  budget_exhausted: 'warn', stalled: 'warn', blocked: 'warn', interrupted: 'muted', stopped: 'muted',
  failed: 'bad', fail: 'bad', error: 'bad', finished: 'good',
};

// A status pill: colour and the status's name in words, so colour is never the only signal.
export function statusBadge(status, extra = {}) {
  const tone = STATUS_TONE[status] ?? 'muted';
  return h('span', {class: `badge tone-${tone}`, dataset: {status}, ...extra},
           String(status ?? 'unknown').replace(/_/g, ' '));
}

export function verifiedBadge(verified) {
  return verified
    ? h('span', {class: 'badge tone-good', dataset: {verified: 'true'}, title: 'every verifier passed'}, '✓ verified')
    : h('span', {class: 'badge tone-outline', dataset: {verified: 'false'}}, 'not verified');
}

// Session ids start with their date (20261128-065523-4e6920f7d34d): the tail tells them apart.
export function shortId(id) {
  if (!id) return '';
  const dated = id.match(/^\d{8}-\d{6}-([0-9a-f]+)$/);
  if (dated) return dated[1];
  return id.length > 24 ? `${id.slice(0, 8)}…${id.slice(-12)}` : id;
}

// A link the router handles without reloading the page.
export function link(href, ...children) {
  return h('a', {href, 'data-link': true}, ...children);
}

export function truncate(text, n) {
  if (!text) return '';
  return text.length > n ? text.slice(0, n - 1) + '…' : text;
}

// A recorded time as "2026-11-28 07:00:00 UTC" (the API's times are UTC).
export function fmtTime(iso) {
  if (!iso) return '—';
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return iso;
  return new Date(t).toISOString().slice(0, 19).replace('T', ' ') + ' UTC';
}
