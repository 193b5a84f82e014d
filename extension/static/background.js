// browser-bridge service worker loader.
//
// MV3 only wakes a worker for listeners registered in its first turn, and wasm
// initialises asynchronously, so every listener is registered here, synchronously,
// and its events are queued until the wasm module is ready. No top-level await:
// it makes the worker registration fail silently.
//
// Two lifecycle duties (see src/lifecycle.rs):
// - panic recovery: the module is built with panic = "abort", so a Rust panic traps
//   the instance (a WebAssembly.RuntimeError out of whatever JS called into it).
//   Every trap is caught here, reported (console + chrome.storage.local `lastPanic`)
//   and answered by re-instantiating the module (`__wbg_reset_state`: callbacks the
//   dead instance left behind become inert) and starting a new Worker. A panic in
//   an event handler, in a popup message or in a task recovers the same way
//   (self-tests: the popup message {cmd: "panic", sync?}, and a change of the
//   storage key `panicSelfTest`, both only from this extension's own pages).
// - fast wake-up: Chrome runs a stopped worker again only for an event, and the
//   keep-alive alarm fires at most every 30 s. The offscreen document waker.html
//   holds a runtime port to this worker; when the worker stops, the port
//   disconnects and the document reconnects at once, which starts a new worker.
import init, { BridgeWorker, __wbg_reset_state } from './pkg/browser_bridge_extension.js';

// The module's one Worker (all of its state); a new one after each recovery.
let worker = null;
let ready = false;
const queue = [];
let readyWaiters = [];

// Recoveries in the last minute; past MAX_RECOVERIES the loader gives up rather
// than loop on a panic that happens at every start.
const MAX_RECOVERIES = 5;
let recoveries = [];

// The sockets the module opened (the glue calls `new WebSocket` at run time). After
// a trap the dead instance's socket would stay open, and the backend would keep
// sending requests into it until the new instance's connection replaced it;
// closing it at once makes the backend answer its in-flight requests
// `not_connected` and hold new ones (connect-wait) for the new connection.
const liveSockets = new Set();
self.WebSocket = new Proxy(self.WebSocket, {
  construct(target, args) {
    const socket = Reflect.construct(target, args);
    liveSockets.add(socket);
    socket.addEventListener('close', () => liveSockets.delete(socket));
    return socket;
  },
});

function isTrap(e) {
  return e instanceof WebAssembly.RuntimeError;
}

function whenReady() {
  return ready ? Promise.resolve() : new Promise((resolve) => readyWaiters.push(resolve));
}

function boot() {
  return Promise.resolve()
    .then(() => {
      worker = new BridgeWorker();
      return worker.start();
    })
    .then(() => {
      ready = true;
      while (ready && queue.length) {
        const [name, args] = queue.shift();
        guard(() => worker.handle_event(name, args));
      }
      for (const resolve of readyWaiters.splice(0)) resolve();
    })
    .catch((e) => {
      if (isTrap(e)) recover(e);
      else console.error('browser-bridge: start failed', e);
    });
}

function recover(error) {
  const report = {
    at: Date.now(),
    message: String(globalThis.__browserBridgePanic || error),
    trap: String(error),
  };
  globalThis.__browserBridgePanic = undefined;
  const now = Date.now();
  recoveries = recoveries.filter((t) => now - t < 60000).concat(now);
  ready = false;
  console.error('browser-bridge: the wasm module trapped; restarting it:', report.message);
  chrome.storage.local.set({ lastPanic: report }).catch(() => {});
  for (const socket of liveSockets) socket.close(1000, 'extension restarting after an internal error');
  liveSockets.clear();
  if (recoveries.length > MAX_RECOVERIES) {
    console.error(`browser-bridge: ${recoveries.length} traps within a minute; not restarting again`);
    return;
  }
  __wbg_reset_state();
  boot();
}

function guard(call) {
  try {
    return call();
  } catch (e) {
    if (!isTrap(e)) throw e;
    recover(e);
    return undefined;
  }
}

// A trap inside a wasm task (futures run from microtasks and timers) surfaces as an
// uncaught error or an unhandled rejection.
self.addEventListener('error', (event) => {
  if (isTrap(event.error)) {
    event.preventDefault();
    recover(event.error);
  }
});
self.addEventListener('unhandledrejection', (event) => {
  if (isTrap(event.reason)) {
    event.preventDefault();
    recover(event.reason);
  }
});

function deliver(name, ...args) {
  if (ready) {
    guard(() => worker.handle_event(name, args));
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
// A hand-off's Done (0) and Give up (1) buttons.
chrome.notifications.onButtonClicked.addListener((id, index) => deliver('notificationButton', id, index));
chrome.runtime.onMessage.addListener((message, sender, sendResponse) => {
  // Only our own pages (popup, options) may talk to the worker.
  if (sender.id !== chrome.runtime.id || !String(sender.url || '').startsWith(location.origin)) {
    return false;
  }
  whenReady()
    .then(() => guard(() => worker.popup_message(message)))
    .then(sendResponse, (e) => sendResponse({ error: String(e) }));
  return true;
});
// The waker's port (waker.js): the greeting tells it a worker runs; the port's
// disconnect on its side then tells it this worker stopped.
chrome.runtime.onConnect.addListener((port) => {
  if (port.name !== 'waker' || port.sender?.id !== chrome.runtime.id) {
    port.disconnect();
    return;
  }
  port.postMessage('ready');
});

function ensureWaker() {
  if (!chrome.offscreen) return Promise.resolve();
  return chrome.offscreen
    .createDocument({
      url: 'waker.html',
      reasons: ['WORKERS'],
      justification: 'wakes the service worker as soon as Chrome stops it, so the connection to the local backend comes back within a second',
    })
    .catch((e) => {
      // "Only a single offscreen document may be created": it already runs.
      if (!String(e).includes('single offscreen')) console.error('browser-bridge: waker', e);
    });
}

// Start-up figures (`performance` marks, ms after the worker started), read by the
// end-to-end cold-start test: module instantiated, then Worker.start resolved.
init({ module_or_path: new URL('./pkg/browser_bridge_extension_bg.wasm', import.meta.url) })
  .then(() => performance.mark('browser-bridge:instantiated'))
  .then(() => boot())
  .then(() => performance.mark('browser-bridge:started'))
  .then(() => ensureWaker())
  .catch((e) => console.error('browser-bridge: wasm init failed', e));
