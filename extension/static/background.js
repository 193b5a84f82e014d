// browser-bridge service worker loader.
//
// MV3 only wakes a worker for listeners registered in its first turn, and wasm
// initialises asynchronously, so every listener is registered here, synchronously,
// and its events are queued until the wasm module is ready. No top-level await:
// it makes the worker registration fail silently.
import init, { start, handle_event, popup_message } from './pkg/browser_bridge_extension.js';

let ready = false;
const queue = [];
let resolveReady;
const whenReady = new Promise((resolve) => { resolveReady = resolve; });

function deliver(name, ...args) {
  if (ready) {
    handle_event(name, args);
  } else {
    queue.push([name, args]);
  }
}

chrome.runtime.onStartup.addListener(() => deliver('startup'));
chrome.runtime.onInstalled.addListener((details) => deliver('installed', details));
chrome.alarms.onAlarm.addListener((alarm) => deliver('alarm', alarm));
chrome.tabs.onRemoved.addListener((tabId, info) => deliver('tabRemoved', tabId, info));
chrome.tabs.onCreated.addListener((tab) => deliver('tabCreated', tab));
chrome.debugger.onEvent.addListener((source, method, params) => deliver('debuggerEvent', source, method, params));
chrome.debugger.onDetach.addListener((source, reason) => deliver('debuggerDetach', source, reason));
chrome.idle.onStateChanged.addListener((state) => deliver('idle', state));
chrome.storage.onChanged.addListener((changes, area) => deliver('storage', changes, area));
chrome.runtime.onMessage.addListener((message, sender, sendResponse) => {
  // Only our own pages (popup, options) may talk to the worker.
  if (sender.id !== chrome.runtime.id || !String(sender.url || '').startsWith(location.origin)) {
    return false;
  }
  whenReady
    .then(() => popup_message(message))
    .then(sendResponse, (e) => sendResponse({ error: String(e) }));
  return true;
});

init({ module_or_path: new URL('./pkg/browser_bridge_extension_bg.wasm', import.meta.url) })
  .then(() => {
    start();
    ready = true;
    for (const [name, args] of queue.splice(0)) handle_event(name, args);
    resolveReady();
  })
  .catch((e) => console.error('browser-bridge: wasm init failed', e));
