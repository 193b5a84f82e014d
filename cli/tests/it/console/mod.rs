//! The local console's guard over a real socket, playing the attacker: no
//! session header → 401 on every console API route (a session sent as a
//! cookie is none) and no response ever sets a cookie; a link's code works
//! once; another serve's session, made-up codes and sessions, the token in a
//! URL, a foreign `Origin` and a rebinding `Host` are all refused; bodies are
//! read only after the guard, capped and under a deadline ([`body`]). Then
//! runs over SSE ([`runs`]).

mod body;
mod runs;

use browser_bridge_backend::server::{ServeOptions, ServerHandle};
use reqwest::header::{HOST, ORIGIN};
use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_browser-bridge");
/// The header the console page sends its session in.
pub(super) const SESSION: &str = "browser-bridge-console";

/// A client that shows redirects instead of following them.
pub(super) fn http() -> reqwest::Client {
    reqwest::Client::builder()
        .no_proxy()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}

/// No answer of serve sets a cookie: checked on every response these tests get.
fn no_cookie(response: &reqwest::Response) {
    assert!(
        response.headers().get("set-cookie").is_none(),
        "{} set a cookie",
        response.url()
    );
}

/// A fresh console link: `<base>/#code=<32 hex>`.
pub(super) async fn link(server: &ServerHandle) -> String {
    let response = http()
        .post(format!("{}/v1/console/link", server.base_url()))
        .bearer_auth(&server.token)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    no_cookie(&response);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["expiresInMs"], 60000);
    let path = body["path"].as_str().unwrap();
    let code = path.strip_prefix("/#code=").unwrap();
    assert_eq!(code.len(), 32, "128 random bits in hex");
    assert!(code.bytes().all(|b| b.is_ascii_hexdigit()));
    format!("{}{path}", server.base_url())
}

pub(super) fn code_of(url: &str) -> &str {
    url.split_once("#code=").unwrap().1
}

/// Spends `code` as the page does: `POST /console/api/session` from its own
/// origin; `(status, body)`.
pub(super) async fn exchange(server: &ServerHandle, code: &str) -> (u16, Value) {
    post(
        server,
        "/console/api/session",
        &[("origin", &own_origin(server))],
        json!({ "code": code }),
    )
    .await
}

/// Spends `url`'s code: the session (64 hex).
pub(super) async fn open(server: &ServerHandle, url: &str) -> String {
    let (status, body) = exchange(server, code_of(url)).await;
    assert_eq!(status, 200, "{body}");
    let session = body["session"].as_str().unwrap().to_owned();
    assert_eq!(session.len(), 64, "256 random bits in hex");
    session
}

pub(super) async fn signed_in(opts: ServeOptions) -> (ServerHandle, String) {
    let server = crate::common::start(opts).await;
    let session = open(&server, &link(&server).await).await;
    (server, session)
}

pub(super) fn own_origin(server: &ServerHandle) -> String {
    server.base_url()
}

pub(super) async fn get(
    server: &ServerHandle,
    path: &str,
    headers: &[(&str, &str)],
) -> (u16, String) {
    let mut request = http().get(format!("{}{path}", server.base_url()));
    for (k, v) in headers {
        request = request.header(*k, *v);
    }
    let response = request.send().await.unwrap();
    no_cookie(&response);
    (response.status().as_u16(), response.text().await.unwrap())
}

