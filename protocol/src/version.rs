//! Protocol version and the handshake's accepted-range rule (PROTOCOL.md §2, §12).

use crate::error::{BridgeError, ErrorCode};

/// The version this crate speaks.
pub const PROTOCOL_VERSION: u32 = 5;

/// The oldest version this crate speaks. v5 changed the handshake's meaning (a v4
/// extension sent the pairing token to whatever answered on the address), and no
/// v4 peer was released, so nothing older is accepted (PROTOCOL.md §12).
pub const MIN_SUPPORTED_PROTOCOL_VERSION: u32 = 5;

/// Largest frame either side accepts (bytes); larger frames close with 1009 (§1).
pub const MAX_MESSAGE_BYTES: usize = 32 * 1024 * 1024;

/// Largest handshake frame (`hello`, `auth`) the backend reads, in bytes: real ones
/// are under 1 KiB, and nothing from a peer that has not proved the token is worth
/// decoding at the full [`MAX_MESSAGE_BYTES`] (§1, §2).
pub const MAX_HANDSHAKE_FRAME_BYTES: usize = 64 * 1024;

/// The whole handshake (`hello` … `auth`) within this many ms after the upgrade,
/// or the backend closes (§2).
pub const HELLO_TIMEOUT_MS: u64 = 10_000;

/// The extension sends `ping` this often (ms, §3).
pub const PING_INTERVAL_MS: u64 = 20_000;

/// The backend closes a connection from which nothing arrived for this long (ms,
/// §3): three ping intervals, so two lost pings are not yet a dead peer (60 s).
pub const IDLE_CLOSE_MS: u64 = 3 * PING_INTERVAL_MS;

/// Checks `hello.protocolVersion` against `[min, PROTOCOL_VERSION]`.
///
/// # Errors
/// `protocol_mismatch` whose message says which side must be upgraded.
pub fn check_version(offered: u32, min: u32) -> Result<(), BridgeError> {
    if offered < min {
        Err(BridgeError::new(
            ErrorCode::ProtocolMismatch,
            format!(
                "extension speaks v{offered}; this backend accepts v{min}..v{PROTOCOL_VERSION}: update the extension"
            ),
        ))
    } else if offered > PROTOCOL_VERSION {
        Err(BridgeError::new(
            ErrorCode::ProtocolMismatch,
            format!(
                "extension speaks v{offered}; this backend accepts v{min}..v{PROTOCOL_VERSION}: update the backend"
            ),
        ))
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn range() {
        assert!(check_version(5, 5).is_ok());
        let low = check_version(4, 5).unwrap_err();
        assert_eq!(low.code, ErrorCode::ProtocolMismatch);
        assert!(
            low.message.contains("update the extension"),
            "{}",
            low.message
        );
        let high = check_version(6, 5).unwrap_err();
        assert!(
            high.message.contains("update the backend"),
            "{}",
            high.message
        );
    }
}
