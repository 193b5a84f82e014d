//! Proofs of knowledge of the pairing token (PROTOCOL.md §2, §2.1).
//!
//! The token never crosses the wire. Each side proves it knows it with
//! `base64url_nopad(HMAC-SHA256(key = token UTF-8, msg))`, where `msg` is a label
//! naming the prover, then the nonces as their ASCII text, each preceded by `0x00`.
//! A proof binds both nonces of one connection, so a proof seen on one connection
//! is worthless on any other. Pure: the caller supplies the random nonce bytes.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::digest::OutputSizeUser;
use hmac::digest::typenum::Unsigned;
use hmac::{KeyInit, Mac};
use serde::{Deserialize, Serialize};
use sha2::Sha256;

use crate::error::BridgeError;

type HmacSha256 = hmac::Hmac<Sha256>;

/// Label of the backend's proof `P_B` in the WebSocket handshake.
pub const LABEL_BACKEND: &str = "browser-bridge/5 backend";
/// Label of the extension's proof `P_E` in the WebSocket handshake.
pub const LABEL_EXTENSION: &str = "browser-bridge/5 extension";
/// Label of the HTTP server's proof answered by `GET /v1/hello`.
pub const LABEL_SERVER: &str = "browser-bridge/5 server";

/// Random bytes behind a handshake nonce.
pub const NONCE_BYTES: usize = 32;
/// Length of a handshake nonce as text: [`NONCE_BYTES`] bytes, base64url without
/// padding (43 chars).
pub const NONCE_CHARS: usize = base64_nopad_chars(NONCE_BYTES);
/// Length of a proof as text: an HMAC-SHA256 tag (32 bytes), base64url without
/// padding (43 chars).
pub const PROOF_CHARS: usize =
    base64_nopad_chars(<<Sha256 as OutputSizeUser>::OutputSize as Unsigned>::USIZE);
/// A handshake nonce as the schema states it: exactly [`NONCE_CHARS`] base64url
/// chars ([`check_nonce`] checks the same; a test keeps the two in step).
pub const NONCE_PATTERN: &str = "^[A-Za-z0-9_-]{43}$";
/// A proof as the schema states it: exactly [`PROOF_CHARS`] base64url chars.
pub const PROOF_PATTERN: &str = "^[A-Za-z0-9_-]{43}$";
/// Shortest nonce `GET /v1/hello` accepts (chars).
pub const HTTP_NONCE_MIN_CHARS: usize = 16;
/// Longest nonce `GET /v1/hello` accepts (chars).
pub const HTTP_NONCE_MAX_CHARS: usize = 128;

/// Chars of `bytes` bytes in base64 without padding: 4 per 3 bytes, rounded up.
const fn base64_nopad_chars(bytes: usize) -> usize {
    (bytes * 4).div_ceil(3)
}

/// The nonce text for 32 random bytes (43 base64url chars, no padding).
pub fn encode_nonce(bytes: &[u8; NONCE_BYTES]) -> String {
    URL_SAFE_NO_PAD.encode(bytes)
}

/// Checks a handshake nonce: exactly [`NONCE_CHARS`] base64url chars.
///
/// # Errors
/// `invalid_request` naming `field`.
pub fn check_nonce(field: &str, nonce: &str) -> Result<(), BridgeError> {
    check_b64(field, nonce, NONCE_CHARS, NONCE_CHARS)
}

/// Checks the nonce of `GET /v1/hello`: 16–128 base64url chars.
///
/// # Errors
/// `invalid_request` naming `nonce`.
pub fn check_http_nonce(nonce: &str) -> Result<(), BridgeError> {
    check_b64("nonce", nonce, HTTP_NONCE_MIN_CHARS, HTTP_NONCE_MAX_CHARS)
}

/// Checks the shape of a proof: exactly [`PROOF_CHARS`] base64url chars.
///
/// # Errors
/// `invalid_request` naming `proof`.
pub fn check_proof(proof: &str) -> Result<(), BridgeError> {
    check_b64("proof", proof, PROOF_CHARS, PROOF_CHARS)
}

fn check_b64(field: &str, text: &str, min: usize, max: usize) -> Result<(), BridgeError> {
    let alphabet = |b: u8| b.is_ascii_alphanumeric() || b == b'-' || b == b'_';
    if text.len() < min || text.len() > max || !text.bytes().all(alphabet) {
        let size = if min == max {
            format!("{min}")
        } else {
            format!("{min} to {max}")
        };
        return Err(BridgeError::invalid_request(format!(
            "{field}: must be {size} base64url characters without padding"
        )));
    }
    Ok(())
}

