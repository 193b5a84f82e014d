//! The `Accessibility` domain.

use std::marker::PhantomData;

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::Command;
use crate::page::FrameId;

/// `Accessibility.getFullAXTree` of one frame. The response shape is the
/// caller's `R` (`browser_bridge_page::snapshot::AxTree`: `{nodes}`), decoded
/// straight from CDP's answer, which runs to megabytes on long pages.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GetFullAxTree<R> {
    /// The frame; `None` for the main frame.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frame_id: Option<FrameId>,
    #[serde(skip)]
    response: PhantomData<fn() -> R>,
}

impl<R> GetFullAxTree<R> {
    /// The tree of `frame_id` (`None`: the main frame).
    pub fn new(frame_id: Option<FrameId>) -> Self {
        GetFullAxTree {
            frame_id,
            response: PhantomData,
        }
    }
}

impl<R: DeserializeOwned> Command for GetFullAxTree<R> {
    const METHOD: &'static str = "Accessibility.getFullAXTree";
    type Response = R;
}
