//! The one static file server of the tests: `tower-http`'s `ServeDir` on
//! `127.0.0.1:0`, so that end-to-end tests load real pages over real HTTP. It
//! serves `tests/fixtures/` for the e2e suites and the saved real-world pages for
//! the corpus runs. Text types (`text/html`, `text/css`, `text/javascript`, …) go
//! out with `charset=utf-8`, so Chromium never guesses another encoding. A file
//! whose name holds `.status-NNN.` (`denied.status-403.html`) is served with HTTP
//! status NNN, for pages that stand for error answers (the obstacle set). A file
//! whose name holds `.attachment.` goes out with `Content-Disposition:
//! attachment` (a download). A path under [`HANG_PREFIX`] is never answered;
//! [`REDIRECT_PATH`]`?to=<url>` answers 302 to that URL.

use std::net::SocketAddr;
use std::path::PathBuf;

use anyhow::{Context, Result};
use axum::Router;
use axum::http::{HeaderValue, header};
use axum::response::Response;
use tokio::task::JoinHandle;
use tower_http::services::ServeDir;

/// `tests/fixtures/`.
pub fn fixtures_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

/// The `Content-Security-Policy` of [`StaticServer::start_with`]`(…, true)`.
const SAME_ORIGIN_ONLY: &str = "default-src 'self' 'unsafe-inline' 'unsafe-eval' data: blob:";

/// Path prefix whose requests are accepted and never answered (`/hang/chart.png`):
/// a subresource that hangs, so that the page's `load` event never fires.
pub const HANG_PREFIX: &str = "/hang/";

/// Path answered with `302 Found` to its `to` query parameter (percent-encoded):
/// a hop on an allowed host towards another.
pub const REDIRECT_PATH: &str = "/redirect";

/// A running static file server (`GET /<path>` → the file under its root, `/` →
/// `index.html`, 404 otherwise); stops on drop.
#[derive(Debug)]
pub struct StaticServer {
    /// `http://127.0.0.1:<port>`, no trailing slash.
    pub base: String,
    addr: SocketAddr,
    task: JoinHandle<()>,
}

/// The e2e suites' name for a [`StaticServer`] on `tests/fixtures/`.
pub type FixtureServer = StaticServer;

impl StaticServer {
    /// Binds `127.0.0.1:0` and serves `tests/fixtures/`.
    ///
    /// # Errors
    /// When the socket cannot be bound.
    pub async fn start() -> Result<StaticServer> {
        Self::start_dir(fixtures_dir()).await
    }

    /// Binds `127.0.0.1:0` and serves `dir`.
    ///
    /// # Errors
    /// When the socket cannot be bound.
    pub async fn start_dir(dir: PathBuf) -> Result<StaticServer> {
        Self::start_with(dir, false).await
    }

    /// [`StaticServer::start_dir`]; with `same_origin_only`, every response carries
    /// a Content-Security-Policy that refuses other origins, so a saved real page's
    /// external scripts, images and fonts fail at once instead of waiting on DNS in
    /// a machine without network (the load event then fires promptly).
    ///
    /// # Errors
    /// When the socket cannot be bound.
    pub async fn start_with(dir: PathBuf, same_origin_only: bool) -> Result<StaticServer> {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .context("binding the static file server")?;
        let addr = listener.local_addr()?;
        let app = Router::new()
            .fallback_service(ServeDir::new(dir))
            .layer(axum::middleware::map_response(move |response: Response| {
                std::future::ready(shape(response, same_origin_only))
            }))
            .layer(axum::middleware::from_fn(
                |request: axum::extract::Request, next: axum::middleware::Next| async move {
                    if request.uri().path().starts_with(HANG_PREFIX) {
                        // Never answered: a subresource that keeps `load` from firing.
                        return std::future::pending::<Response>().await;
                    }
                    if request.uri().path() == REDIRECT_PATH {
                        return redirect(request.uri().query().unwrap_or_default());
                    }
                    let status = status_in_name(request.uri().path());
                    let attachment = request.uri().path().contains(".attachment.");
                    let mut response = next.run(request).await;
                    if let Some(status) = status.filter(|_| response.status().is_success()) {
                        *response.status_mut() = status;
                    }
                    if attachment {
                        response.headers_mut().insert(
                            header::CONTENT_DISPOSITION,
                            HeaderValue::from_static("attachment"),
                        );
                    }
                    response
                },
            ));
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Ok(StaticServer {
            base: format!("http://{addr}"),
            addr,
            task,
        })
    }

