// Options: backend URL, browser name and blocklist, kept in chrome.storage.local
// (`backendUrl`, `browserName`, `blocklist`); the worker applies them at once via
// storage.onChanged (a new URL or name reconnects, so the backend learns it).
const $ = (id) => document.getElementById(id);
chrome.storage.local.get(['backendUrl', 'browserName', 'blocklist']).then((s) => {
  $('backend-url').value = s.backendUrl || '';
  $('browser-name').value = typeof s.browserName === 'string' ? s.browserName : '';
  // Show a hand-edited (string or malformed) setting as it is, to be fixed here.
  const b = s.blocklist;
  $('blocklist').value = Array.isArray(b) ? b.join('\n') : typeof b === 'string' ? b : b == null ? '' : JSON.stringify(b);
});
$('options').addEventListener('submit', (e) => {
  e.preventDefault();
  const blocklist = $('blocklist').value.split('\n').map((l) => l.trim()).filter(Boolean);
  const items = { blocklist };
  const url = $('backend-url').value.trim();
  const name = $('browser-name').value.trim();
  const unset = [];
  if (url) items.backendUrl = url; else unset.push('backendUrl');
  if (name) items.browserName = name; else unset.push('browserName');
  const save = chrome.storage.local.set(items).then(() => unset.length && chrome.storage.local.remove(unset));
  save.then(() => { $('saved').textContent = 'Saved.'; document.body.dataset.saved = 'true'; });
});
