// browser-bridge waker (offscreen document, created by background.js).
//
// Chrome starts a stopped MV3 service worker again only for an event; the
// keep-alive alarm fires at most every 30 s. This document holds a runtime port to
// the worker: when the worker stops, the port disconnects, and connecting again is
// an event (runtime.onConnect) that starts a new worker, which reconnects to the
// backend. A worker that keeps refusing makes the retries back off (to 5 s).
let delay = 0;

function connect() {
  const openedAt = Date.now();
  const port = chrome.runtime.connect({ name: 'waker' });
  port.onDisconnect.addListener(() => {
    // A port that lived a while was a running worker that stopped: wake it at once.
    delay = Date.now() - openedAt > 5000 ? 0 : Math.min(5000, Math.max(100, delay * 2));
    setTimeout(connect, delay);
  });
}

connect();
