//! The local console's guard over a real socket, playing the attacker: no
//! cookie → 401 on every console API route and no data on `/`; a link's code
//! works once; made-up codes and cookies, the token in a URL, a foreign
//! `Origin` and a rebinding `Host` are all refused. Then runs over SSE with a
//! runner that reports steps, one at a time, and Stop all ending one.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use browser_bridge_backend::ExtensionHub;
use browser_bridge_backend::console::{RunSink, TaskRunner};
use browser_bridge_backend::server::{ServeOptions, ServerHandle};
use reqwest::header::{COOKIE, HOST, ORIGIN};
use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_browser-bridge");

/// A client that shows redirects instead of following them.
fn http() -> reqwest::Client {
    reqwest::Client::builder()
        .no_proxy()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}

async fn link(server: &ServerHandle) -> String {
    let response = http()
        .post(format!("{}/v1/console/link", server.base_url()))
        .bearer_auth(&server.token)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["expiresInMs"], 60000);
    let path = body["path"].as_str().unwrap();
    let code = path.strip_prefix("/console/open?code=").unwrap();
    assert_eq!(code.len(), 32, "128 random bits in hex");
    format!("{}{path}", server.base_url())
}

/// Opens `url`; the `bb_console=…` pair of its `Set-Cookie`, checked for its attributes.
async fn open(url: &str) -> String {
    let response = http().get(url).send().await.unwrap();
    assert_eq!(response.status(), 303);
    assert_eq!(response.headers()["location"], "/");
    let cookie = response.headers()["set-cookie"]
        .to_str()
        .unwrap()
        .to_owned();
    let attributes: Vec<&str> = cookie.split(';').map(str::trim).collect();
    assert!(attributes[0].starts_with("bb_console="), "{cookie}");
    assert_eq!(attributes[0].len(), "bb_console=".len() + 64);
    for wanted in ["HttpOnly", "SameSite=Strict", "Path=/"] {
        assert!(attributes.contains(&wanted), "{wanted} missing in {cookie}");
    }
    attributes[0].to_owned()
}

async fn signed_in(opts: ServeOptions) -> (ServerHandle, String) {
    let server = crate::common::start(opts).await;
    let cookie = open(&link(&server).await).await;
    (server, cookie)
}

fn own_origin(server: &ServerHandle) -> String {
    server.base_url()
}

async fn get(server: &ServerHandle, path: &str, headers: &[(&str, &str)]) -> (u16, String) {
    let mut request = http().get(format!("{}{path}", server.base_url()));
    for (k, v) in headers {
        request = request.header(*k, *v);
    }
    let response = request.send().await.unwrap();
    (response.status().as_u16(), response.text().await.unwrap())
}

async fn post(
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
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

const API_GETS: [&str; 2] = [
    "/console/api/state",
    "/console/api/runs/r-000000000000/events",
];
const API_POSTS: [&str; 2] = ["/console/api/runs", "/console/api/stop_all"];

#[tokio::test]
async fn without_a_cookie_every_console_route_is_401_and_the_page_shows_nothing() {
    let server = crate::common::start(crate::common::options()).await;
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
    let csp = response.headers()["content-security-policy"]
        .to_str()
        .unwrap();
    assert!(csp.starts_with("default-src 'self'"), "{csp}");
    let page = response.text().await.unwrap();
    assert!(page.contains("browser-bridge console"), "{page}");
    assert!(
        !page.contains("console.js") && !page.contains("stop-all"),
        "{page}"
    );
}

#[tokio::test]
async fn a_code_works_once_and_its_cookie_opens_the_console() {
    let server = crate::common::start(crate::common::options()).await;
    let url = link(&server).await;
    let cookie = open(&url).await;
    // Second use: refused, no cookie.
    let again = http().get(&url).send().await.unwrap();
    assert_eq!(again.status(), 403);
    assert!(again.headers().get("set-cookie").is_none());
    let (status, page) = get(&server, "/", &[("cookie", &cookie)]).await;
    assert_eq!(status, 200);
    assert!(page.contains("id=\"stop-all\"") && page.contains("/console/console.js"));
    let (status, body) = get(&server, "/console/api/state", &[("cookie", &cookie)]).await;
    assert_eq!(status, 200);
    let state: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(state["status"]["connected"], false);
    assert_eq!(state["runner"]["enabled"], false);
    assert!(
        state["runner"]["reason"]
            .as_str()
            .unwrap()
            .contains("--provider")
    );
    // Without a model the task box refuses runs, after checking the task.
    let origin = own_origin(&server);
    let headers = [("cookie", cookie.as_str()), ("origin", origin.as_str())];
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
    // The link endpoint itself needs the token.
    let response = http()
        .post(format!("{}/v1/console/link", server.base_url()))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 401);
}

