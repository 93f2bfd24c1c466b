// The one EventSource of this tab. A page says which topics it needs; the stream is reopened
// only when that set changes. The browser reconnects by itself and sends Last-Event-ID; events
// already seen (by their SSE id) are dropped, so a replay never shows anything twice.

const EVENT_TYPES = [
  'session', 'batch', 'goal', 'progress', 'batch_state', 'workers', 'resync',
  'attempt_started', 'model_started', 'model_finished', 'text_delta', 'thinking_delta',
  'tool_started', 'tool_finished', 'retry', 'warning', 'error', 'rate_limited', 'agent_finished',
  'attempt_finished', 'verification_skipped', 'verifier_started', 'verdict', 'feedback',
  'budget_warning', 'status', 'best_of', 'message',
];

const STORAGE_KEY = 'ralph.stream';

export class Stream {
  constructor(onState) {
    this.source = null;
    this.topics = '';
    this.handler = null;
    this.onState = onState;
    this.seen = new Set();
    this.lastId = null;
    this.retryTimer = null;
    this.attempts = 0;
  }

  // `topics`: the topics of the page now shown; `handler(type, data, id)` gets every event.
  use(topics, handler) {
    this.handler = handler;
    const key = [...new Set(topics)].sort().join(',');
    if (key === this.topics && this.source) return;
    this.topics = key;
    this.open(true);
  }

  open(fresh) {
    this.close();
    if (!this.topics) {
      this.onState('idle');
      return;
    }
    const url = new URL('/api/v1/stream', location.origin);
    url.searchParams.set('topics', this.topics);
    // After a reload the tab resumes where it was on the same topics; the page fetched its
    // snapshot, and the ids it saw are remembered so nothing is shown twice.
    const saved = fresh ? this.restore() : null;
    if (saved) url.searchParams.set('last_event_id', saved);
    else if (!fresh && this.lastId) url.searchParams.set('last_event_id', this.lastId);
    this.onState('connecting');
    const source = new EventSource(url, {withCredentials: true});
    this.source = source;
    source.onopen = () => {
      this.attempts = 0;
      this.onState('live');
    };
    source.onerror = () => {
      if (this.source !== source) return;
      if (source.readyState === EventSource.CONNECTING) {
        this.onState('reconnecting');
      } else {
        // Closed for good (e.g. 503 too_many_streams or 401): back off and open again.
        this.onState('disconnected');
        source.close();
        this.source = null;
        const delay = Math.min(30000, 1000 * 2 ** this.attempts++);
        this.retryTimer = setTimeout(() => this.open(false), delay);
      }
    };
    for (const type of EVENT_TYPES) {
      source.addEventListener(type, (e) => this.dispatch(type, e));
    }
  }

  dispatch(type, e) {
    // resync carries no id of its own (EventSource repeats the last one): never a duplicate.
    if (type === 'resync') {
      this.seen.clear();
      this.handler?.(type, {}, '');
      return;
    }
    if (e.lastEventId) {
      if (this.seen.has(e.lastEventId)) return;
      this.seen.add(e.lastEventId);
      if (this.seen.size > 20000) this.seen = new Set([...this.seen].slice(-10000));
      this.lastId = e.lastEventId;
      this.save();
    }
    let data = {};
    try {
      data = e.data ? JSON.parse(e.data) : {};
    } catch {
      return;
    }
    this.handler?.(type, data, e.lastEventId);
  }

  save() {
    try {
      sessionStorage.setItem(STORAGE_KEY, JSON.stringify({topics: this.topics, id: this.lastId}));
    } catch { /* storage may be off; the stream still works */ }
  }

  restore() {
    try {
      const saved = JSON.parse(sessionStorage.getItem(STORAGE_KEY) || 'null');
      return saved && saved.topics === this.topics ? saved.id : null;
    } catch {
      return null;
    }
  }

  close() {
    clearTimeout(this.retryTimer);
    if (this.source) {
      this.source.close();
      this.source = null;
    }
  }
}
