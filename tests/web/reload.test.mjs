// A reload in the middle of a run: the page resumes its stream from the last event it saw
// (last_event_id), ends in the session's final state, and lists no event twice.
import assert from 'node:assert/strict';
import {after, before, test} from 'node:test';
import {api, launch, pageErrors, release, server, sessionState, signedIn} from './harness.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

test('a reload mid-run resumes the stream and shows every event once', async () => {
  const started = await api('POST', '/api/v1/sessions',
                            {goal: 'Create the file the check wants [model:reload:held]', verify: 'test -f reload.txt', max_iterations: 3});
  assert.equal(started.status, 201, started.text);
  const id = started.json.id;

  const {page} = await signedIn(browser);
  await page.goto(`${server.base}/sessions/${encodeURIComponent(id)}`);
  await sessionState(page, id, 'running');
  await release('reload', 1);
  await page.waitForSelector('[data-testid="verdict-matrix"] td[data-iteration="1"][data-verdict="fail"]');
  await page.waitForSelector('[data-testid="events-list"] [data-type="verdict"]', {state: 'attached'});

  const streamUrls = [];
  page.on('request', (r) => { if (r.url().includes('/api/v1/stream')) streamUrls.push(r.url()); });
  await page.reload();
  await sessionState(page, id, 'running');
  assert.equal(streamUrls.length, 1, streamUrls.join('\n'));
  assert.match(streamUrls[0], /[?&]last_event_id=\d+/, 'the stream after the reload resumes from the last event seen');
  await page.waitForSelector('[data-testid="verdict-matrix"] td[data-iteration="1"][data-verdict="fail"]');

  await release('reload', 2, 3);
  await sessionState(page, id, 'completed');
  await page.waitForSelector('[data-testid="verdict-matrix"] td[data-iteration="2"][data-verdict="pass"]');
  // The events list catches up to the session's end: its last status event.
  await page.waitForSelector('[data-testid="events-list"] [data-type="status"]', {state: 'attached'});
  const rows = await page.$$eval('[data-testid="events-list"] [data-n]', (els) => els.map((e) => [e.dataset.n, e.dataset.type]));
  const ns = rows.map(([n]) => n);
  assert.equal(new Set(ns).size, ns.length, `an event listed twice: ${ns.join(',')}`);
  assert.equal(rows.filter(([, type]) => type === 'verdict').length, 2, JSON.stringify(rows));
  assert.equal(await page.locator('[data-testid="attempt"]').count(), 2);
  assert.deepEqual(pageErrors, []);
});
