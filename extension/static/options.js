// Options: backend URL and blocklist, kept in chrome.storage.local (`backendUrl`,
// `blocklist`); the worker applies both at once via storage.onChanged.
const $ = (id) => document.getElementById(id);
chrome.storage.local.get(['backendUrl', 'blocklist']).then((s) => {
  $('backend-url').value = s.backendUrl || '';
  // Show a hand-edited (string or malformed) setting as it is, to be fixed here.
  const b = s.blocklist;
  $('blocklist').value = Array.isArray(b) ? b.join('\n') : typeof b === 'string' ? b : b == null ? '' : JSON.stringify(b);
});
$('options').addEventListener('submit', (e) => {
  e.preventDefault();
  const blocklist = $('blocklist').value.split('\n').map((l) => l.trim()).filter(Boolean);
  const items = { blocklist };
  const url = $('backend-url').value.trim();
  const save = url ? chrome.storage.local.set({ ...items, backendUrl: url })
    : chrome.storage.local.set(items).then(() => chrome.storage.local.remove('backendUrl'));
  save.then(() => { $('saved').textContent = 'Saved.'; document.body.dataset.saved = 'true'; });
});
