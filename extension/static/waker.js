// browser-bridge waker (offscreen document, created by background.js).
//
// Chrome starts a stopped MV3 service worker again only for an event; the
// keep-alive alarm fires at most every 30 s. This document holds a runtime port to
// the worker: when the worker stops, the port disconnects, and connecting again is
// an event (runtime.onConnect) that starts a new worker, which reconnects to the
// backend. The worker greets every port; a port that closes without a greeting
// (no worker could take it) makes the retries back off, 100 ms doubling to 5 s.
let delay = 0;

function connect() {
  let greeted = false;
  const port = chrome.runtime.connect({ name: 'waker' });
  port.onMessage.addListener(() => {
    greeted = true;
  });
  port.onDisconnect.addListener(() => {
    delay = greeted ? 0 : Math.min(5000, Math.max(100, delay * 2));
    setTimeout(connect, delay);
  });
}

connect();
