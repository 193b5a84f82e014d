//! What goes to the backend: sessions push events, the dispatcher pushes
//! responses, and the connection (which registers itself as the sink at start)
//! sends or queues them. Nothing that pushes knows about the socket.

use std::cell::RefCell;
use std::rc::Rc;

use browser_bridge_protocol::{Event, Response};

use crate::core::connection::Outgoing;

type Sink = Rc<dyn Fn(Outgoing)>;

/// A cheap handle (clones share one outbox).
#[derive(Clone, Default)]
pub struct Outbox {
    inner: Rc<RefCell<Inner>>,
}

#[derive(Default)]
struct Inner {
    sink: Option<Sink>,
    /// What was pushed before the sink was set.
    early: Vec<Outgoing>,
}

impl Outbox {
    /// Sends one `event` (§11), or queues it until the next `ack`.
    pub fn event(&self, event: Event) {
        self.push(Outgoing::Event(event));
    }

    /// Sends one `response` (§3); dropped when the socket is gone (the backend
    /// has then answered the request `not_connected` already).
    pub fn response(&self, response: Response) {
        self.push(Outgoing::Response(response));
    }

    fn push(&self, outgoing: Outgoing) {
        let sink = {
            let mut inner = self.inner.borrow_mut();
            match &inner.sink {
                Some(sink) => sink.clone(),
                None => return inner.early.push(outgoing),
            }
        };
        sink(outgoing);
    }

    /// Sets where frames go (the connection), and hands it what came before.
    pub fn set_sink(&self, sink: impl Fn(Outgoing) + 'static) {
        let sink: Sink = Rc::new(sink);
        let early = {
            let mut inner = self.inner.borrow_mut();
            inner.sink = Some(sink.clone());
            std::mem::take(&mut inner.early)
        };
        for outgoing in early {
            sink(outgoing);
        }
    }
}
