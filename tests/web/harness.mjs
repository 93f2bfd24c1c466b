// What every browser test shares: the server under test (given by tests/e2e/serve_ui_test.cpp in
// WEB_TEST_* variables), Debian's chromium driven by playwright-core, and the scripted model's
// gates. A test waits on the page's data-* attributes, never on time.
import assert from 'node:assert/strict';
import http from 'node:http';
import {chromium} from 'playwright-core';

function required(name) {
  const value = process.env[name];
  assert.ok(value, `${name} is not set: run these tests through tests/e2e/serve_ui_test.cpp (ctest -R ServeUi)`);
  return value;
}

export const server = {
  base: required('WEB_TEST_BASE_URL'),            // http://127.0.0.1:PORT
  loginUrl: required('WEB_TEST_LOGIN_URL'),       // the one-time link `ralph serve` printed
  token: required('WEB_TEST_TOKEN'),              // the API token (.ralph/serve/token)
  model: required('WEB_TEST_MODEL_URL'),          // the fake provider server
  workspace: required('WEB_TEST_WORKSPACE'),      // the server's workspace
  screenshots: process.env.WEB_TEST_SCREENSHOTS ?? '',
};

export const TIMEOUT = 30000;

// Script errors of every page; each test ends by asserting there were none.
export const pageErrors = [];
function watch(page) {
  page.on('pageerror', (err) => pageErrors.push(`${page.url()}: ${err.message}`));
}

export async function launch() {
  return chromium.launch({executablePath: process.env.WEB_TEST_CHROMIUM || '/usr/bin/chromium', headless: true});
}

// A browser context signed in with the API token (the login route takes it and keeps it usable),
// and the EventSources each of its pages opens counted (`window.__streams`).
export async function signedIn(browser, options = {}) {
  const context = await browser.newContext({viewport: {width: 1280, height: 800}, colorScheme: 'light', ...options});
  await context.addInitScript(() => {
    const Native = window.EventSource;
    window.__streams = {opened: 0, open: 0, most: 0, urls: []};
    window.EventSource = class extends Native {
      constructor(url, init) {
        super(url, init);
        const s = window.__streams;
        s.opened++; s.open++; s.most = Math.max(s.most, s.open); s.urls.push(String(url));
      }
      close() {
        if (!this.__closed) { this.__closed = true; window.__streams.open--; }
        super.close();
      }
    };
  });
  const page = await context.newPage();
  page.setDefaultTimeout(TIMEOUT);
  watch(page);
  await page.goto(`${server.base}/login?code=${encodeURIComponent(server.token)}`);
  await page.waitForURL((url) => url.pathname === '/' && !url.search.includes('code'));
  return {context, page};
}

export async function newPage(context) {
  const page = await context.newPage();
  page.setDefaultTimeout(TIMEOUT);
  watch(page);
  return page;
}

// Lets the scripted model answer its call `call` for goals marked [model:MARKER:held]: the fake
// provider server records this request, which its responder waits for.
export async function release(marker, ...calls) {
  for (const call of calls) {
    const response = await fetch(`${server.model}/control/${marker}/${call}`);
    await response.arrayBuffer();
  }
}

let keys = 0;
// The API as a program uses it: bearer token, an Idempotency-Key on every POST.
export async function api(method, path, body) {
  const response = await fetch(`${server.base}${path}`, {
    method,
    headers: {Authorization: `Bearer ${server.token}`, 'Content-Type': 'application/json',
              ...(method === 'POST' ? {'Idempotency-Key': `web-test-${process.pid}-${++keys}`} : {})},
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  let json = null;
  try { json = JSON.parse(text); } catch { /* not JSON */ }
  return {status: response.status, json, text, headers: response.headers};
}

// A raw HTTP request whose Host and Origin headers the test chooses (fetch would not let it).
export function rawRequest(path, headers) {
  const url = new URL(server.base);
  return new Promise((resolve, reject) => {
    const req = http.request({host: url.hostname, port: url.port, path, method: 'GET', headers}, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c) => { body += c; });
      res.on('end', () => resolve({status: res.statusCode, headers: res.headers, body}));
    });
    req.on('error', reject);
    req.end();
  });
}

// The session page's data-status once it is one of `states`.
export async function sessionState(page, id, state) {
  await page.waitForSelector(`[data-page="session"][data-session-id="${id}"][data-status="${state}"]`);
}

// For a failed wait: what the API said at that moment, printed before the error goes on.
export function explain(path) {
  return async (err) => {
    const answer = await api('GET', path).catch((e) => ({text: String(e)}));
    console.log(`${path} when the wait failed:\n${answer.json ? JSON.stringify(answer.json, null, 1) : answer.text}`);
    throw err;
  };
}

// Opens a <details> (a click on its summary) unless it is open already.
export async function openDetails(page, selector) {
  const details = page.locator(selector);
  if (!(await details.evaluate((el) => el.open))) await details.locator(':scope > summary').click();
  await page.waitForSelector(`${selector}[open]`);
}
