//! browser-bridge wire protocol, version 5 — the one implementation of PROTOCOL.md.
//!
//! Owns every message that crosses the WebSocket between the extension and the
//! backend: envelopes ([`Message`]), the action union ([`Action`]) and its results
//! ([`ActionResult`]), error codes ([`ErrorCode`]), events ([`Event`]), the version
//! rule, per-action deadlines, the handshake proofs and JSON Schemas. No I/O, no
//! runtime: builds for native and wasm32. The pure page logic that produces
//! [`ExtractResult`] lives in `browser-bridge-page`.

pub mod action;
pub mod auth;
pub mod browser;
pub mod deadline;
mod decode;
pub mod devtools;
pub mod downloads;
pub mod envelope;
pub mod error;
pub mod event;
pub mod extract;
pub mod handoff;
pub mod ids;
pub mod page_tools;
pub mod pointer;
pub mod result;
pub mod schema;
pub mod text;
mod validate;
pub mod version;

pub use action::{ACTION_NAMES, Action, ElementTarget, PointerTarget};
pub use envelope::{
    Ack, Auth, Challenge, DecodeError, EventMessage, Hello, Message, Ping, Pong, Reject, Request,
    Response,
};
pub use error::{BridgeError, ErrorCode, UnknownCode};
pub use event::{Event, SessionEndReason};
pub use extract::{Changes, Element, ExtractResult, Obstacle};
pub use ids::{RequestId, TabId, Uid, WindowId};
pub use result::ActionResult;
pub use validate::check_url_scheme;
pub use version::{
    MAX_MESSAGE_BYTES, MIN_SUPPORTED_PROTOCOL_VERSION, PROTOCOL_VERSION, check_version,
};
