//! Console runs over SSE with a runner that reports steps: one at a time,
//! late readers get every event, Stop all ends a run that would go on.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use browser_bridge_backend::ExtensionHub;
use browser_bridge_backend::console::{RunSink, TaskRunner};
use browser_bridge_backend::server::{ServeOptions, ServerHandle};
use serde_json::{Value, json};

use super::{SESSION, get, http, own_origin, post, signed_in};

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
async fn events(server: &ServerHandle, session: &str, id: &str) -> Vec<(String, Value)> {
    let mut response = http()
        .get(format!(
            "{}/console/api/runs/{id}/events",
            server.base_url()
        ))
        .header(SESSION, session)
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
    let (server, session) = signed_in(opts).await;
    let origin = own_origin(&server);
    let headers = [(SESSION, session.as_str()), ("origin", origin.as_str())];
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
        let seen = events(&server, &session, &id).await;
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
            &[(SESSION, &session)]
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
    let (server, session) = signed_in(opts).await;
    let origin = own_origin(&server);
    let headers = [(SESSION, session.as_str()), ("origin", origin.as_str())];
    let (_, body) = post(&server, "/console/api/runs", &headers, json!({"task": "t"})).await;
    let id = body["id"].as_str().unwrap().to_owned();
    let reader = {
        let (server_ref, session, id) = (ServerRef(server.base_url()), session.clone(), id.clone());
        tokio::spawn(async move { server_ref.events(&session, &id).await })
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
    async fn events(&self, session: &str, id: &str) -> Vec<(String, Value)> {
        let mut response = http()
            .get(format!("{}/console/api/runs/{id}/events", self.0))
            .header(SESSION, session)
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
