//! A browser's runs (PROTOCOL.md §2 `browserRunId`, §5 "Clients"): a fake
//! extension connects again with the same `clientId`, first with the same run
//! (a worker restart: the client's current tab is still filled in), then with
//! another while that connection is open (a second browser sharing the
//! `clientId`: nothing is forgotten), then with another after its connection
//! ended (a browser restart: its tabIds are a new process's, so the backend
//! sends the client's next action without `tabId`, for the extension's rules).

use serde_json::{Value, json};

use super::calls::{joined, next_request};
use super::http::HttpApi;
use super::{ANSWER_WAIT, BackendTarget, ClientSocket, client_id, connect_with};
use crate::fake::FakeExtension;
use crate::report::{Outcome, Report, ensure};
use crate::wire::{short, str_field};

/// Runs the check and records it.
pub(super) async fn run(target: &BackendTarget, report: &mut Report) {
    let api = HttpApi::new(&target.http_base, &target.token);
    report.record(
        "browsers: a new browserRunId after the connection ended forgets the clients' tabs; \
         the same one, or one replacing an open connection, keeps them",
        runs(target, &api).await,
    );
}

async fn runs(target: &BackendTarget, api: &HttpApi) -> Outcome {
    let browser = client_id();
    let me = format!("conformance-runs-{}", &client_id()[..8]);
    let connect = |run: &str| {
        let fake = FakeExtension::new(&target.ws_url, &target.token)
            .client_id(&browser)
            .browser_name(format!("Runs {}", &browser[..8]))
            .browser_run_id(run);
        connect_with(target, fake)
    };
    let (first, second, copied) = (client_id(), client_id(), client_id());
    let (mut socket, _) = connect(&first).await?;
    let open = json!({"action": "open_tab", "url": "about:blank", "browser": browser});
    let opened = json!({"action": "open_tab", "tabId": 41, "windowId": 2,
                        "url": "about:blank", "title": ""});
    sent(api, &me, open, &mut socket, opened).await?;
    let evaluate = json!({"action": "evaluate", "expression": "return 1", "browser": browser});
    let answer = json!({"action": "evaluate", "tabId": 41, "type": "number", "value": 1});
    let kept = |request: &Value, after: &str| {
        ensure(request.get("tabId") == Some(&json!(41)), || {
            format!(
                "{after}, the client's evaluate was sent without its current tab 41: {}",
                short(request)
            )
        })
    };
    // The worker restarted: the connection ended, the same run came back.
    gone(api, &mut socket, &browser).await?;
    let (mut socket, _) = connect(&first).await?;
    let again = sent(api, &me, evaluate.clone(), &mut socket, answer.clone()).await?;
    kept(&again, "after a reconnect with the same browserRunId")?;
    // Another run while that connection is open: a second browser with the
    // same clientId (a copied profile) replaces it; not a restart.
    let (mut other, _) = connect(&copied).await?;
    let copy = sent(api, &me, evaluate.clone(), &mut other, answer.clone()).await?;
    kept(
        &copy,
        "after another browserRunId replaced an open connection",
    )?;
    // The browser restarted: its connection ended, another run came.
    gone(api, &mut other, &browser).await?;
    let (mut socket, _) = connect(&second).await?;
    let fresh = sent(api, &me, evaluate, &mut socket, answer).await?;
    let outcome = ensure(fresh.get("tabId").is_none(), || {
        format!(
            "after a reconnect with another browserRunId, the client's evaluate was sent \
             with the last run's tab: {}",
            short(&fresh)
        )
    });
    socket.close_in_place().await;
    outcome
}

/// Closes `socket` and waits until `/v1/status` no longer lists the browser
/// `client_id` (the backend saw the connection end).
async fn gone(api: &HttpApi, socket: &mut ClientSocket, client_id: &str) -> Outcome {
    socket.close_in_place().await;
    let until = tokio::time::Instant::now() + ANSWER_WAIT;
    loop {
        let (_, status) = api.status().await?;
        let listed = status["browsers"]
            .as_array()
            .is_some_and(|list| list.iter().any(|b| b["clientId"] == client_id));
        if !listed {
            return Ok(());
        }
        if tokio::time::Instant::now() > until {
            return Err(format!(
                "the backend still lists browser {client_id} {ANSWER_WAIT:?} after its socket closed"
            ));
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}

/// Posts `action` as `client`, answers its request on `socket` with `result`,
/// expects HTTP 200, and returns the action as sent.
async fn sent(
    api: &HttpApi,
    client: &str,
    action: Value,
    socket: &mut ClientSocket,
    result: Value,
) -> Result<Value, String> {
    let task = {
        let (api, client) = (api.clone(), client.to_owned());
        tokio::spawn(async move { api.act_as(&client, &action).await })
    };
    let request = match next_request(socket, ANSWER_WAIT).await {
        Ok(request) => request,
        Err(e) => {
            let answer = joined(task).await;
            return Err(format!("{e}; the HTTP answer: {answer:?}"));
        }
    };
    let id = str_field(&request, "id")?.to_owned();
    socket
        .send(&json!({"type": "response", "id": id, "result": result}))
        .await?;
    let (status, body) = joined(task).await?;
    ensure(status == 200, || format!("HTTP {status} {}", short(&body)))?;
    Ok(request["action"].clone())
}
