// The login link, the cookie, and the Host and Origin checks.
import assert from 'node:assert/strict';
import {after, before, test} from 'node:test';
import {launch, pageErrors, rawRequest, server} from './harness.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

test('the login link signs the browser in once and leaves no code in the address', async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  // Before: the page says how to sign in, and opens no stream.
  await page.goto(`${server.base}/`);
  await page.waitForSelector('[data-testid="sign-in"]');
  assert.equal(await page.getAttribute('[data-testid="connection"]', 'data-state'), 'idle');
  await page.goto(server.loginUrl);
  await page.waitForURL((url) => url.pathname === '/');
  assert.ok(!page.url().includes('code'), page.url());
  await page.waitForSelector('[data-page="sessions"][data-loaded="true"]');

  const cookie = (await context.cookies()).find((c) => c.name === 'ralph_session');
  assert.ok(cookie, 'the ralph_session cookie is set');
  assert.equal(cookie.httpOnly, true);
  assert.equal(cookie.sameSite, 'Strict');
  // The page's script cannot read it, and nothing it keeps holds the token.
  assert.equal(await page.evaluate(() => document.cookie.includes('ralph_session')), false);
  const kept = await page.evaluate(() => JSON.stringify({...localStorage}) + JSON.stringify({...sessionStorage}) +
                                         document.documentElement.outerHTML);
  assert.ok(!kept.includes(server.token), 'the token is nowhere in the page or its storage');
  const code = new URL(server.loginUrl).searchParams.get('code');
  assert.ok(!kept.includes(code), 'the login code is nowhere in the page or its storage');

  // The code is used up: a second use signs nobody in.
  const again = await fetch(server.loginUrl, {redirect: 'manual'});
  assert.ok(again.status >= 400, `second use answered ${again.status}`);
  assert.equal(again.headers.get('set-cookie'), null);

  // Without the cookie the API and the stream are closed.
  const fresh = await fetch(`${server.base}/api/v1/sessions`);
  assert.equal(fresh.status, 401);
  assert.equal((await fresh.json()).error.code, 'unauthorized');
  await context.close();
  assert.deepEqual(pageErrors, []);
});

test('a wrong Origin or Host is refused', async () => {
  const auth = {Authorization: `Bearer ${server.token}`};
  const port = new URL(server.base).port;
  const good = await rawRequest('/api/v1/version', {...auth});
  assert.equal(good.status, 200, good.body);

  const origin = await rawRequest('/api/v1/sessions', {...auth, Origin: 'http://evil.example'});
  assert.equal(origin.status, 403, origin.body);
  assert.equal(JSON.parse(origin.body).error.code, 'forbidden_origin');

  const host = await rawRequest('/api/v1/sessions', {...auth, Host: `evil.example:${port}`});
  assert.equal(host.status, 403, host.body);
  assert.equal(JSON.parse(host.body).error.code, 'forbidden_host');

  // The stream and the pages are checked the same way (DNS rebinding reaches them too).
  const stream = await rawRequest('/api/v1/stream?topics=sessions', {...auth, Host: `rebind.example:${port}`});
  assert.equal(stream.status, 403);
  const page = await rawRequest('/', {Host: `rebind.example:${port}`});
  assert.equal(page.status, 403);
});
