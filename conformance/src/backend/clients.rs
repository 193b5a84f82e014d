//! Clients (PROTOCOL.md §3, §5 "Clients") through the backend's HTTP API: each
//! client's current tab, and the `client` every request names.

use serde_json::{Value, json};

use super::calls::{evaluate, joined, next_request};
use super::http::{HttpAnswer, HttpApi};
use super::{ANSWER_WAIT, ClientSocket, client_id};
use crate::report::{Outcome, ensure};
use crate::wire::{expect_error, short, str_field};

/// Posts `action` as `client`, answers its request frame with `result` (when the
/// frame passes `check`), and returns the HTTP answer.
async fn acted_as(
    socket: &mut ClientSocket,
    api: &HttpApi,
    client: &str,
    action: Value,
    check: impl FnOnce(&Value) -> Outcome,
    result: Value,
) -> Result<HttpAnswer, String> {
    let task = {
        let (api, client) = (api.clone(), client.to_owned());
        tokio::spawn(async move { api.act_as(&client, &action).await })
    };
    let request = next_request(socket, ANSWER_WAIT).await?;
    let id = str_field(&request, "id")?.to_owned();
    let checked = check(&request["action"]);
    socket
        .send(&json!({"type": "response", "id": id, "result": result}))
        .await?;
    checked?;
    joined(task).await
}

/// §5 "Clients": after `open_tab` answered tab 41 for client a, a's `evaluate`
/// without tabId is sent with tabId 41; client b's is sent without one; a bad
/// client name is HTTP 422 `invalid_request`.
pub(super) async fn current_tab_per_client(socket: &mut ClientSocket, api: &HttpApi) -> Outcome {
    let (a, b) = (
        format!("conformance-a-{}", &client_id()[..8]),
        format!("conformance-b-{}", &client_id()[..8]),
    );
    let opened = json!({"action": "open_tab", "tabId": 41, "windowId": 2,
                        "url": "about:blank", "title": ""});
    acted_as(
        socket,
        api,
        &a,
        json!({"action": "open_tab", "url": "about:blank"}),
        |_| Ok(()),
        opened,
    )
    .await?;
    let answer =
        |tab: u64| json!({"action": "evaluate", "tabId": tab, "type": "number", "value": 1});
    let (status, body) = acted_as(
        socket,
        api,
        &a,
        evaluate("return 1"),
        |action| {
            ensure(action.get("tabId") == Some(&json!(41)), || {
                format!(
                    "client a's evaluate was sent without its current tab 41: {}",
                    short(action)
                )
            })
        },
        answer(41),
    )
    .await?;
    ensure(status == 200, || {
        format!("client a: HTTP {status} {}", short(&body))
    })?;
    // b has no tab, and the only session the backend knows of is a's (this
    // extension never announced it): b is answered at once, nothing is sent.
    let (status, body) = api.act_as(&b, &evaluate("return 1")).await?;
    expect_error(&body["error"], "session_not_found").map_err(|e| {
        format!(
            "client b, with no tab, got HTTP {status} {}: {e}",
            short(&body)
        )
    })?;
    let (status, body) = api.act_as("two words", &evaluate("return 1")).await?;
    ensure(status == 422, || {
        format!(
            "a bad client name: HTTP {status} {}, expected 422",
            short(&body)
        )
    })?;
    expect_error(&body["error"], "invalid_request")
}

/// §3: a request for an HTTP caller named by `Browser-Bridge-Client` carries
/// that name as `client`; one without the header carries `http`. (`list_tabs`:
/// it needs no tab, so a client without one is not refused before sending.)
pub(super) async fn request_names_its_client(socket: &mut ClientSocket, api: &HttpApi) -> Outcome {
    let named = format!("conformance-n-{}", &client_id()[..8]);
    for client in [Some(named.as_str()), None] {
        let task = {
            let (api, client) = (api.clone(), client.map(str::to_owned));
            tokio::spawn(async move {
                let list = json!({"action": "list_tabs"});
                match client {
                    Some(client) => api.act_as(&client, &list).await,
                    None => api.act(&list).await,
                }
            })
        };
        let request = next_request(socket, ANSWER_WAIT).await?;
        let id = str_field(&request, "id")?.to_owned();
        socket
            .send(&json!({"type": "response", "id": id,
                          "result": {"action": "list_tabs", "tabs": []}}))
            .await?;
        let (status, body) = joined(task).await?;
        ensure(status == 200, || {
            format!("list_tabs: HTTP {status} {}", short(&body))
        })?;
        let expected = json!(client.unwrap_or("http"));
        ensure(request.get("client") == Some(&expected), || {
            format!(
                "a request of client {expected} names {}: {}",
                request.get("client").unwrap_or(&Value::Null),
                short(&request)
            )
        })?;
    }
    Ok(())
}