#[tokio::test]
async fn made_up_codes_and_cookies_are_refused_and_pending_codes_are_capped() {
    let server = crate::common::start(crate::common::options()).await;
    for path in [
        format!("/console/open?code={}", "0".repeat(32)),
        "/console/open?code=".to_owned(),
        "/console/open".to_owned(),
    ] {
        assert_eq!(get(&server, &path, &[]).await.0, 403, "{path}");
    }
    let forged = format!("bb_console={}", "ab".repeat(32));
    assert_eq!(
        get(&server, "/console/api/state", &[("cookie", &forged)])
            .await
            .0,
        401
    );
    let (_, page) = get(&server, "/", &[("cookie", &forged)]).await;
    assert!(!page.contains("stop-all"));
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
    for url in links {
        open(&url).await;
    }
}

#[tokio::test]
async fn the_token_in_a_url_is_accepted_nowhere() {
    let (server, _) = signed_in(crate::common::options()).await;
    let token = server.token.clone();
    for path in ["/v1/status", "/console/api/state"] {
        for key in ["token", "access_token", "code"] {
            let (status, _) = get(&server, &format!("{path}?{key}={token}"), &[]).await;
            assert_eq!(status, 401, "{path}?{key}=");
        }
    }
    let (_, page) = get(&server, &format!("/?token={token}"), &[]).await;
    assert!(!page.contains("stop-all"));
    assert_eq!(
        get(&server, &format!("/console/open?code={token}"), &[])
            .await
            .0,
        403
    );
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
    let (server, cookie) = signed_in(crate::common::options()).await;
    let port = server.addr.port();
    let other_port = format!("http://127.0.0.1:{}", port.wrapping_add(1));
    let own_localhost = format!("http://localhost:{port}");
    // CSRF: a POST from another page, or with no Origin at all.
    for path in API_POSTS {
        for origin in ["http://evil.test", "null", &other_port, &own_localhost] {
            let headers = [("cookie", cookie.as_str()), ("origin", origin)];
            let (status, _) = post(&server, path, &headers, json!({"task": "x"})).await;
            assert_eq!(status, 403, "{path} from {origin}");
        }
        let (status, _) = post(&server, path, &[("cookie", &cookie)], json!({"task": "x"})).await;
        assert_eq!(status, 403, "{path} without Origin");
    }
    let (status, _) = get(
        &server,
        "/console/api/state",
        &[("cookie", &cookie), ("origin", "http://evil.test")],
    )
    .await;
    assert_eq!(status, 403);
    // DNS rebinding: the page of evil.test, now resolving to 127.0.0.1, sends its own Host.
    let rebound = format!("evil.test:{port}");
    for path in ["/", "/console/api/state", "/console/open?code=x"] {
        let (status, body) = get(
            &server,
            path,
            &[(HOST.as_str(), &rebound), (COOKIE.as_str(), &cookie)],
        )
        .await;
        assert_eq!(status, 403, "{path}: {body}");
    }
    let url = link(&server).await;
    let path = url.strip_prefix(&server.base_url()).unwrap();
    let (status, _) = get(&server, path, &[(HOST.as_str(), &rebound)]).await;
    assert_eq!(status, 403);
    // The refused request did not spend the code.
    open(&url).await;
    // The console's own origin is fine.
    let origin = own_origin(&server);
    let (status, _) = post(
        &server,
        "/console/api/stop_all",
        &[(COOKIE.as_str(), &cookie), (ORIGIN.as_str(), &origin)],
        json!({}),
    )
    .await;
    assert_eq!(status, 200);
}

/// Reports `steps` steps 20 ms apart, then a report; with `hang`, never ends.
#[derive(Debug)]
struct Steps {
    steps: u32,
    hang: bool,
}

impl TaskRunner for Steps {
    fn run(
        &self,
        _hub: ExtensionHub,
        task: String,
        sink: RunSink,
    ) -> Pin<Box<dyn Future<Output = ()> + Send>> {
        let (steps, hang) = (self.steps, self.hang);
        Box::pin(async move {
            for step in 1..=steps {
                tokio::time::sleep(Duration::from_millis(20)).await;
                sink.step(
                    json!({"event": "tool_call", "step": step, "action": "click", "target": task}),
                );
            }
            if hang {
                std::future::pending::<()>().await;
            }
            sink.done(json!({"event": "final", "success": true, "answer": format!("did {task}")}));
        })
    }
}

/// The SSE stream of run `id` until it ends: `(event, data)` pairs.
async fn events(server: &ServerHandle, cookie: &str, id: &str) -> Vec<(String, Value)> {
    let mut response = http()
        .get(format!(
            "{}/console/api/runs/{id}/events",
            server.base_url()
        ))
        .header("cookie", cookie)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert!(
        response.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/event-stream")
    );
    let mut text = String::new();
    while let Some(chunk) = tokio::time::timeout(Duration::from_secs(10), response.chunk())
        .await
        .expect("stream ends")
        .unwrap()
    {
        text.push_str(&String::from_utf8_lossy(&chunk));
    }
    parse_sse(&text)
}