    /// `http://127.0.0.1:<port>/<path>`.
    pub fn url(&self, path: &str) -> String {
        format!(
            "http://127.0.0.1:{}/{}",
            self.addr.port(),
            path.trim_start_matches('/')
        )
    }

    /// The same page under another host name (`localhost`, `sub.localhost`), which
    /// Chromium resolves to loopback: a second "domain" for blocklist tests.
    pub fn url_on(&self, host: &str, path: &str) -> String {
        format!(
            "http://{host}:{}/{}",
            self.addr.port(),
            path.trim_start_matches('/')
        )
    }

    /// The bound port.
    pub fn port(&self) -> u16 {
        self.addr.port()
    }
}

impl Drop for StaticServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// `302 Found` to the `to=` of `query` (percent-decoded); 400 without one.
fn redirect(query: &str) -> Response {
    let to = query
        .split('&')
        .find_map(|pair| pair.strip_prefix("to="))
        .map(|to| {
            percent_encoding::percent_decode_str(to)
                .decode_utf8_lossy()
                .into_owned()
        });
    let mut response = Response::default();
    match to.and_then(|to| HeaderValue::from_str(&to).ok()) {
        Some(location) => {
            *response.status_mut() = axum::http::StatusCode::FOUND;
            response.headers_mut().insert(header::LOCATION, location);
        }
        None => *response.status_mut() = axum::http::StatusCode::BAD_REQUEST,
    }
    response
}

/// The status a file name asks for: `x.status-403.html` → 403.
fn status_in_name(path: &str) -> Option<axum::http::StatusCode> {
    let name = path.rsplit('/').next()?;
    let (_, rest) = name.split_once(".status-")?;
    let code: u16 = rest.get(..3)?.parse().ok()?;
    axum::http::StatusCode::from_u16(code).ok()
}

/// Adds `charset=utf-8` to a text type without one, and the CSP when asked.
fn shape(mut response: Response, same_origin_only: bool) -> Response {
    let headers = response.headers_mut();
    let utf8 = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .filter(|v| v.starts_with("text/") && !v.contains("charset"))
        .and_then(|v| HeaderValue::from_str(&format!("{v}; charset=utf-8")).ok());
    if let Some(utf8) = utf8 {
        headers.insert(header::CONTENT_TYPE, utf8);
    }
    if same_origin_only {
        headers.insert(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(SAME_ORIGIN_ONLY),
        );
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_status_in_the_file_name() {
        assert_eq!(
            status_in_name("/obstacles/denied.status-403.html").map(|s| s.as_u16()),
            Some(403)
        );
        assert_eq!(status_in_name("/a/b.html"), None);
        assert_eq!(status_in_name("/a.status-xyz.html"), None);
    }

    /// Files, 404 for a missing file, UTF-8 text types, and the CSP only when asked.
    #[tokio::test]
    async fn serves_files_with_utf8_text_types() {
        let server = StaticServer::start().await.expect("start");
        let client = reqwest::Client::builder().no_proxy().build().unwrap();
        let page = client.get(server.url("basic.html")).send().await.unwrap();
        assert_eq!(page.status(), 200);
        assert_eq!(
            page.headers()[header::CONTENT_TYPE],
            "text/html; charset=utf-8"
        );
        assert!(
            page.headers()
                .get(header::CONTENT_SECURITY_POLICY)
                .is_none()
        );
        assert!(page.text().await.unwrap().contains("Basic fixture"));
        let missing = client.get(server.url("nope.html")).send().await.unwrap();
        assert_eq!(missing.status(), 404);

        let strict = StaticServer::start_with(fixtures_dir(), true)
            .await
            .unwrap();
        let page = client.get(strict.url("basic.html")).send().await.unwrap();
        assert_eq!(
            page.headers()[header::CONTENT_SECURITY_POLICY],
            SAME_ORIGIN_ONLY
        );
    }
}
