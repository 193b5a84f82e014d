//! A tiny static file server on 127.0.0.1:0 for corpus and fixture pages.

use std::path::PathBuf;

use anyhow::Result;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// Serves files under `root` at `http://127.0.0.1:<port>/<path>` until dropped.
pub struct StaticServer {
    /// `http://127.0.0.1:<port>`.
    pub base: String,
    task: tokio::task::JoinHandle<()>,
}

impl StaticServer {
    /// Binds 127.0.0.1:0 and starts serving.
    pub async fn start(root: PathBuf) -> Result<StaticServer> {
        Self::start_with(root, false).await
    }

    /// [`StaticServer::start`]; with `same_origin_only`, every response carries a
    /// Content-Security-Policy that refuses other origins, so a saved real page's
    /// external scripts, images and fonts fail at once instead of waiting on DNS in
    /// a machine without network (the load event then fires promptly).
    pub async fn start_with(root: PathBuf, same_origin_only: bool) -> Result<StaticServer> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let base = format!("http://{}", listener.local_addr()?);
        let task = tokio::spawn(async move {
            while let Ok((mut sock, _)) = listener.accept().await {
                let root = root.clone();
                tokio::spawn(async move {
                    let mut buf = vec![0u8; 8192];
                    let Ok(n) = sock.read(&mut buf).await else {
                        return;
                    };
                    let head = String::from_utf8_lossy(&buf[..n]);
                    let path = head.split_whitespace().nth(1).unwrap_or("/");
                    let path = path.split(['?', '#']).next().unwrap_or("/");
                    let rel = path.trim_start_matches('/');
                    let file = if rel.contains("..") {
                        None
                    } else {
                        std::fs::read(root.join(rel)).ok()
                    };
                    let (status, ctype, body) = match file {
                        Some(body) => ("200 OK", content_type(rel), body),
                        None => ("404 Not Found", "text/plain", b"not found".to_vec()),
                    };
                    let csp = if same_origin_only {
                        "Content-Security-Policy: default-src 'self' 'unsafe-inline' 'unsafe-eval' data: blob:\r\n"
                    } else {
                        ""
                    };
                    let head = format!(
                        "HTTP/1.1 {status}\r\nContent-Type: {ctype}\r\nContent-Length: {}\r\n{csp}Connection: close\r\n\r\n",
                        body.len()
                    );
                    let _ = sock.write_all(head.as_bytes()).await;
                    let _ = sock.write_all(&body).await;
                });
            }
        });
        Ok(StaticServer { base, task })
    }
}

impl Drop for StaticServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

fn content_type(path: &str) -> &'static str {
    match path.rsplit('.').next() {
        Some("html") => "text/html; charset=utf-8",
        Some("js") => "text/javascript",
        Some("css") => "text/css",
        Some("json") => "application/json",
        _ => "application/octet-stream",
    }
}