/// `HMAC-SHA256(token, label ‖ 0x00 ‖ part₁ ‖ 0x00 ‖ part₂ …)`.
fn mac(token: &str, label: &str, parts: &[&str]) -> HmacSha256 {
    let mut mac = HmacSha256::new_from_slice(token.as_bytes()).expect("HMAC takes any key length");
    mac.update(label.as_bytes());
    for part in parts {
        mac.update(&[0]);
        mac.update(part.as_bytes());
    }
    mac
}

fn prove(token: &str, label: &str, parts: &[&str]) -> String {
    URL_SAFE_NO_PAD.encode(mac(token, label, parts).finalize().into_bytes())
}

/// Constant-time check of `proof` against the expected tag (`Mac::verify_slice`).
fn verify(token: &str, label: &str, parts: &[&str], proof: &str) -> bool {
    let Ok(tag) = URL_SAFE_NO_PAD.decode(proof) else {
        return false;
    };
    mac(token, label, parts).verify_slice(&tag).is_ok()
}

/// `P_B`: the backend's proof in `challenge` (§2), over the extension's nonce
/// `n_e` and the backend's `n_b`.
pub fn backend_proof(token: &str, n_e: &str, n_b: &str) -> String {
    prove(token, LABEL_BACKEND, &[n_e, n_b])
}

/// `P_E`: the extension's proof in `auth` (§2).
pub fn extension_proof(token: &str, n_e: &str, n_b: &str) -> String {
    prove(token, LABEL_EXTENSION, &[n_e, n_b])
}

/// The HTTP server's proof for `GET /v1/hello?nonce=N` (§2.1), over the nonce
/// and `address`: the server's own end of the TCP connection as
/// `SocketAddr`'s text (`127.0.0.1:9444`, `[::1]:9444`). The client checks it
/// with the address it connected to, so a program that relays the request from
/// another port or address gets a proof that fails there.
pub fn server_proof(token: &str, nonce: &str, address: &str) -> String {
    prove(token, LABEL_SERVER, &[nonce, address])
}

/// Whether `proof` is `P_B` for these nonces (constant time).
pub fn verify_backend_proof(token: &str, n_e: &str, n_b: &str, proof: &str) -> bool {
    verify(token, LABEL_BACKEND, &[n_e, n_b], proof)
}

/// Whether `proof` is `P_E` for these nonces (constant time).
pub fn verify_extension_proof(token: &str, n_e: &str, n_b: &str, proof: &str) -> bool {
    verify(token, LABEL_EXTENSION, &[n_e, n_b], proof)
}

/// Whether `proof` is the server proof for `nonce` at `address` (constant
/// time).
pub fn verify_server_proof(token: &str, nonce: &str, address: &str, proof: &str) -> bool {
    verify(token, LABEL_SERVER, &[nonce, address], proof)
}

/// The path of the HTTP hello (PROTOCOL.md §2.1): the server proves it knows
/// the token before a client sends it.
pub const HELLO_PATH: &str = "/v1/hello";

