// Pairing link: chrome-extension://<id>/pair.html#token=<token>&backendUrl=<ws url>
// (printed by `browser-bridge pair`). Stores both in chrome.storage.local; the
// worker reconnects at once (storage.onChanged). Web pages cannot open this page:
// it is not web_accessible, so only the user (or their local tooling) can pair.
const params = new URLSearchParams(location.hash.slice(1));
const token = params.get('token');
const backendUrl = params.get('backendUrl');
const status = document.getElementById('status');
if (!token) {
  status.textContent = 'No token in this link. Run `browser-bridge pair` and open the link it prints, or paste the token in the extension popup.';
} else {
  const items = { pairingToken: token };
  if (backendUrl) items.backendUrl = backendUrl;
  chrome.storage.local.set(items).then(() => {
    history.replaceState(null, '', location.pathname);
    status.textContent = 'Paired. You can close this tab.';
    document.body.dataset.paired = 'true';
  }, (e) => { status.textContent = 'Could not store the token: ' + e; });
}
