//! The bundled demo site (tests/demo-site/), served on 127.0.0.1: a to-do app, a
//! claim form with validation, and a portal behind a sign-in page. The files are
//! compiled in, so the demo binary needs nothing on disk.

use std::net::SocketAddr;

use axum::Router;
use axum::extract::Form;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::get;
use serde::Deserialize;
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

/// The demo account that opens the portal.
pub const DEMO_EMAIL: &str = "demo@acme.test";
/// The demo account's password.
pub const DEMO_PASSWORD: &str = "correct horse";
/// The cookie set by a successful sign-in.
const SESSION_COOKIE: &str = "acme_session=signed-in";

const STYLE: &str = include_str!("../../demo-site/style.css");
const INDEX: &str = include_str!("../../demo-site/index.html");
const TODO: &str = include_str!("../../demo-site/todo/index.html");
const TODO_JS: &str = include_str!("../../demo-site/todo/app.js");
const CLAIM: &str = include_str!("../../demo-site/claim/index.html");
const CLAIM_JS: &str = include_str!("../../demo-site/claim/app.js");
const LOGIN: &str = include_str!("../../demo-site/portal/login.html");
const PORTAL: &str = include_str!("../../demo-site/portal/index.html");

/// The demo site, running on a loopback port until dropped.
#[derive(Debug)]
pub struct DemoSite {
    addr: SocketAddr,
    task: JoinHandle<()>,
}

impl DemoSite {
    /// Serves the site on `127.0.0.1:0`.
    ///
    /// # Errors
    /// The port cannot be bound.
    pub async fn start() -> std::io::Result<DemoSite> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let task = tokio::spawn(async move {
            if let Err(e) = axum::serve(listener, router()).await {
                eprintln!("demo site stopped: {e}");
            }
        });
        Ok(DemoSite { addr, task })
    }

    /// `http://127.0.0.1:<port>` followed by `path` (which starts with `/`).
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }
}

impl Drop for DemoSite {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// The site's routes.
pub fn router() -> Router {
    Router::new()
        .route("/", get(|| async { html(INDEX) }))
        .route("/style.css", get(|| async { asset("text/css", STYLE) }))
        .route("/todo", get(|| async { Redirect::permanent("/todo/") }))
        .route("/todo/", get(|| async { html(TODO) }))
        .route(
            "/todo/app.js",
            get(|| async { asset("text/javascript", TODO_JS) }),
        )
        .route("/claim", get(|| async { Redirect::permanent("/claim/") }))
        .route("/claim/", get(|| async { html(CLAIM) }))
        .route(
            "/claim/app.js",
            get(|| async { asset("text/javascript", CLAIM_JS) }),
        )
        .route("/portal", get(portal))
        .route(
            "/portal/login",
            get(|| async { html(&login_page(None)) }).post(sign_in),
        )
        .route("/portal/logout", get(sign_out))
}

fn html(body: &str) -> Response {
    asset("text/html; charset=utf-8", body)
}

fn asset(mime: &'static str, body: &str) -> Response {
    (
        [
            (header::CONTENT_TYPE, mime),
            (header::CACHE_CONTROL, "no-store"),
        ],
        body.to_owned(),
    )
        .into_response()
}

fn signed_in(headers: &HeaderMap) -> bool {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .any(|c| c.trim() == SESSION_COOKIE)
}

/// The portal: its dashboard when signed in, else a redirect to the sign-in page.
async fn portal(headers: HeaderMap) -> Response {
    if signed_in(&headers) {
        html(PORTAL)
    } else {
        Redirect::to("/portal/login").into_response()
    }
}

fn login_page(error: Option<&str>) -> String {
    let notice = error
        .map(|e| format!(r#"<div class="notice error" role="alert">{e}</div>"#))
        .unwrap_or_default();
    LOGIN.replace("<!--ERROR-->", &notice)
}

#[derive(Deserialize)]
struct Credentials {
    email: String,
    password: String,
}

async fn sign_in(Form(form): Form<Credentials>) -> Response {
    if form.email.trim() == DEMO_EMAIL && form.password == DEMO_PASSWORD {
        let cookie = format!("{SESSION_COOKIE}; Path=/portal; HttpOnly; SameSite=Lax");
        ([(header::SET_COOKIE, cookie)], Redirect::to("/portal")).into_response()
    } else {
        let page = login_page(Some("That email and password do not match an account."));
        (StatusCode::UNAUTHORIZED, html(&page)).into_response()
    }
}

async fn sign_out() -> Response {
    let cookie = "acme_session=; Path=/portal; Max-Age=0";
    (
        [(header::SET_COOKIE, cookie)],
        Redirect::to("/portal/login"),
    )
        .into_response()
}