/// The body of a `200` answer to `GET /v1/hello`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HelloAnswer {
    /// The server's `PROTOCOL_VERSION`.
    pub protocol_version: u32,
    /// [`server_proof`] of the pairing token over the request's nonce and the
    /// server's end of the connection: 43 base64url characters.
    pub proof: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::envelope::Challenge;

    const TOKEN: &str = "s3cret-token";

    #[test]
    fn nonce_text_is_43_base64url_chars() {
        let nonce = encode_nonce(&[0xff; NONCE_BYTES]);
        assert_eq!(nonce.len(), NONCE_CHARS);
        assert!(check_nonce("nonce", &nonce).is_ok());
        assert!(check_nonce("nonce", &nonce[1..]).is_err());
        assert!(check_nonce("nonce", &format!("{}=", &nonce[1..])).is_err());
        let e = check_nonce("nonce", "a+b/").unwrap_err();
        assert!(e.message.starts_with("nonce:"), "{}", e.message);
    }

    /// The hand-written pieces that must follow the derived constants.
    #[test]
    fn patterns_and_labels_follow_the_constants() {
        let exactly = |n: usize| format!("^[A-Za-z0-9_-]{{{n}}}$");
        assert_eq!(NONCE_PATTERN, exactly(NONCE_CHARS));
        assert_eq!(PROOF_PATTERN, exactly(PROOF_CHARS));
        assert_eq!((NONCE_CHARS, PROOF_CHARS), (43, 43));
        let version = format!("browser-bridge/{} ", crate::PROTOCOL_VERSION);
        for label in [LABEL_BACKEND, LABEL_EXTENSION, LABEL_SERVER] {
            assert!(label.starts_with(&version), "{label}");
        }
    }

    #[test]
    fn http_nonce_bounds() {
        assert!(check_http_nonce(&"a".repeat(15)).is_err());
        assert!(check_http_nonce(&"a".repeat(16)).is_ok());
        assert!(check_http_nonce(&"a".repeat(128)).is_ok());
        assert!(check_http_nonce(&"a".repeat(129)).is_err());
        assert!(check_http_nonce(&format!("{}.", "a".repeat(20))).is_err());
    }

    /// RFC 4231-style check that the message layout is the one PROTOCOL.md states:
    /// the tag is computed by hand over the concatenated bytes.
    #[test]
    fn proofs_follow_the_documented_layout() {
        let (n_e, n_b) = ("A".repeat(43), "B".repeat(43));
        let msg = format!("{LABEL_BACKEND}\0{n_e}\0{n_b}");
        let mut by_hand = HmacSha256::new_from_slice(TOKEN.as_bytes()).unwrap();
        by_hand.update(msg.as_bytes());
        let expected = URL_SAFE_NO_PAD.encode(by_hand.finalize().into_bytes());
        assert_eq!(backend_proof(TOKEN, &n_e, &n_b), expected);
        assert_eq!(expected.len(), PROOF_CHARS);
        assert!(check_proof(&expected).is_ok());
    }

    #[test]
    fn proofs_bind_token_label_and_both_nonces() {
        let (n_e, n_b) = ("A".repeat(43), "B".repeat(43));
        let p_b = backend_proof(TOKEN, &n_e, &n_b);
        let p_e = extension_proof(TOKEN, &n_e, &n_b);
        assert_ne!(p_b, p_e, "labels separate the two directions");
        assert!(verify_backend_proof(TOKEN, &n_e, &n_b, &p_b));
        assert!(verify_extension_proof(TOKEN, &n_e, &n_b, &p_e));
        // A reflected proof, another token, another nonce: all refused.
        assert!(!verify_extension_proof(TOKEN, &n_e, &n_b, &p_b));
        assert!(!verify_backend_proof("s3cret-tokem", &n_e, &n_b, &p_b));
        assert!(!verify_backend_proof(TOKEN, &n_b, &n_e, &p_b));
        assert!(!verify_backend_proof(TOKEN, &n_e, &"C".repeat(43), &p_b));
        assert!(!verify_backend_proof(TOKEN, &n_e, &n_b, "not base64!"));
        assert!(!verify_backend_proof(TOKEN, &n_e, &n_b, ""));
        let answered = Challenge {
            nonce: n_b.clone(),
            proof: p_b.clone(),
        }
        .answer(TOKEN, &n_e);
        assert!(verify_extension_proof(
            TOKEN,
            &n_e,
            &n_b,
            &answered.unwrap().proof
        ));
        let forged = Challenge {
            nonce: n_b.clone(),
            proof: backend_proof("guess", &n_e, &n_b),
        };
        assert_eq!(forged.answer(TOKEN, &n_e), None);
        let short = Challenge {
            nonce: "B".into(),
            proof: backend_proof(TOKEN, &n_e, "B"),
        };
        assert_eq!(short.answer(TOKEN, &n_e), None);
        let server = server_proof(TOKEN, "abcdefghijklmnop", "127.0.0.1:9444");
        assert!(verify_server_proof(
            TOKEN,
            "abcdefghijklmnop",
            "127.0.0.1:9444",
            &server
        ));
        assert!(!verify_server_proof(
            TOKEN,
            "abcdefghijklmnoq",
            "127.0.0.1:9444",
            &server
        ));
        // Relayed from another port or address: the proof names the real one.
        assert!(!verify_server_proof(
            TOKEN,
            "abcdefghijklmnop",
            "127.0.0.1:9446",
            &server
        ));
        assert!(!verify_server_proof(
            TOKEN,
            "abcdefghijklmnop",
            "[::1]:9444",
            &server
        ));
    }
}