pub(super) async fn post(
    server: &ServerHandle,
    path: &str,
    headers: &[(&str, &str)],
    body: Value,
) -> (u16, Value) {
    let mut request = http()
        .post(format!("{}{path}", server.base_url()))
        .header("content-type", "application/json")
        .body(body.to_string());
    for (k, v) in headers {
        request = request.header(*k, *v);
    }
    let response = request.send().await.unwrap();
    no_cookie(&response);
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

pub(super) const API_GETS: [&str; 2] = [
    "/console/api/state",
    "/console/api/runs/r-000000000000/events",
];
pub(super) const API_POSTS: [&str; 2] = ["/console/api/runs", "/console/api/stop_all"];

#[tokio::test]
async fn without_a_session_every_console_route_is_401_and_the_page_holds_no_data() {
    let (server, session) = signed_in(crate::common::options()).await;
    let origin = own_origin(&server);
    for path in API_GETS {
        assert_eq!(get(&server, path, &[]).await.0, 401, "{path}");
    }
    for path in API_POSTS {
        let (status, body) =
            post(&server, path, &[("origin", &origin)], json!({"task": "x"})).await;
        assert_eq!(status, 401, "{path}");
        assert_eq!(body["error"]["code"], "unauthorized");
    }
    let response = http().get(server.base_url()).send().await.unwrap();
    assert_eq!(response.status(), 200);
    no_cookie(&response);
    let csp = response.headers()["content-security-policy"]
        .to_str()
        .unwrap();
    assert!(csp.starts_with("default-src 'self'"), "{csp}");
    let page = response.text().await.unwrap();
    assert!(page.contains("id=\"locked\"") && page.contains("/console/console.js"));
    // The shell is the same with a session: it holds no data of its own.
    let (_, with_session) = get(&server, "/", &[(SESSION, &session)]).await;
    assert_eq!(page, with_session);
    let (status, script) = get(&server, "/console/console.js", &[]).await;
    assert_eq!(status, 200);
    assert!(script.contains("sessionStorage") && !script.contains("document.cookie"));
}

#[tokio::test]
async fn a_code_works_once_and_its_session_header_opens_the_console() {
    let server = crate::common::start(crate::common::options()).await;
    let url = link(&server).await;
    let session = open(&server, &url).await;
    let (status, body) = exchange(&server, code_of(&url)).await;
    assert_eq!(
        (status, &body["error"]["code"]),
        (403, &json!("unauthorized"))
    );
    assert!(body["session"].is_null());
    let (status, body) = get(&server, "/console/api/state", &[(SESSION, &session)]).await;
    assert_eq!(status, 200);
    let state: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(state["status"]["connected"], false);
    assert_eq!(state["runner"]["enabled"], false);
    let reason = state["runner"]["reason"].as_str().unwrap();
    for named in [
        "--provider",
        "BROWSER_BRIDGE_API_KEY",
        "OPENAI_API_KEY",
        "ANTHROPIC_API_KEY",
    ] {
        assert!(reason.contains(named), "{named} not in {reason}");
    }
    // Without a model the task box refuses runs, after checking the task.
    let origin = own_origin(&server);
    let headers = [(SESSION, session.as_str()), ("origin", origin.as_str())];
    let (status, body) = post(&server, "/console/api/runs", &headers, json!({"task": " "})).await;
    assert_eq!(
        (status, &body["error"]["code"]),
        (422, &json!("invalid_request"))
    );
    let (status, _) = post(
        &server,
        "/console/api/runs",
        &headers,
        json!({"task": "go"}),
    )
    .await;
    assert_eq!(status, 503);
    // The link endpoint itself needs the token; the old cookie door is gone.
    let response = http()
        .post(format!("{}/v1/console/link", server.base_url()))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 401);
    let url = link(&server).await;
    let (status, _) = get(
        &server,
        &format!("/console/open?code={}", code_of(&url)),
        &[],
    )
    .await;
    assert_eq!(status, 404);
    open(&server, &url).await;
}

#[tokio::test]
async fn a_session_sent_as_a_cookie_or_to_another_serve_is_refused() {
    let (server, session) = signed_in(crate::common::options()).await;
    let (other, other_session) = signed_in(crate::common::options()).await;
    assert_ne!(session, other_session);
    let origin = own_origin(&server);
    for cookie in [
        format!("bb_console={session}"),
        format!("{SESSION}={session}"),
        session.clone(),
    ] {
        let (status, _) = get(&server, "/console/api/state", &[("cookie", &cookie)]).await;
        assert_eq!(status, 401, "{cookie}");
        let headers = [("cookie", cookie.as_str()), ("origin", origin.as_str())];
        let (status, _) = post(&server, "/console/api/stop_all", &headers, json!({})).await;
        assert_eq!(status, 401, "{cookie}");
    }
    // A session is only good at the serve that issued it.
    let (status, _) = get(&other, "/console/api/state", &[(SESSION, &session)]).await;
    assert_eq!(status, 401);
    let (status, _) = get(&server, "/console/api/state", &[(SESSION, &other_session)]).await;
    assert_eq!(status, 401);
    let (status, _) = get(&other, "/console/api/state", &[(SESSION, &other_session)]).await;
    assert_eq!(status, 200);
    // Nor is another serve's code.
    let url = link(&server).await;
    assert_eq!(exchange(&other, code_of(&url)).await.0, 403);
    open(&server, &url).await;
}

#[tokio::test]
async fn made_up_codes_and_sessions_are_refused_and_pending_codes_are_capped() {
    let server = crate::common::start(crate::common::options()).await;
    let origin = own_origin(&server);
    for body in [
        json!({"code": "0".repeat(32)}),
        json!({"code": ""}),
        json!({}),
        json!("code"),
    ] {
        let (status, _) = post(
            &server,
            "/console/api/session",
            &[("origin", &origin)],
            body.clone(),
        )
        .await;
        assert_eq!(status, 403, "{body}");
    }
    for forged in ["ab".repeat(32), String::new(), "x".to_owned()] {
        assert_eq!(
            get(&server, "/console/api/state", &[(SESSION, &forged)])
                .await
                .0,
            401,
            "{forged:?}"
        );
    }
    // Four codes pending at most: a fifth is refused, the four still work.
    let mut links = Vec::new();
    for _ in 0..4 {
        links.push(link(&server).await);
    }
    let fifth = http()
        .post(format!("{}/v1/console/link", server.base_url()))
        .bearer_auth(&server.token)
        .send()
        .await
        .unwrap();
    assert_eq!(fifth.status(), 429);
    // So does the `console` command, without calling it a usage error.
    let output = console_command(&server).await;
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("pending"), "{stderr}");
    for url in links {
        open(&server, &url).await;
    }
}

