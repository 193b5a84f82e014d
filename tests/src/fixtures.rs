//! A tiny static server for `tests/fixtures/` on `127.0.0.1:0`, so that end-to-end
//! tests load real pages over real HTTP.

use std::net::SocketAddr;
use std::path::PathBuf;

use anyhow::{Context, Result};
use axum::Router;
use axum::extract::Path as UrlPath;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use tokio::task::JoinHandle;

/// `tests/fixtures/`.
pub fn fixtures_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

/// A running fixture server; stops on drop.
#[derive(Debug)]
pub struct FixtureServer {
    addr: SocketAddr,
    task: JoinHandle<()>,
}

impl FixtureServer {
    /// Binds `127.0.0.1:0` and serves `tests/fixtures/`.
    ///
    /// # Errors
    /// When the socket cannot be bound.
    pub async fn start() -> Result<FixtureServer> {
        Self::start_dir(fixtures_dir()).await
    }

    /// Binds `127.0.0.1:0` and serves `dir`.
    ///
    /// # Errors
    /// When the socket cannot be bound.
    pub async fn start_dir(dir: PathBuf) -> Result<FixtureServer> {
        let root = std::sync::Arc::new(dir);
        let (r1, r2) = (root.clone(), root);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .context("binding the fixture server")?;
        let addr = listener.local_addr()?;
        let app = Router::new()
            .route(
                "/",
                axum::routing::get(move || serve(r1.clone(), String::from("index.html"))),
            )
            .route(
                "/{*path}",
                axum::routing::get(move |UrlPath(path): UrlPath<String>| serve(r2.clone(), path)),
            );
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Ok(FixtureServer { addr, task })
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

impl Drop for FixtureServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn serve(root: std::sync::Arc<PathBuf>, path: String) -> Response {
    if path
        .split('/')
        .any(|seg| seg == ".." || seg.starts_with('.'))
    {
        return StatusCode::NOT_FOUND.into_response();
    }
    let file = root.join(&path);
    match tokio::fs::read(&file).await {
        Ok(bytes) => ([(header::CONTENT_TYPE, content_type(&path))], bytes).into_response(),
        Err(_) => (StatusCode::NOT_FOUND, format!("no fixture {path}")).into_response(),
    }
}

fn content_type(path: &str) -> &'static str {
    match path.rsplit('.').next().unwrap_or_default() {
        "html" => "text/html; charset=utf-8",
        "js" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "json" => "application/json",
        "png" => "image/png",
        "txt" => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}
