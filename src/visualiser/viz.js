// The visualiser's browser side: highlights a trade's state on the server-drawn chart, steps through its
// event history (GET /v1/trades/{id}/events) and follows live trades over the runtime's SSE stream.
(() => {
  const config = JSON.parse(document.getElementById('viz-config').textContent);
  const params = new URLSearchParams(location.search);
  const token = params.get('access_token') || '';
  const $ = (id) => document.getElementById(id);
  const chart = $('chart');
  const stepMs = Number(params.get('step_ms')) || config.stepMs;

  /** The followed trade: its events in seq order and the step shown. */
  const view = { tradeId: '', events: [], position: -1, player: null };
  /** Latest event per trade seen on the stream, for the live list. */
  const feed = new Map();
  let stream = null;
  let streamSeq = 0;

  const api = async (path) => {
    const res = await fetch(path, { headers: token ? { authorization: `Bearer ${token}` } : {} });
    const body = await res.json();
    if (!res.ok) throw new Error(body?.error?.message || `HTTP ${res.status}`);
    return body;
  };

  // ── Chart ───────────────────────────────────────────────────────────────────────────────────────

  /** The chart's state path of an event's substate: `initiated.makerLocked` → `initiated.redeeming.makerLocked`. */
  const pathOf = (substate) => config.paths[substate] ?? substate;

  /** Marks the state at `path` and its ancestors active: `initiated.redeeming.makerLocked` lights all three. */
  function setActive(path) {
    for (const node of chart.querySelectorAll('[data-state-active]'))
      node.removeAttribute('data-state-active');
    if (!path) return;
    const parts = path.split('.');
    for (let i = 1; i <= parts.length; i++) {
      const node = chart.querySelector(`g.state[data-state="${CSS.escape(parts.slice(0, i).join('.'))}"]`);
      if (node) node.setAttribute('data-state-active', 'true');
    }
  }

  const within = (ancestor, path) => ancestor === '' || path === ancestor || path.startsWith(`${ancestor}.`);

  /** The transition an event took from `from` to `to`, as the chart labels it (null when none matches). */
  function transitionOf(from, type, to) {
    const candidates = config.transitions
      .map((t, index) => ({ ...t, index }))
      .filter((t) => t.event === type && within(t.source, from));
    const reaching = candidates.find((t) => t.targets.some((target) => within(target, to)));
    return (reaching || candidates[0] || null)?.index ?? null;
  }

  function setTransition(index) {
    for (const node of chart.querySelectorAll('[data-transition-active]')) {
      node.removeAttribute('data-transition-active');
    }
    if (index === null) return;
    for (const node of chart.querySelectorAll(`[data-transition="${index}"]`)) {
      node.setAttribute('data-transition-active', 'true');
    }
    for (const node of chart.querySelectorAll('.edge[data-transitions]')) {
      if (node.dataset.transitions.split(' ').includes(String(index))) {
        node.setAttribute('data-transition-active', 'true');
      }
    }
  }

  // ── The followed trade and its history ─────────────────────────────────────────────────────────

  function show(position) {
    if (view.events.length === 0) return;
    view.position = Math.max(0, Math.min(position, view.events.length - 1));
    const event = view.events[view.position];
    const before = view.events[view.position - 1];
    setActive(pathOf(event.substate));
    setTransition(before ? transitionOf(pathOf(before.substate), event.type, pathOf(event.substate)) : null);
    $('summary-status').textContent = event.settlement_status;
    $('summary-substate').textContent = event.substate;
    $('summary-step').textContent = `${view.position + 1} / ${view.events.length} · ${event.type}`;
    chart.dataset.step = String(view.position);
    for (const li of $('history').children) {
      if (Number(li.dataset.index) === view.position) li.setAttribute('aria-current', 'step');
      else li.removeAttribute('aria-current');
    }
  }

  function renderHistory() {
    const list = $('history');
    list.replaceChildren(
      ...view.events.map((event, index) => {
        const li = document.createElement('li');
        li.dataset.index = String(index);
        li.dataset.seq = String(event.seq);
        li.textContent = `${event.type} → ${event.substate}`;
        li.title = `seq ${event.seq} at ${event.at}`;
        li.addEventListener('click', () => {
          stop();
          show(index);
        });
        return li;
      }),
    );
  }

  async function follow(tradeId) {
    stop();
    view.tradeId = tradeId;
    view.events = [];
    view.position = -1;
    $('trade-id').value = tradeId;
    const url = new URL(location.href);
    url.searchParams.set('trade_id', tradeId);
    history.replaceState(null, '', url);
    $('status').textContent = `Loading ${tradeId}…`;
    try {
      const [trade, { events }] = await Promise.all([
        api(`/v1/trades/${encodeURIComponent(tradeId)}`),
        api(`/v1/trades/${encodeURIComponent(tradeId)}/events`),
      ]);
      if (view.tradeId !== tradeId) return;
      // Live events that arrived while loading are merged by seq.
      const seen = new Set(events.map((e) => e.seq));
      view.events = [...events, ...view.events.filter((e) => !seen.has(e.seq))].sort((a, b) => a.seq - b.seq);
      $('status').textContent = `${trade.settlement_status} · created ${trade.created_at}`;
      $('summary').hidden = false;
      renderHistory();
      show(view.events.length - 1);
      // Resume the stream from this trade's last event at the latest, so no event of it is missed.
      const last = view.events.at(-1)?.seq ?? 0;
      connect(streamSeq > 0 ? Math.min(streamSeq, last) : last);
    } catch (error) {
      $('status').textContent = `Could not load ${tradeId}: ${error.message}`;
      setActive('');
    }
  }

  function onTradeEvent(event) {
    feed.set(event.trade_id, event);
    renderFeed();
    if (
      event.type === 'SETTLEMENT_STARTED' &&
      $('follow-newest').checked &&
      event.trade_id !== view.tradeId
    ) {
      void follow(event.trade_id);
      return;
    }
    if (event.trade_id !== view.tradeId || view.events.some((e) => e.seq === event.seq)) return;
    const atEnd = view.position === view.events.length - 1;
    view.events.push(event);
    view.events.sort((a, b) => a.seq - b.seq);
    renderHistory();
    // Follow live only when showing the latest step; a replay in progress is left alone.
    if (atEnd && view.player === null) show(view.events.length - 1);
    else show(view.position);
  }

  function renderFeed() {
    const items = [...feed.values()].sort((a, b) => b.seq - a.seq).slice(0, 30);
    $('trades').replaceChildren(
      ...items.map((event) => {
        const li = document.createElement('li');
        const button = document.createElement('button');
        button.type = 'button';
        button.dataset.tradeId = event.trade_id;
        button.textContent = `${event.trade_id.slice(0, 8)} ${event.substate}`;
        button.addEventListener('click', () => {
          $('follow-newest').checked = false;
          void follow(event.trade_id);
        });
        li.append(button);
        return li;
      }),
    );
  }

  // ── Playback ───────────────────────────────────────────────────────────────────────────────────

  function stop() {
    if (view.player !== null) clearInterval(view.player);
    view.player = null;
    $('play').textContent = '▶ play';
    chart.dataset.playing = 'false';
  }

  function play() {
    if (view.player !== null) return stop();
    if (view.events.length === 0) return;
    if (view.position >= view.events.length - 1) show(0);
    $('play').textContent = '⏸ pause';
    chart.dataset.playing = 'true';
    view.player = setInterval(() => {
      if (view.position >= view.events.length - 1) return stop();
      show(view.position + 1);
    }, stepMs);
  }

  /** A manual step stops any playback first. */
  const stepTo = (position) => () => {
    stop();
    show(position());
  };
  $('first').addEventListener(
    'click',
    stepTo(() => 0),
  );
  $('prev').addEventListener(
    'click',
    stepTo(() => view.position - 1),
  );
  $('next').addEventListener(
    'click',
    stepTo(() => view.position + 1),
  );
  $('last').addEventListener(
    'click',
    stepTo(() => view.events.length - 1),
  );
  $('play').addEventListener('click', play);
  $('pick').addEventListener('submit', (event) => {
    event.preventDefault();
    const tradeId = $('trade-id').value.trim();
    if (!tradeId) return;
    $('follow-newest').checked = false;
    void follow(tradeId);
  });

  // ── Live stream ────────────────────────────────────────────────────────────────────────────────

  /** (Re)opens the SSE stream; without `after` it starts at the log's end. Reconnects resume by Last-Event-ID. */
  function connect(after) {
    if (stream) stream.close();
    const query = new URLSearchParams();
    if (after !== undefined) query.set('after', String(after));
    if (token) query.set('access_token', token);
    stream = new EventSource(`/v1/runtime/events/stream?${query}`);
    stream.addEventListener('open', () => {
      $('live').dataset.live = 'open';
      $('live').textContent = 'live: following';
    });
    stream.addEventListener('error', () => {
      $('live').dataset.live = 'retrying';
      $('live').textContent = 'live: reconnecting';
    });
    stream.addEventListener('trade', (message) => {
      const event = JSON.parse(message.data);
      streamSeq = Math.max(streamSeq, event.seq);
      onTradeEvent(event);
    });
  }

  const initial = params.get('trade_id');
  $('follow-newest').checked = !initial;
  if (initial) void follow(initial);
  else connect();
})();
