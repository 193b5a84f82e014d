//! The local console in real Chromium: `serve --provider openai` with a
//! scripted model (a real HTTP server on the OpenAI wire format), a link from
//! `browser-bridge console`, opened in the person's browser; the task typed in
//! the page's box runs the agent, whose steps (it opens a fixture page and
//! clicks its button) and final report stream into the page over SSE; Stop all
//! on the page then ends the agent's session. The page keeps its session in
//! `sessionStorage` and no cookie: a page of another port of 127.0.0.1 opened in
//! the same browser receives nothing of it.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};

use browser_bridge_tests::harness::{Stack, StackOptions};
use serde_json::{Value, json};

use crate::agent_demo::scripted_llm::{Reply, ScriptedLlm, uid_for};

/// Evaluates `body` in the page until it returns `true`, or fails after `wait`
/// showing what `show` returns.
async fn until(stack: &Stack, session: &str, body: &str, show: &str, wait: Duration) {
    let deadline = Instant::now() + wait;
    loop {
        if stack.chromium.eval(session, body).await.expect("eval") == true {
            return;
        }
        if Instant::now() > deadline {
            let shown = stack.chromium.eval(session, show).await.expect("eval");
            panic!(
                "never true: {body}\nthe page shows: {shown}\nbackend log:\n{}",
                stack.backend_log()
            );
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// A plain HTTP server on another port of 127.0.0.1 (as another local user's,
/// or a dev server) that keeps every byte the browser sends it: its URL and
/// what it received.
async fn recording_server() -> (String, Arc<Mutex<Vec<u8>>>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/", listener.local_addr().unwrap());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let kept = seen.clone();
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            let kept = kept.clone();
            tokio::spawn(async move {
                let mut buf = [0u8; 8192];
                let mut request = Vec::new();
                while let Ok(n) = socket.read(&mut buf).await {
                    if n == 0 {
                        break;
                    }
                    request.extend_from_slice(&buf[..n]);
                    kept.lock().unwrap().extend_from_slice(&buf[..n]);
                    if request.windows(4).any(|w| w == b"\r\n\r\n") {
                        let page =
                            "<!doctype html><title>other port</title><p>another local server</p>";
                        let answer = format!(
                            "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{page}",
                            page.len()
                        );
                        let _ = socket.write_all(answer.as_bytes()).await;
                        break;
                    }
                }
            });
        }
    });
    (url, seen)
}

