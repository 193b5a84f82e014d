// Pairing link: chrome-extension://<id>/pair.html#token=<token>&backendUrl=<ws url>
// (printed by `browser-bridge pair`). Stores both in chrome.storage.local; the
// worker reconnects at once (storage.onChanged). Web pages cannot open this page:
// it is not web_accessible, so only the user (or their local tooling) can pair.
const params = new URLSearchParams(location.hash.slice(1));
// Strip the fragment at once: an agent's list_tabs reports every tab's URL and
// title, and the token must never be readable there (it authenticates the backend
// connection). The title is static and never holds the token.
history.replaceState(null, '', location.pathname);
const token = params.get('token');
const backendUrl = params.get('backendUrl');
const status = document.getElementById('status');

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Reports what the worker measured after the reconnect (PROTOCOL.md §2): connected
// (the backend proved the token and acked), unproven (the program on the address
// did not prove it knows this token: another program, or a backend paired with
// another token; the worker keeps retrying), or the backend's reject reason
// (`fatalError`, written by the worker on reject). Waits at most 8 s.
async function outcome(since) {
  for (let i = 0; i < 80; i++) {
    const { fatalError } = await chrome.storage.local.get('fatalError');
    if (fatalError) return { state: 'fatal', text: `Not connected: ${fatalError.message || fatalError.code}` };
    let s;
    try { s = await chrome.runtime.sendMessage({ cmd: 'status' }); } catch (e) { s = null; }
    const c = s && s.connection;
    if (c && c.state === 'connected' && c.connectedAt >= since) {
      return { state: 'connected', text: 'Connected. You can close this tab.' };
    }
    if (c && c.refusedAt >= since) {
      return { state: 'unproven', text: `Not connected: ${c.reason}` };
    }
    await sleep(100);
  }
  return { state: 'pending', text: 'Token stored, but the backend did not answer yet: is `browser-bridge serve` running? The extension popup shows the connection state.' };
}

if (!token) {
  status.textContent = 'No token in this link. Run `browser-bridge pair` and open the link it prints, or paste the token in the extension popup.';
} else {
  const items = { pairingToken: token };
  if (backendUrl) items.backendUrl = backendUrl;
  const since = Date.now();
  // An old reject must not be mistaken for this attempt's outcome.
  chrome.storage.local.remove('fatalError')
    .then(() => chrome.storage.local.set(items))
    .then(async () => {
      document.body.dataset.paired = 'true';
      status.textContent = 'Token stored; connecting…';
      const o = await outcome(since);
      status.textContent = o.text;
      document.body.dataset.outcome = o.state;
    }, (e) => { status.textContent = 'Could not store the token: ' + e; });
}
