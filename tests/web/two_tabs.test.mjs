// Two tabs of one browser: each has one event stream, and both follow the same session live.
import assert from 'node:assert/strict';
import {after, before, test} from 'node:test';
import {api, launch, newPage, pageErrors, release, server, signedIn} from './harness.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

test('two tabs each keep one stream and both update in place', async () => {
  const {context, page: first} = await signedIn(browser);
  const second = await newPage(context);
  await second.goto(`${server.base}/`);
  for (const page of [first, second]) await page.waitForSelector('[data-page="sessions"][data-loaded="true"]');

  const started = await api('POST', '/api/v1/sessions',
                            {goal: 'Create the file the check wants [model:tabs:held]', verify: 'test -f tabs.txt', max_iterations: 3});
  assert.equal(started.status, 201, started.text);
  const id = started.json.id;
  const row = (state) => `[data-testid="sessions-body"] tr[data-session-id="${id}"][data-status="${state}"]`;
  // The new session shows up in both lists without a reload.
  for (const page of [first, second]) await page.waitForSelector(row('running'));

  // The second tab opens the session: its stream is reopened for the page's topics.
  await second.click(`tr[data-session-id="${id}"] td.goal a`);
  await second.waitForSelector(`[data-page="session"][data-session-id="${id}"][data-status="running"]`);

  await release('tabs', 1, 2, 3);
  await first.waitForSelector(row('completed'));
  await second.waitForSelector(`[data-page="session"][data-session-id="${id}"][data-status="completed"]`);
  // Updated in place: one row for the session.
  assert.equal(await first.locator(`tr[data-session-id="${id}"]`).count(), 1);

  const firstStreams = await first.evaluate(() => window.__streams);
  const secondStreams = await second.evaluate(() => window.__streams);
  assert.equal(firstStreams.opened, 1, JSON.stringify(firstStreams));
  assert.equal(firstStreams.open, 1);
  assert.equal(secondStreams.most, 1, JSON.stringify(secondStreams));
  assert.equal(secondStreams.open, 1);
  assert.equal(await first.getAttribute('[data-testid="connection"]', 'data-state'), 'live');
  assert.deepEqual(pageErrors, []);
});