#[tokio::test]
async fn the_console_page_runs_a_task_shows_its_steps_and_stop_all_ends_the_session() {
    let fixtures = browser_bridge_tests::fixtures::StaticServer::start()
        .await
        .expect("fixture server");
    let page = fixtures.url("/console/task.html");
    let llm = ScriptedLlm::start(vec![
        Reply::call(json!({"action": "open_tab", "url": page})),
        Reply::from_request(|request| match uid_for(request, "button", "Mark done") {
            Some(uid) => Reply::call(json!({"action": "click", "uid": uid})),
            None => Reply::call(json!({"action": "extract"})),
        }),
        Reply::from_request(|request| match uid_for(request, "button", "Mark done") {
            Some(uid) => Reply::call(json!({"action": "click", "uid": uid})),
            None => Reply::text("Marked it: the page says Marked by the agent.\nSTATUS: DONE"),
        }),
        Reply::text("Marked it: the page says Marked by the agent.\nSTATUS: DONE"),
    ])
    .await;
    let stack = Stack::start_with(StackOptions {
        serve_args: [
            "--provider",
            "openai",
            "--model",
            "scripted",
            "--base-url",
            &llm.base_url(),
            "--api-key",
            "sk-scripted",
        ]
        .map(str::to_owned)
        .to_vec(),
        ..StackOptions::default()
    })
    .await
    .expect("backend + Chromium + extension");

    // The link, as the person gets it.
    let output = tokio::process::Command::new(stack.backend_bin())
        .args(["console", "--server", &stack.base_url, "--config-dir"])
        .arg(stack.config_dir.path())
        .output()
        .await
        .expect("browser-bridge console");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let link = String::from_utf8(output.stdout).unwrap().trim().to_owned();

    let (_target, session) = stack.chromium.open_page(&link).await.expect("console page");
    let text = "return document.body ? document.body.innerText : document.readyState";
    until(&stack, &session, "return location.pathname === '/' && !document.getElementById('console').hidden && !document.getElementById('run').disabled && document.getElementById('browsers').rows.length === 1", text, Duration::from_secs(20)).await;
    // The code left the address at once; the session sits in sessionStorage, no cookie.
    let kept = stack
        .chromium
        .eval(&session, "return {hash: location.hash, href: location.href, cookie: document.cookie, session: sessionStorage.getItem('browser-bridge-console')}")
        .await
        .expect("read the page");
    assert_eq!(kept["hash"], "", "{kept}");
    assert!(!kept["href"].as_str().unwrap().contains("code"), "{kept}");
    assert_eq!(kept["cookie"], "", "{kept}");
    let console_session = kept["session"].as_str().unwrap_or_default().to_owned();
    assert_eq!(console_session.len(), 64, "{kept}");
    // The link's code is spent.
    let (_target, again) = stack
        .chromium
        .open_page(&link)
        .await
        .expect("the link again");
    until(&stack, &again, "return !document.getElementById('locked').hidden && document.getElementById('console').hidden", text, Duration::from_secs(20)).await;
    // Another server on this host, visited by the same browser, receives no session.
    let (other_url, other_seen) = recording_server().await;
    let (_target, other) = stack
        .chromium
        .open_page(&other_url)
        .await
        .expect("other port");
    until(
        &stack,
        &other,
        "return document.title === 'other port'",
        text,
        Duration::from_secs(20),
    )
    .await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let sent = String::from_utf8_lossy(&other_seen.lock().unwrap()).into_owned();
    assert!(sent.starts_with("GET / HTTP/1.1"), "{sent}");
    for secret in [
        console_session.as_str(),
        "bb_console",
        "browser-bridge-console",
    ] {
        assert!(
            !sent
                .to_ascii_lowercase()
                .contains(&secret.to_ascii_lowercase()),
            "{secret} sent to another port:\n{sent}"
        );
    }
    assert!(!sent.to_ascii_lowercase().contains("\ncookie:"), "{sent}");
    stack
        .chromium
        .eval(&session, "document.getElementById('task-text').value = 'Mark the task done'; document.getElementById('run').click(); return true")
        .await
        .expect("press Run");
    until(
        &stack,
        &session,
        "return !document.getElementById('report').hidden",
        text,
        Duration::from_secs(90),
    )
    .await;
    let shown = stack
        .chromium
        .eval(&session, "return {steps: [...document.querySelectorAll('#steps li')].map(l => l.textContent), report: document.getElementById('report').textContent, tokens: document.getElementById('tokens').textContent}")
        .await
        .expect("read the page");
    let steps: Vec<&str> = shown["steps"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(steps.iter().any(|s| s.contains("open_tab")), "{shown}");
    assert!(steps.iter().any(|s| s.contains("click")), "{shown}");
    assert!(steps.iter().any(|s| s.starts_with("→")), "{shown}");
    let report = shown["report"].as_str().unwrap();
    assert!(
        report.starts_with("Done:") && report.contains("Marked by the agent"),
        "{shown}"
    );
    assert!(
        shown["tokens"].as_str().unwrap().contains("prompt"),
        "{shown}"
    );

    // The click really happened, in the tab the agent opened, a session of client `console`.
    let tabs = stack
        .act(json!({"action": "list_tabs"}))
        .await
        .expect("list_tabs");
    let agent_tab = tabs["tabs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["url"] == json!(page))
        .unwrap_or_else(|| panic!("no agent tab in {tabs}"))
        .clone();
    assert_eq!(agent_tab["session"], true, "{agent_tab}");
    assert_eq!(agent_tab["client"], "console", "{agent_tab}");
    let tab_id = agent_tab["tabId"].as_i64().unwrap();
    let marked = stack
        .eval(
            tab_id,
            "return document.getElementById('state').textContent",
        )
        .await
        .expect("eval");
    assert_eq!(marked, "Marked by the agent.");
    // The page lists the session with its title and client.
    until(
        &stack,
        &session,
        "return document.getElementById('sessions').innerText.includes('Console task')",
        text,
        Duration::from_secs(10),
    )
    .await;

    // Stop all on the page ends the agent's session.
    stack
        .chromium
        .eval(
            &session,
            "document.getElementById('stop-all').click(); return true",
        )
        .await
        .expect("press Stop all");
    until(
        &stack,
        &session,
        "return document.getElementById('steps').innerText.includes('1 tab(s) closed')",
        text,
        Duration::from_secs(20),
    )
    .await;
    let ended = stack
        .wait_event(Duration::from_secs(10), |e| {
            e["event"] == "session_ended" && e["tabId"] == json!(tab_id)
        })
        .await
        .expect("session_ended");
    assert_eq!(ended["reason"], "stopped", "{ended}");
    let status = stack.status().await.expect("status");
    assert!(
        status["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .all(|s| s["tabId"] != json!(tab_id)),
        "{status}"
    );
}
