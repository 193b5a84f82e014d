//! `GET /v1/hello?nonce=N`, the server's side (PROTOCOL.md §2.1): answer with a
//! proof that this server knows the pairing token, before an HTTP client sends it.
//! The client's side is [`crate::client::hello`].
//!
//! The route needs no token (the client may not send it yet) but sits behind the
//! same Origin/Host guard as the other `/v1` routes: 403 for a web `Origin` or a
//! non-loopback `Host`. A missing or malformed nonce is 400 `invalid_request`
//! naming `nonce`. The proof also covers this server's end of the connection, so
//! a program that relays the request from another port gets a proof its client
//! refuses. Anyone local may ask for proofs: the label keeps them apart from
//! the WebSocket handshake's proofs, and a proof says nothing about the token.

use axum::Extension;
use axum::Router;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use browser_bridge_protocol::auth::{self, HELLO_PATH, HelloAnswer};
use browser_bridge_protocol::{BridgeError, PROTOCOL_VERSION};
use serde::Deserialize;

use crate::server::accept::LocalAddr;
use crate::server::http_api::{error_response, local_refusal};
use crate::server::state::AppState;

/// `GET /v1/hello` behind the Origin/Host guard (no bearer token), to be merged
/// into the server's router.
pub fn routes(state: &AppState) -> Router<AppState> {
    Router::new()
        .route(HELLO_PATH, get(hello))
        .route_layer(axum::middleware::from_fn_with_state(
            state.clone(),
            require_local,
        ))
}

/// `http_api`'s guard without the bearer step: the client proves the server
/// before it sends the token.
async fn require_local(State(state): State<AppState>, request: Request, next: Next) -> Response {
    match local_refusal(&state, request.headers()) {
        Some(refused) => refused,
        None => next.run(request).await,
    }
}

/// The query of `GET /v1/hello`.
#[derive(Debug, Deserialize)]
pub struct HelloQuery {
    /// 16–128 base64url characters, fresh for each request.
    pub nonce: Option<String>,
}

/// `GET /v1/hello?nonce=N` → 200 [`HelloAnswer`], or 400 `invalid_request`
/// naming `nonce` when it is missing or not 16–128 base64url characters.
pub async fn hello(
    State(state): State<AppState>,
    local: Option<Extension<LocalAddr>>,
    query: Result<Query<HelloQuery>, QueryRejection>,
) -> Response {
    let nonce = match query {
        Ok(Query(HelloQuery { nonce: Some(nonce) })) => nonce,
        Ok(Query(HelloQuery { nonce: None })) => {
            return bad_request(
                "nonce: missing: call GET /v1/hello?nonce=<16 to 128 base64url characters>".into(),
            );
        }
        Err(rejection) => return bad_request(format!("nonce: {}", rejection.body_text())),
    };
    if let Err(error) = auth::check_http_nonce(&nonce) {
        return error_response(StatusCode::BAD_REQUEST, error);
    }
    let Some(Extension(LocalAddr(local))) = local else {
        // Served outside the accept loop: no address to prove over.
        return error_response(
            StatusCode::INTERNAL_SERVER_ERROR,
            BridgeError::internal("the connection's local address is unknown"),
        );
    };
    let answer = HelloAnswer {
        protocol_version: PROTOCOL_VERSION,
        proof: auth::server_proof(&state.token, &nonce, &local.to_string()),
    };
    let mut response = axum::Json(answer).into_response();
    // A proof is for one nonce; nothing on the way should keep it.
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

fn bad_request(message: String) -> Response {
    error_response(
        StatusCode::BAD_REQUEST,
        BridgeError::invalid_request(message),
    )
}
