//! Who may use the local console (docs/DESIGN.md "Local console"): one-time
//! codes handed out to `browser-bridge console` (which holds the pairing token)
//! and the sessions a code is exchanged for. A session travels in the
//! [`SESSION_HEADER`] only, never in a cookie: cookies are not scoped by port,
//! so any other server on this host would receive one. Pure bookkeeping: time
//! is passed in, so tests need no clock.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use rand::Rng;

/// How long a one-time code may be redeemed (60 s).
pub const CODE_TTL: Duration = Duration::from_secs(60);
/// Most codes pending at once: a flood of `POST /v1/console/link` cannot grow memory.
pub const MAX_PENDING_CODES: usize = 4;
/// How long a console session lasts (12 h; sessions die with `serve`).
pub const SESSION_TTL: Duration = Duration::from_secs(12 * 3600);
/// Most sessions kept; the oldest is dropped past it.
pub const MAX_SESSIONS: usize = 16;
/// The request header carrying the session (64 hex), sent by the page's script
/// from its `sessionStorage` (PROTOCOL.md §2.2 "Console").
pub const SESSION_HEADER: &str = "browser-bridge-console";

/// A random value of `bytes` bytes, as lowercase hex (`2 * bytes` characters).
pub fn random_hex(bytes: usize) -> String {
    let mut raw = vec![0u8; bytes];
    rand::rng().fill(&mut raw[..]);
    raw.iter().map(|b| format!("{b:02x}")).collect()
}

/// Pending codes and live sessions, each with its expiry.
#[derive(Debug, Default)]
pub struct ConsoleAuth {
    codes: HashMap<String, Instant>,
    sessions: HashMap<String, Instant>,
}

impl ConsoleAuth {
    /// A new one-time code (128 random bits, hex), valid for [`CODE_TTL`] from `now`.
    ///
    /// # Errors
    /// `None` when [`MAX_PENDING_CODES`] unexpired codes are pending.
    pub fn new_code(&mut self, now: Instant) -> Option<String> {
        self.codes.retain(|_, expiry| *expiry > now);
        if self.codes.len() >= MAX_PENDING_CODES {
            return None;
        }
        let code = random_hex(16);
        self.codes.insert(code.clone(), now + CODE_TTL);
        Some(code)
    }

    /// Spends `code`: a new session id (256 random bits, hex) when the code was
    /// pending and unexpired, else `None`. A code works once.
    pub fn redeem(&mut self, code: &str, now: Instant) -> Option<String> {
        let expiry = self.codes.remove(code)?;
        if expiry <= now {
            return None;
        }
        self.sessions.retain(|_, expiry| *expiry > now);
        if self.sessions.len() >= MAX_SESSIONS
            && let Some(oldest) = self
                .sessions
                .iter()
                .min_by_key(|(_, expiry)| **expiry)
                .map(|(id, _)| id.clone())
        {
            self.sessions.remove(&oldest);
        }
        let session = random_hex(32);
        self.sessions.insert(session.clone(), now + SESSION_TTL);
        Some(session)
    }

    /// True when `session` is a live session id.
    pub fn session_valid(&self, session: &str, now: Instant) -> bool {
        self.sessions
            .get(session)
            .is_some_and(|expiry| *expiry > now)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_code_works_once_and_expires() {
        let mut auth = ConsoleAuth::default();
        let t0 = Instant::now();
        let code = auth.new_code(t0).expect("a code");
        assert_eq!(code.len(), 32);
        let session = auth.redeem(&code, t0).expect("redeemed");
        assert!(auth.session_valid(&session, t0));
        assert!(auth.redeem(&code, t0).is_none(), "second use");
        let late = auth.new_code(t0).expect("a code");
        assert!(auth.redeem(&late, t0 + CODE_TTL).is_none(), "expired");
        assert!(auth.redeem("00", t0).is_none());
        assert!(!auth.session_valid("made-up", t0));
        assert!(!auth.session_valid(&session, t0 + SESSION_TTL));
    }

    #[test]
    fn pending_codes_are_capped_until_they_expire() {
        let mut auth = ConsoleAuth::default();
        let t0 = Instant::now();
        for _ in 0..MAX_PENDING_CODES {
            assert!(auth.new_code(t0).is_some());
        }
        assert!(auth.new_code(t0).is_none());
        assert!(auth.new_code(t0 + CODE_TTL).is_some());
    }

    #[test]
    fn sessions_are_capped() {
        let mut auth = ConsoleAuth::default();
        let t0 = Instant::now();
        let mut ids = Vec::new();
        for i in 0..=MAX_SESSIONS {
            let at = t0 + Duration::from_secs(i as u64);
            let code = auth.new_code(at).unwrap();
            ids.push(auth.redeem(&code, at).unwrap());
        }
        let now = t0 + Duration::from_secs(MAX_SESSIONS as u64);
        assert!(!auth.session_valid(&ids[0], now), "oldest dropped");
        assert!(auth.session_valid(&ids[MAX_SESSIONS], now));
    }
}
