//! `GET /v1/hello?nonce=N`, the client's side (PROTOCOL.md §2.1): the server proves
//! it knows the pairing token before an HTTP client sends it ([`prove_server`]).
//! The route is [`crate::server::hello`].
//!
//! Why: `act`, `status`, `mcp` and `run` find the server by address only.
//! Whatever holds that port — a program that bound it while `serve` was down, or a
//! `serve` paired with another token — would otherwise receive the bearer token with
//! the first request. So the client first sends a fresh random nonce `N` without
//! any `Authorization` header; the server answers
//! `{"protocolVersion":PROTOCOL_VERSION,"proof":P}` with
//! `P = base64url_nopad(HMAC-SHA256(key = token, "browser-bridge/5 server" ‖ 0x00 ‖ N))`
//! ([`auth::server_proof`]); the client checks `P` in constant time and only then
//! sends `Authorization: Bearer <token>`.

use std::time::Duration;

use browser_bridge_protocol::PROTOCOL_VERSION;
use browser_bridge_protocol::auth::{self, HELLO_PATH, HelloAnswer, NONCE_BYTES};
use rand::RngCore;

/// The longest answer body the client reads: a real one is about 80 bytes.
const MAX_ANSWER_BYTES: usize = 4096;

/// A fresh client nonce: [`NONCE_BYTES`] (32) random bytes as 43 base64url chars.
pub fn fresh_nonce() -> String {
    let mut bytes = [0u8; NONCE_BYTES];
    rand::rng().fill_bytes(&mut bytes);
    auth::encode_nonce(&bytes)
}

/// Why the program at an address is not known to be the `serve` holding the token.
/// In every case the token was not sent.
#[derive(Debug)]
pub enum ProofFailure {
    /// Nothing answered: no connection, or no answer within the timeout.
    Unreachable(reqwest::Error),
    /// Something answered, but not with a valid proof: what it did instead (an
    /// HTTP status, a body that is no hello answer, a wrong proof). Never quotes
    /// the answer itself, which comes from an unknown program.
    Unproven(String),
    /// A `serve` holding the token, but speaking another protocol version.
    OtherVersion(u32),
}

/// Judges an answer to `GET /v1/hello?nonce=<nonce>` for `token` from the server
/// at `address` (the peer the client connected to, as `SocketAddr`'s text):
/// `Ok` only for a 200 whose JSON body is a [`HelloAnswer`] with a proof that
/// verifies (constant time) and `PROTOCOL_VERSION`. Pure, so every refusal is
/// unit-tested.
///
/// # Errors
/// [`ProofFailure::Unproven`] (status, shape or proof wrong) or
/// [`ProofFailure::OtherVersion`] (right proof, other version).
pub fn judge_answer(
    token: &str,
    nonce: &str,
    address: &str,
    status: u16,
    body: &[u8],
) -> Result<(), ProofFailure> {
    if status != 200 {
        return Err(ProofFailure::Unproven(format!(
            "it answered HTTP {status} to GET {HELLO_PATH}"
        )));
    }
    let Ok(answer) = serde_json::from_slice::<HelloAnswer>(body) else {
        return Err(ProofFailure::Unproven(format!(
            "its answer to GET {HELLO_PATH} is not a browser-bridge hello"
        )));
    };
    if !auth::verify_server_proof(token, nonce, address, &answer.proof) {
        return Err(ProofFailure::Unproven("its proof does not match".into()));
    }
    if answer.protocol_version != PROTOCOL_VERSION {
        return Err(ProofFailure::OtherVersion(answer.protocol_version));
    }
    Ok(())
}

