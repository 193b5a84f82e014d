//! The `DOMSnapshot` domain.

use std::marker::PhantomData;

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::Command;

/// `DOMSnapshot.captureSnapshot`: every document of the page (same-origin
/// frames included) in flat-tree order, with layout and the computed styles
/// named. The response shape is the caller's `R`
/// (`browser_bridge_page::snapshot::CapturedSnapshot`), decoded straight from
/// CDP's answer.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CaptureSnapshot<R> {
    /// CSS properties reported for each layout node, in this order.
    pub computed_styles: Vec<String>,
    #[serde(skip)]
    response: PhantomData<fn() -> R>,
}

impl<R> CaptureSnapshot<R> {
    /// A snapshot with `computed_styles`.
    pub fn new(computed_styles: &[&str]) -> Self {
        CaptureSnapshot {
            computed_styles: computed_styles.iter().map(|s| (*s).to_owned()).collect(),
            response: PhantomData,
        }
    }
}

impl<R: DeserializeOwned> Command for CaptureSnapshot<R> {
    const METHOD: &'static str = "DOMSnapshot.captureSnapshot";
    type Response = R;
}
