// Popup: measured connection state (from the worker, never a stored flag), the
// agent's hand-offs waiting for the person (Done / Give up), live sessions by
// client with Stop, Stop all / Resume, pairing token entry.
const $ = (id) => document.getElementById(id);

function ago(ms) {
  if (!ms) return 'never';
  const s = Math.max(0, Math.round((Date.now() - ms) / 1000));
  return s < 60 ? `${s} s ago` : `${Math.round(s / 60)} min ago`;
}

function render(status) {
  if (!status || status.error) {
    $('state').textContent = 'worker not answering';
    $('reason').textContent = status ? status.error : '';
    return;
  }
  document.body.dataset.globalStop = String(status.globalStop);
  const c = status.connection;
  $('dot').className = 'dot ' + c.state;
  $('state').textContent = c.state === 'connected' ? `connected · last pong ${ago(c.lastPongAt)}` : c.state;
  $('reason').textContent = c.reason || '';
  const list = $('sessions');
  list.replaceChildren();
  // Grouped by the agent (the backend's client) that last acted on each tab; the
  // worker sends them sorted by client, so each group is one run of rows.
  let group;
  for (const s of status.sessions) {
    const client = s.client || 'no client named';
    if (client !== group) {
      group = client;
      const heading = document.createElement('li');
      heading.className = 'client';
      heading.dataset.client = client;
      heading.textContent = client;
      list.append(heading);
    }
    const li = document.createElement('li');
    li.dataset.client = client;
    const url = document.createElement('span');
    url.className = 'url';
    url.textContent = `#${s.tabId} ${s.url}`;
    url.title = `${s.actionCount} actions${s.agentWindow ? ' · agent window' : ''}`;
    const stop = document.createElement('button');
    stop.textContent = 'Stop';
    stop.className = 'danger';
    stop.dataset.tabId = s.tabId;
    stop.addEventListener('click', () => send({ cmd: 'stop', tabId: s.tabId }));
    li.append(url, stop);
    list.append(li);
  }
  $('no-sessions').hidden = status.sessions.length > 0;
  renderHandoffs(status.handoffs || []);
  $('stop-all').hidden = status.globalStop;
  $('resume').hidden = !status.globalStop;
}

// Each hand-off: the agent's reason (as text: never markup), the tab, the time
// left, and the person's two answers.
function renderHandoffs(handoffs) {
  const list = $('handoffs');
  list.replaceChildren();
  for (const h of handoffs) {
    const li = document.createElement('li');
    li.dataset.tabId = h.tabId;
    const reason = document.createElement('p');
    reason.className = 'handoff-reason';
    reason.textContent = h.reason;
    const meta = document.createElement('span');
    meta.className = 'muted';
    const left = Math.max(0, Math.round((h.deadlineAt - Date.now()) / 1000));
    meta.textContent = `tab #${h.tabId} · ${left} s left`;
    const done = document.createElement('button');
    done.textContent = 'Done';
    done.className = 'primary handoff-done';
    done.addEventListener('click', () => send({ cmd: 'handoffDone', tabId: h.tabId }));
    const giveUp = document.createElement('button');
    giveUp.textContent = 'Give up';
    giveUp.className = 'danger handoff-give-up';
    giveUp.addEventListener('click', () => send({ cmd: 'handoffGiveUp', tabId: h.tabId }));
    const row = document.createElement('div');
    row.className = 'row';
    row.append(done, giveUp);
    li.append(reason, meta, row);
    list.append(li);
  }
  $('handoffs-section').hidden = handoffs.length === 0;
}

// The last internal error the worker recovered from (background.js stores it).
function showPanic() {
  chrome.storage.local.get('lastPanic').then(({ lastPanic }) => {
    $('panic').hidden = !lastPanic;
    if (lastPanic) {
      $('panic').textContent = `Recovered from an internal error ${ago(lastPanic.at)}: ${lastPanic.message}`;
    }
  });
}

function send(message) {
  return chrome.runtime.sendMessage(message).then(render, (e) => render({ error: String(e) }));
}

$('stop-all').addEventListener('click', () => send({ cmd: 'stopAll' }));
$('resume').addEventListener('click', () => send({ cmd: 'resume' }));
$('pair-form').addEventListener('submit', (e) => {
  e.preventDefault();
  const token = $('token').value.trim();
  if (!token) return;
  chrome.storage.local.set({ pairingToken: token }).then(() => {
    $('token').value = '';
    setTimeout(() => send({ cmd: 'status' }), 300);
  });
});

send({ cmd: 'status' });
showPanic();
setInterval(() => {
  send({ cmd: 'status' });
  showPanic();
}, 1000);