/// Asks the program at `base` (`http://host:port`) to prove it knows `token`:
/// `GET <base>/v1/hello?nonce=<fresh nonce>` without `Authorization`, then
/// [`judge_answer`]. Reads at most 4 KiB of answer, within `timeout`.
///
/// # Errors
/// [`ProofFailure::Unreachable`] when no connection is made or nothing answers in
/// time; the other [`ProofFailure`]s as [`judge_answer`], or `Unproven` when what
/// answered does not speak HTTP.
pub async fn prove_server(
    client: &reqwest::Client,
    base: &str,
    token: &str,
    timeout: Duration,
) -> Result<(), ProofFailure> {
    let nonce = fresh_nonce();
    let url = format!("{base}{HELLO_PATH}?nonce={nonce}");
    let mut sent = client.get(&url).timeout(timeout).send().await;
    // A kept-alive connection whose server has gone fails after the request was
    // written; once more, on a fresh connection, tells a gone server (refused)
    // from one that does not speak HTTP.
    if sent
        .as_ref()
        .is_err_and(|e| !(e.is_connect() || e.is_timeout()))
    {
        sent = client.get(&url).timeout(timeout).send().await;
    }
    let mut response = match sent {
        Ok(response) => response,
        Err(e) if e.is_connect() || e.is_timeout() => return Err(ProofFailure::Unreachable(e)),
        Err(_) => {
            return Err(ProofFailure::Unproven(format!(
                "it gave no HTTP answer to GET {HELLO_PATH}"
            )));
        }
    };
    // The proof covers the server's own address: one made for another port
    // (relayed by whatever answered here) fails.
    let Some(address) = response.remote_addr() else {
        return Err(ProofFailure::Unproven(
            "the address it answered from is unknown".into(),
        ));
    };
    let address = address.to_string();
    let status = response.status().as_u16();
    let mut body = Vec::new();
    loop {
        match response.chunk().await {
            Ok(Some(chunk)) if body.len() + chunk.len() <= MAX_ANSWER_BYTES => {
                body.extend_from_slice(&chunk);
            }
            Ok(Some(_)) => {
                return Err(ProofFailure::Unproven(format!(
                    "its answer to GET {HELLO_PATH} is over {MAX_ANSWER_BYTES} bytes"
                )));
            }
            Ok(None) => break,
            Err(e) if e.is_timeout() => return Err(ProofFailure::Unreachable(e)),
            Err(_) => {
                return Err(ProofFailure::Unproven(format!(
                    "its answer to GET {HELLO_PATH} broke off"
                )));
            }
        }
    }
    judge_answer(token, &nonce, &address, status, &body)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOKEN: &str = "pairing-token-of-the-serve";
    const AT: &str = "127.0.0.1:9444";

    fn answer(version: u32, proof: &str) -> Vec<u8> {
        serde_json::to_vec(&HelloAnswer {
            protocol_version: version,
            proof: proof.to_owned(),
        })
        .unwrap()
    }

    fn unproven(result: Result<(), ProofFailure>) -> String {
        match result {
            Err(ProofFailure::Unproven(detail)) => detail,
            other => panic!("expected Unproven, got {other:?}"),
        }
    }

    #[test]
    fn fresh_nonces_are_43_base64url_chars_and_differ() {
        let (a, b) = (fresh_nonce(), fresh_nonce());
        assert_eq!(a.len(), 43);
        assert!(auth::check_http_nonce(&a).is_ok(), "{a}");
        assert_ne!(a, b);
    }

    #[test]
    fn the_right_proof_and_version_pass() {
        let nonce = fresh_nonce();
        let body = answer(PROTOCOL_VERSION, &auth::server_proof(TOKEN, &nonce, AT));
        assert!(judge_answer(TOKEN, &nonce, AT, 200, &body).is_ok());
    }

    #[test]
    fn a_proof_for_another_token_nonce_or_label_is_refused() {
        let nonce = fresh_nonce();
        // A serve paired with another token.
        let other_token = answer(PROTOCOL_VERSION, &auth::server_proof("other", &nonce, AT));
        assert_eq!(
            unproven(judge_answer(TOKEN, &nonce, AT, 200, &other_token)),
            "its proof does not match"
        );
        // A proof replayed from an earlier nonce.
        let replayed = answer(
            PROTOCOL_VERSION,
            &auth::server_proof(TOKEN, &fresh_nonce(), AT),
        );
        assert!(judge_answer(TOKEN, &nonce, AT, 200, &replayed).is_err());
        // The WebSocket handshake's backend proof is no server proof.
        let handshake = answer(
            PROTOCOL_VERSION,
            &auth::backend_proof(TOKEN, &nonce, &fresh_nonce()),
        );
        assert!(judge_answer(TOKEN, &nonce, AT, 200, &handshake).is_err());
        // An empty or non-base64 proof.
        assert!(judge_answer(TOKEN, &nonce, AT, 200, &answer(PROTOCOL_VERSION, "")).is_err());
        assert!(judge_answer(TOKEN, &nonce, AT, 200, &answer(PROTOCOL_VERSION, "*")).is_err());
    }

    #[test]
    fn a_proof_made_at_another_address_is_refused() {
        // What a program relaying GET /v1/hello to the real serve gets back.
        let nonce = fresh_nonce();
        for elsewhere in ["127.0.0.1:9445", "[::1]:9444", "127.0.0.2:9444"] {
            let relayed = answer(
                PROTOCOL_VERSION,
                &auth::server_proof(TOKEN, &nonce, elsewhere),
            );
            assert_eq!(
                unproven(judge_answer(TOKEN, &nonce, AT, 200, &relayed)),
                "its proof does not match"
            );
        }
    }

    #[test]
    fn a_missing_proof_is_refused() {
        let nonce = fresh_nonce();
        let proof = auth::server_proof(TOKEN, &nonce, AT);
        assert_eq!(
            unproven(judge_answer(TOKEN, &nonce, AT, 404, b"not found")),
            "it answered HTTP 404 to GET /v1/hello"
        );
        // Even a right proof counts only with 200.
        assert!(judge_answer(TOKEN, &nonce, AT, 401, &answer(PROTOCOL_VERSION, &proof)).is_err());
        for garbage in [
            &b"<html>hello</html>"[..],
            b"",
            b"{}",
            br#"{"protocolVersion":4}"#,
            br#"{"proof":"x"}"#,
            br#"{"protocolVersion":"4","proof":"x"}"#,
        ] {
            assert_eq!(
                unproven(judge_answer(TOKEN, &nonce, AT, 200, garbage)),
                "its answer to GET /v1/hello is not a browser-bridge hello",
                "{}",
                String::from_utf8_lossy(garbage)
            );
        }
    }

    #[test]
    fn another_protocol_version_is_refused_after_the_proof() {
        let nonce = fresh_nonce();
        let proof = auth::server_proof(TOKEN, &nonce, AT);
        let older = answer(PROTOCOL_VERSION - 1, &proof);
        assert!(matches!(
            judge_answer(TOKEN, &nonce, AT, 200, &older),
            Err(ProofFailure::OtherVersion(v)) if v == PROTOCOL_VERSION - 1
        ));
        // Without the right proof the version is not even looked at.
        let forged = answer(PROTOCOL_VERSION - 1, &auth::server_proof("x", &nonce, AT));
        assert!(matches!(
            judge_answer(TOKEN, &nonce, AT, 200, &forged),
            Err(ProofFailure::Unproven(_))
        ));
    }
}