#[tokio::test]
async fn a_run_streams_its_steps_then_its_report_and_late_readers_get_all() {
    let opts = ServeOptions {
        console_runner: Some(Arc::new(Steps {
            steps: 3,
            hang: false,
        })),
        ..crate::common::options()
    };
    let (server, cookie) = signed_in(opts).await;
    let origin = own_origin(&server);
    let headers = [("cookie", cookie.as_str()), ("origin", origin.as_str())];
    let (status, body) = post(
        &server,
        "/console/api/runs",
        &headers,
        json!({"task": "e7"}),
    )
    .await;
    assert_eq!(status, 202);
    let id = body["id"].as_str().unwrap().to_owned();
    let (status, _) = post(
        &server,
        "/console/api/runs",
        &headers,
        json!({"task": "again"}),
    )
    .await;
    assert_eq!(status, 409, "one run at a time");
    for _ in 0..2 {
        let seen = events(&server, &cookie, &id).await;
        let kinds: Vec<&str> = seen.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(kinds, ["step", "step", "step", "done"]);
        assert_eq!(seen[2].1["step"], 3);
        assert_eq!(seen[3].1["answer"], "did e7");
    }
    assert_eq!(
        get(&server, &format!("/console/api/runs/{id}/events"), &[])
            .await
            .0,
        401
    );
    assert_eq!(
        get(
            &server,
            "/console/api/runs/r-nope/events",
            &[("cookie", &cookie)]
        )
        .await
        .0,
        404
    );
}

#[tokio::test]
async fn stop_all_ends_a_run_that_would_go_on() {
    let opts = ServeOptions {
        console_runner: Some(Arc::new(Steps {
            steps: 1,
            hang: true,
        })),
        ..crate::common::options()
    };
    let (server, cookie) = signed_in(opts).await;
    let origin = own_origin(&server);
    let headers = [("cookie", cookie.as_str()), ("origin", origin.as_str())];
    let (_, body) = post(&server, "/console/api/runs", &headers, json!({"task": "t"})).await;
    let id = body["id"].as_str().unwrap().to_owned();
    let reader = {
        let (server_ref, cookie, id) = (ServerRef(server.base_url()), cookie.clone(), id.clone());
        tokio::spawn(async move { server_ref.events(&cookie, &id).await })
    };
    tokio::time::sleep(Duration::from_millis(200)).await;
    let (status, out) = post(&server, "/console/api/stop_all", &headers, json!({})).await;
    assert_eq!((status, &out["stoppedRuns"]), (200, &json!(1)));
    let seen = reader.await.unwrap();
    let kinds: Vec<&str> = seen.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(kinds, ["step", "error"]);
    assert!(seen[1].1["message"].as_str().unwrap().contains("Stop all"));
    // The next run may start.
    let (status, _) = post(
        &server,
        "/console/api/runs",
        &headers,
        json!({"task": "t2"}),
    )
    .await;
    assert_eq!(status, 202);
}

/// A base URL, so a spawned reader needs no `ServerHandle`.
struct ServerRef(String);

impl ServerRef {
    async fn events(&self, cookie: &str, id: &str) -> Vec<(String, Value)> {
        let mut response = http()
            .get(format!("{}/console/api/runs/{id}/events", self.0))
            .header("cookie", cookie)
            .send()
            .await
            .unwrap();
        let mut text = String::new();
        while let Some(chunk) = tokio::time::timeout(Duration::from_secs(10), response.chunk())
            .await
            .expect("stream ends")
            .unwrap()
        {
            text.push_str(&String::from_utf8_lossy(&chunk));
        }
        parse_sse(&text)
    }
}

fn parse_sse(text: &str) -> Vec<(String, Value)> {
    text.split("\n\n")
        .filter_map(|frame| {
            let event = frame.lines().find_map(|l| l.strip_prefix("event: "))?;
            let data = frame.lines().find_map(|l| l.strip_prefix("data: "))?;
            Some((event.to_owned(), serde_json::from_str(data).unwrap()))
        })
        .collect()
}

#[tokio::test]
async fn the_console_command_prints_a_link_that_opens_once() {
    let server = crate::common::start(crate::common::options()).await;
    let output = tokio::process::Command::new(BIN)
        .args(["console", "--server", &server.base_url(), "--config-dir"])
        .arg(&server.config_dir)
        .output()
        .await
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let url = String::from_utf8(output.stdout).unwrap().trim().to_owned();
    assert!(
        url.starts_with(&format!("{}/console/open?code=", server.base_url())),
        "{url}"
    );
    assert!(!url.contains(&*server.token));
    open(&url).await;
    assert_eq!(http().get(&url).send().await.unwrap().status(), 403);
}
