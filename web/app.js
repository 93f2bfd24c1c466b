// The UI's entry: routes on the pathname, keeps the status bar, and gives each page the tab's one
// event stream.
import {get} from './api.js';
import {h, replace} from './dom.js';
import {Stream} from './stream.js';
import * as sessions from './page-sessions.js';
import * as session from './page-session.js';
import * as batches from './page-batches.js';
import * as batch from './page-batch.js';
import * as workers from './page-workers.js';
import * as config from './page-config.js';

const ROUTES = [
  [/^\/$/, sessions, 'sessions'],
  [/^\/sessions\/?$/, sessions, 'sessions'],
  [/^\/sessions\/([^/]+)\/?$/, session, 'sessions'],
  [/^\/batches\/?$/, batches, 'batches'],
  [/^\/batches\/([^/]+)\/?$/, batch, 'batches'],
  [/^\/workers\/?$/, workers, 'workers'],
  [/^\/config\/?$/, config, 'config'],
];

const root = document.getElementById('page');
const connection = document.querySelector('[data-testid="connection"]');
const toastEl = document.querySelector('[data-testid="toast"]');
const serverInfo = document.querySelector('[data-testid="server-info"]');

const CONNECTION_TEXT = {
  connecting: 'connecting…', live: 'live', reconnecting: 'reconnecting…',
  disconnected: 'disconnected, retrying', idle: 'idle',
};

function setConnection(state) {
  connection.dataset.state = state;
  connection.querySelector('.conn-text').textContent = CONNECTION_TEXT[state] ?? state;
}

const stream = new Stream(setConnection);
let current = null; // the page shown: {dispose, onEvent}
let toastTimer = null;

export const app = {
  readOnly: false,
  store: '',
  toast(message, tone = 'info') {
    toastEl.textContent = message;
    toastEl.dataset.tone = tone;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => { toastEl.textContent = ''; }, 6000);
  },
  navigate(path, {replaceState = false} = {}) {
    if (replaceState) history.replaceState(null, '', path);
    else history.pushState(null, '', path);
    route();
  },
};

async function route() {
  const path = location.pathname;
  let match = null, page = null, nav = '';
  for (const [re, mod, name] of ROUTES) {
    match = path.match(re);
    if (match) {
      page = mod;
      nav = name;
      break;
    }
  }
  current?.dispose?.();
  current = null;
  for (const a of document.querySelectorAll('[data-nav]')) {
    a.classList.toggle('active', a.dataset.nav === nav);
    if (a.dataset.nav === nav) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  window.scrollTo(0, 0);
  if (!page) {
    replace(root, h('section', {class: 'empty', 'data-testid': 'not-found'},
                    h('h1', {}, 'Not found'), h('p', {}, `No page at ${path}.`)));
    stream.use([], null);
    return;
  }
  const params = match.slice(1).map(decodeURIComponent);
  const container = h('div', {class: 'page', dataset: {page: page.name}});
  replace(root, container);
  const instance = page.mount(container, params, {
    app,
    // A page calls this whenever the topics it needs change.
    subscribe: (topics) => stream.use(topics, (type, data, id) => instance.onEvent?.(type, data, id)),
  });
  current = instance;
}

// Links with data-link go through the router.
document.addEventListener('click', (e) => {
  const a = e.target.closest('a[data-link]');
  if (!a || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey) return;
  const url = new URL(a.href, location.origin);
  if (url.origin !== location.origin) return;
  e.preventDefault();
  if (url.pathname + url.search !== location.pathname + location.search) app.navigate(url.pathname + url.search);
});
window.addEventListener('popstate', route);

async function loadServerInfo() {
  try {
    const v = await get('/api/v1/version');
    app.readOnly = !!v.read_only;
    app.store = v.store;
    document.body.dataset.readOnly = String(app.readOnly);
    serverInfo.textContent = `ralph ${v.version} · ${v.store}${v.read_only ? ' · read-only' : ''}`;
  } catch (err) {
    if (err.status === 401) {
      serverInfo.textContent = 'not signed in';
      document.body.dataset.auth = 'missing';
    }
  }
}

// Without the sign-in cookie every call is refused: say how to sign in instead of failing pages.
function signInPage() {
  setConnection('idle');
  replace(root, h('section', {class: 'card signin', 'data-testid': 'sign-in'},
    h('h1', {}, 'Sign in'),
    h('p', {}, 'Open the sign-in link ralph serve printed when it started (it works once), or ',
      h('code', {}, '/login?code=TOKEN'), ' with the API token from ', h('code', {}, '.ralph/serve/token'), '.')));
}

loadServerInfo().finally(() => {
  if (document.body.dataset.auth === 'missing') signInPage();
  else route();
});