#[tokio::test]
async fn the_token_in_a_url_is_accepted_nowhere() {
    let (server, _) = signed_in(crate::common::options()).await;
    let token = server.token.clone();
    for path in ["/v1/status", "/console/api/state"] {
        for key in ["token", "access_token", "code", "session"] {
            let (status, _) = get(&server, &format!("{path}?{key}={token}"), &[]).await;
            assert_eq!(status, 401, "{path}?{key}=");
        }
    }
    assert_eq!(exchange(&server, &token).await.0, 403);
    let (status, _) = get(&server, "/console/api/state", &[(SESSION, &token)]).await;
    assert_eq!(status, 401);
    let (status, _) = post(
        &server,
        &format!("/v1/console/link?token={token}"),
        &[],
        json!({}),
    )
    .await;
    assert_eq!(status, 401);
}

#[tokio::test]
async fn foreign_origins_and_rebinding_hosts_are_refused() {
    let (server, session) = signed_in(crate::common::options()).await;
    let port = server.addr.port();
    let other_port = format!("http://127.0.0.1:{}", port.wrapping_add(1));
    let own_localhost = format!("http://localhost:{port}");
    let url = link(&server).await;
    let code = code_of(&url).to_owned();
    // CSRF: a POST from another page, or with no Origin at all.
    for path in API_POSTS {
        for origin in ["http://evil.test", "null", &other_port, &own_localhost] {
            let headers = [(SESSION, session.as_str()), ("origin", origin)];
            let (status, _) = post(&server, path, &headers, json!({"task": "x"})).await;
            assert_eq!(status, 403, "{path} from {origin}");
        }
        let (status, _) = post(&server, path, &[(SESSION, &session)], json!({"task": "x"})).await;
        assert_eq!(status, 403, "{path} without Origin");
    }
    for origin in ["http://evil.test", "null", &other_port, &own_localhost] {
        let (status, _) = post(
            &server,
            "/console/api/session",
            &[("origin", origin)],
            json!({ "code": code }),
        )
        .await;
        assert_eq!(status, 403, "session from {origin}");
    }
    let (status, _) = post(
        &server,
        "/console/api/session",
        &[],
        json!({ "code": code }),
    )
    .await;
    assert_eq!(status, 403, "session without Origin");
    let (status, _) = get(
        &server,
        "/console/api/state",
        &[(SESSION, &session), ("origin", "http://evil.test")],
    )
    .await;
    assert_eq!(status, 403);
    // DNS rebinding: the page of evil.test, now resolving to 127.0.0.1, sends its own Host.
    let rebound = format!("evil.test:{port}");
    for path in ["/", "/console/api/state", "/console/console.js"] {
        let (status, body) = get(
            &server,
            path,
            &[(HOST.as_str(), &rebound), (SESSION, &session)],
        )
        .await;
        if path.ends_with(".js") {
            // A static asset with no data: served to anyone.
            assert_eq!(status, 200, "{path}");
        } else {
            assert_eq!(status, 403, "{path}: {body}");
        }
    }
    let rebound_origin = format!("http://{rebound}");
    let (status, _) = post(
        &server,
        "/console/api/session",
        &[
            (HOST.as_str(), &rebound),
            (ORIGIN.as_str(), &rebound_origin),
        ],
        json!({ "code": code }),
    )
    .await;
    assert_eq!(status, 403);
    // The refused requests did not spend the code.
    open(&server, &url).await;
    // The console's own origin is fine.
    let origin = own_origin(&server);
    let (status, _) = post(
        &server,
        "/console/api/stop_all",
        &[(SESSION, &session), (ORIGIN.as_str(), &origin)],
        json!({}),
    )
    .await;
    assert_eq!(status, 200);
}

async fn console_command(server: &ServerHandle) -> std::process::Output {
    tokio::process::Command::new(BIN)
        .args(["console", "--server", &server.base_url(), "--config-dir"])
        .arg(&server.config_dir)
        .output()
        .await
        .unwrap()
}

#[tokio::test]
async fn the_console_command_prints_a_link_that_opens_once() {
    let server = crate::common::start(crate::common::options()).await;
    let output = console_command(&server).await;
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let url = String::from_utf8(output.stdout).unwrap().trim().to_owned();
    assert!(
        url.starts_with(&format!("{}/#code=", server.base_url())),
        "{url}"
    );
    assert!(!url.contains(&*server.token));
    open(&server, &url).await;
    assert_eq!(exchange(&server, code_of(&url)).await.0, 403);
}

#[test]
fn help_lists_console_and_serve_names_the_key_variables() {
    let help = |args: &[&str]| {
        let output = std::process::Command::new(BIN).args(args).output().unwrap();
        assert!(output.status.success());
        String::from_utf8(output.stdout).unwrap()
    };
    let top = help(&["--help"]);
    let summary = top.lines().next().unwrap();
    assert!(summary.contains(" console,"), "{summary}");
    assert!(top.contains("\n  console "), "{top}");
    let serve = help(&["serve", "--help"]);
    for variable in [
        "BROWSER_BRIDGE_API_KEY",
        "OPENAI_API_KEY",
        "ANTHROPIC_API_KEY",
    ] {
        assert!(serve.contains(variable), "{variable} not in serve --help");
    }
}
