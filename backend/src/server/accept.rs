//! The accept loop under [`crate::server`]: HTTP/1.1 (with WebSocket upgrades)
//! served by hyper directly, for the limits `axum::serve` does not expose
//! (PROTOCOL.md §1 "Transport limits"):
//!
//! - a header-read timeout, which is also the keep-alive idle timeout: a
//!   connection must send a complete request head within [`HEADER_READ_TIMEOUT_MS`]
//!   of being accepted or of its previous response, else it is closed;
//! - at most [`MAX_CONNECTIONS`] open connections. At the cap, the connection
//!   that has been idle longest (no request yet, or between keep-alive requests)
//!   is closed to make room, once it has been idle for [`EVICT_AFTER_MS`]; until
//!   then new connections wait in the kernel's accept queue, holding no file
//!   descriptor here. A silent flood therefore neither exhausts descriptors nor
//!   locks out `/v1/status`, and a burst of real requests just waits its turn.

use std::collections::HashMap;
use std::convert::Infallible;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::TcpListener;
use tokio::sync::{Notify, mpsc, oneshot, watch};
use tokio::time::Instant;

/// Default cap on open HTTP and WebSocket connections.
pub const MAX_CONNECTIONS: usize = 512;

/// Default header-read and keep-alive idle timeout (ms).
pub const HEADER_READ_TIMEOUT_MS: u64 = 10_000;

/// At the connection cap, an idle connection may be closed to make room once it
/// has been idle this long (ms): real clients send their request at once.
pub const EVICT_AFTER_MS: u64 = 1_000;

/// This server's end of a request's TCP connection (`TcpStream::local_addr`), in
/// each request's extensions: `GET /v1/hello` proves over it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LocalAddr(pub std::net::SocketAddr);

/// The accept loop's limits.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// See [`MAX_CONNECTIONS`].
    pub max_connections: usize,
    /// See [`HEADER_READ_TIMEOUT_MS`].
    pub header_read_timeout: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_connections: MAX_CONNECTIONS,
            header_read_timeout: Duration::from_millis(HEADER_READ_TIMEOUT_MS),
        }
    }
}

struct Entry {
    /// `Some(since)` while no request is being served on it.
    idle_since: Option<Instant>,
    evict: Option<oneshot::Sender<()>>,
}

/// Open connections by id, and a wake-up for the accept loop when one closes or
/// becomes idle.
#[derive(Clone, Default)]
struct Connections {
    table: Arc<Mutex<(u64, HashMap<u64, Entry>)>>,
    changed: Arc<Notify>,
}

impl Connections {
    fn lock(&self) -> MutexGuard<'_, (u64, HashMap<u64, Entry>)> {
        self.table.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// `Ok(())` when a connection may be accepted now (evicting the longest-idle
    /// one past [`EVICT_AFTER_MS`] if the cap is reached); else `Err(when)` to try
    /// again (`None`: when a connection closes or goes idle).
    fn make_room(&self, cap: usize, now: Instant) -> Result<(), Option<Instant>> {
        let mut guard = self.lock();
        let table = &mut guard.1;
        if table.len() < cap {
            return Ok(());
        }
        let oldest = table
            .iter()
            .filter_map(|(id, e)| e.idle_since.map(|since| (since, *id)))
            .min();
        let Some((since, id)) = oldest else {
            return Err(None);
        };
        let evictable_at = since + Duration::from_millis(EVICT_AFTER_MS);
        if evictable_at > now {
            return Err(Some(evictable_at));
        }
        if let Some(mut entry) = table.remove(&id)
            && let Some(evict) = entry.evict.take()
        {
            let _ = evict.send(());
        }
        Ok(())
    }

    fn admit(&self, now: Instant) -> (u64, oneshot::Receiver<()>) {
        let (evict, evicted) = oneshot::channel();
        let mut guard = self.lock();
        guard.0 += 1;
        let id = guard.0;
        guard.1.insert(
            id,
            Entry {
                idle_since: Some(now),
                evict: Some(evict),
            },
        );
        (id, evicted)
    }

    /// A request arrived (`busy`) or its response body is done (`!busy`).
    fn set_busy(&self, id: u64, busy: bool) {
        if let Some(entry) = self.lock().1.get_mut(&id) {
            entry.idle_since = if busy { None } else { Some(Instant::now()) };
        }
        if !busy {
            self.changed.notify_one();
        }
    }

    /// Whether a request is being served on the connection.
    fn is_busy(&self, id: u64) -> bool {
        self.lock()
            .1
            .get(&id)
            .is_some_and(|e| e.idle_since.is_none())
    }

    /// The connection ended (a no-op when it was evicted already).
    fn closed(&self, id: u64) {
        self.lock().1.remove(&id);
        self.changed.notify_one();
    }
}

