// A goal started from the sessions page's form, watched live on its page: attempt 1 answers
// without making the file the verifier checks (fail), attempt 2 makes it (pass).
import assert from 'node:assert/strict';
import {after, before, test} from 'node:test';
import {explain, launch, openDetails, pageErrors, release, sessionState, signedIn} from './harness.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

test('a goal started from the UI is watched live through a failing then a passing verifier', async () => {
  const {page} = await signedIn(browser);
  const posts = [];
  page.on('request', (r) => {
    if (r.method() === 'POST') posts.push({url: r.url(), key: r.headers()['idempotency-key'], body: r.postDataJSON()});
  });
  await page.waitForSelector('[data-page="sessions"][data-loaded="true"]');
  await page.click('[data-testid="start-form"] summary');
  // A refused goal says why next to the form, and nothing starts.
  await page.fill('[data-testid="start-goal"]', 'Never started [model:refused]');
  await page.fill('[data-testid="start-model"]', 'no-such-provider/model');
  await page.click('[data-testid="start-submit"]');
  await page.waitForSelector('[data-testid="start-message"][data-state="error"]');
  assert.match(await page.innerText('[data-testid="start-message"]'), /no-such-provider/);
  await page.fill('[data-testid="start-model"]', '');
  assert.equal(new URL(page.url()).pathname, '/');
  await page.fill('[data-testid="start-goal"]', 'Create the file the check wants [model:live:held]');
  await page.fill('[data-testid="start-verify"]', 'test -f live.txt');
  await page.fill('[data-testid="start-max-iterations"]', '3');
  await page.click('[data-testid="start-submit"]');

  await page.waitForURL(/\/sessions\/[^/]+$/);
  const id = decodeURIComponent(new URL(page.url()).pathname.split('/')[2]);
  assert.equal(posts.length, 2); // the refused one, then this one
  assert.match(posts[1].url, /\/api\/v1\/sessions$/);
  assert.ok(posts[1].key, 'the POST carries an Idempotency-Key');
  assert.notEqual(posts[1].key, posts[0].key, 'another goal, another key');
  assert.deepEqual(posts[1].body, {goal: 'Create the file the check wants [model:live:held]', verify: 'test -f live.txt', max_iterations: 3});

  // Attempt 1 waits for the model: the page shows the session running, no verdict yet.
  await sessionState(page, id, 'running');
  assert.equal(await page.locator('[data-testid="verdict-matrix"]').count(), 0);
  await page.waitForSelector('[data-testid="session-goal"]:has-text("Create the file the check wants")');

  await release('live', 1); // "Done." without the file: the verifier fails
  await page.waitForSelector('[data-testid="verdict-matrix"] td[data-iteration="1"][data-verdict="fail"]');
  // Seen while it runs (attempt 2's model call is held), not after the end.
  assert.equal(await page.getAttribute('[data-page="session"]', 'data-status'), 'running');
  await page.waitForSelector('[data-testid="attempt"][data-iteration="1"] [data-testid="transcript"]:has-text("Done: I looked at the workspace")', {state: 'attached'});
  await page.waitForSelector('[data-testid="attempt"][data-iteration="1"][data-outcome="fail"]')
    .catch(explain(`/api/v1/sessions/${id}`));

  await release('live', 2, 3); // write live.txt, then answer
  await page.waitForSelector(`[data-page="session"][data-session-id="${id}"][data-status="completed"][data-verified="true"]`);
  await page.waitForSelector('[data-testid="verdict-matrix"] td[data-iteration="2"][data-verdict="pass"]');
  await page.waitForSelector('[data-testid="attempt"][data-iteration="2"][data-outcome="pass"]');
  assert.equal(await page.locator('[data-testid="attempt"]').count(), 2);
  assert.equal(await page.locator('[data-testid="session-status"]').getAttribute('data-status'), 'completed');
  assert.equal(await page.locator('[data-testid="budgets"] [data-budget="attempts"]').getAttribute('data-used'), '2');

  // Attempt 1's feedback (what attempt 2 was told) and its tool-free transcript.
  await openDetails(page, '[data-testid="attempt"][data-iteration="1"]');
  const feedback = page.locator('[data-testid="attempt"][data-iteration="1"] [data-testid="feedback"]');
  await feedback.waitFor();
  assert.match(await feedback.innerText(), /live\.txt/);

  // Attempt 2's tool call, its whole result fetched when opened.
  const tool = page.locator('[data-testid="attempt"][data-iteration="2"] [data-testid="tool-call"]').first();
  await tool.locator('summary').click();
  await page.waitForSelector('[data-testid="attempt"][data-iteration="2"] [data-testid="tool-call"][data-loaded="true"]');

  // The diff of attempt 2 (it made live.txt) and of the whole session, fetched when opened.
  const attempt2 = '[data-testid="attempt"][data-iteration="2"] [data-testid="attempt-diff"] details';
  await openDetails(page, attempt2);
  await page.waitForSelector(`${attempt2}[data-loaded="true"]`);
  assert.equal(await page.getAttribute(attempt2, 'data-available'), 'true');
  assert.match(await page.locator(attempt2).innerText(), /\+\+\+ b\/live\.txt[\s\S]*\+done/);
  const whole = '[data-testid="whole-diff"] details';
  await openDetails(page, whole);
  await page.waitForSelector(`${whole}[data-loaded="true"]`);
  assert.match(await page.locator(whole).innerText(), /live\.txt/);

  // Re-verify: the verifiers on the workspace now (live.txt is there), the answer shown.
  await page.click('[data-testid="action-verify"]');
  await page.waitForSelector('[data-testid="verify-result"][data-passed="true"]');

  // Re-run: a new session of the same goal, whose page opens; Stop ends it interrupted.
  await page.click('[data-testid="action-rerun"]');
  await page.waitForURL((url) => url.pathname.startsWith('/sessions/') && !url.pathname.endsWith(encodeURIComponent(id)));
  const rerun = decodeURIComponent(new URL(page.url()).pathname.split('/')[2]);
  await sessionState(page, rerun, 'running');
  await page.waitForSelector('[data-testid="session-goal"]:has-text("Create the file the check wants")');
  await page.click('[data-testid="action-stop"]');
  await sessionState(page, rerun, 'interrupted');
  for (const action of ['verify', 'rerun', 'stop']) {
    const sent = posts.find((p) => p.url.endsWith(`/${action}`));
    assert.ok(sent?.key, `${action} carries an Idempotency-Key`);
  }

  // One stream at a time in this tab: the sessions page's, then the session page's.
  const streams = await page.evaluate(() => window.__streams);
  assert.equal(streams.most, 1, JSON.stringify(streams));
  assert.equal(new URL(streams.urls.at(-1), 'http://x').searchParams.get("topics"), `session:${rerun}`);
  assert.deepEqual(pageErrors, []);
});