/// A response body that marks its connection idle when it is done or dropped.
struct MarkIdle {
    inner: Body,
    connections: Connections,
    id: u64,
}

impl http_body::Body for MarkIdle {
    type Data = axum::body::Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        Pin::new(&mut self.inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}

impl Drop for MarkIdle {
    fn drop(&mut self) {
        self.connections.set_busy(self.id, false);
    }
}

/// Serves `app` on `listener` until `shutdown` resolves, then stops accepting,
/// lets open requests finish and returns.
///
/// # Errors
/// None in practice: accept errors (`EMFILE`…) are logged and retried after a
/// short pause, as `axum::serve` does.
pub async fn serve(
    listener: TcpListener,
    app: Router,
    limits: Limits,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let connections = Connections::default();
    // Shutdown: `stopping` tells every connection to finish its request and close;
    // each task holds a `running` sender, so the receiver ends when all are done.
    let (stopping, stop_rx) = watch::channel(false);
    let (running, mut all_done) = mpsc::channel::<()>(1);
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_read_timeout);
    let mut shutdown = std::pin::pin!(shutdown);
    'accept: loop {
        // Room first, then accept: at the cap, new connections wait in the
        // kernel's queue rather than take a descriptor here.
        while let Err(retry) = connections.make_room(limits.max_connections, Instant::now()) {
            let retry = retry.unwrap_or_else(|| Instant::now() + Duration::from_secs(1));
            tokio::select! {
                () = connections.changed.notified() => {}
                () = tokio::time::sleep_until(retry) => {}
                () = &mut shutdown => break 'accept,
            }
        }
        let (stream, _) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    tracing::warn!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let (id, evicted) = connections.admit(Instant::now());
        let _ = stream.set_nodelay(true);
        let local = stream.local_addr().ok().map(LocalAddr);
        let table = connections.clone();
        let router = app.clone();
        let service = hyper::service::service_fn(move |mut request: hyper::Request<_>| {
            table.set_busy(id, true);
            if let Some(local) = local {
                request.extensions_mut().insert(local);
            }
            let (router, table) = (router.clone(), table.clone());
            async move {
                let response = tower::ServiceExt::oneshot(router, request)
                    .await
                    .unwrap_or_else(|e| match e {});
                let response = response.map(|inner| {
                    Body::new(MarkIdle {
                        inner,
                        connections: table,
                        id,
                    })
                });
                Ok::<_, Infallible>(response)
            }
        });
        let connection = builder
            .serve_connection(TokioIo::new(stream), service)
            .with_upgrades();
        let table = connections.clone();
        let mut stop = stop_rx.clone();
        let running = running.clone();
        tokio::spawn(async move {
            let mut connection = std::pin::pin!(connection);
            tokio::select! {
                _ = connection.as_mut() => {}
                // Evicted: dropping the connection closes the socket.
                Ok(()) = evicted => {}
                // Stopping: a request under way finishes; a connection with
                // none (idle, or still sending its headers) closes at once, so
                // that a half-sent request cannot hold the shutdown.
                () = async { let _ = stop.wait_for(|stop| *stop).await; } => {
                    if table.is_busy(id) {
                        connection.as_mut().graceful_shutdown();
                        let _ = connection.await;
                    }
                }
            }
            table.closed(id);
            drop(running);
        });
    }
    drop(listener);
    let _ = stopping.send(true);
    drop(running);
    let _ = all_done.recv().await;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn at_the_cap_the_longest_idle_connection_is_evicted_after_its_grace() {
        let table = Connections::default();
        let t0 = Instant::now();
        let grace = Duration::from_millis(EVICT_AFTER_MS);
        assert_eq!(table.make_room(2, t0), Ok(()));
        let (a, mut a_evicted) = table.admit(t0);
        let (b, mut b_evicted) = table.admit(t0 + Duration::from_millis(10));
        // Both fresh: wait until the older one has been idle long enough.
        assert_eq!(table.make_room(2, t0), Err(Some(t0 + grace)));
        table.set_busy(a, true);
        assert_eq!(
            table.make_room(2, t0 + grace * 2),
            Ok(()),
            "b idle past its grace"
        );
        assert_eq!(b_evicted.try_recv(), Ok(()));
        assert!(a_evicted.try_recv().is_err(), "a is serving a request");
        let (_c, _) = table.admit(t0 + grace * 2);
        table.set_busy(_c, true);
        assert_eq!(table.make_room(2, t0 + grace * 3), Err(None), "all busy");
        table.closed(b);
        table.closed(a);
        assert_eq!(table.make_room(2, t0 + grace * 3), Ok(()));
    }
}
