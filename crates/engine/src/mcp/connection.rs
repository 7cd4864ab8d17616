//! Where a connection to a server stands, as the client knows it from what happened on the
//! wire. The page shows this and keeps no state of its own about it.

use crate::layer::Failure;

#[derive(Clone, Debug, PartialEq)]
pub enum Connection {
    Disconnected,
    Connecting,
    Connected,
    /// The session expired (HTTP 404 to a request that carried it): a new one is being made.
    Reconnecting,
    /// A request got no HTTP answer while connected: the server may have stopped, or the
    /// network is down. The next request that succeeds makes it `Connected` again.
    Unreachable(Failure),
    /// The session expired and a new one could not be made.
    SessionLost(Failure),
    /// Connecting failed.
    Failed(Failure),
}

impl Connection {
    /// A word or two for the card's status line.
    pub fn label(&self) -> &'static str {
        match self {
            Connection::Disconnected => "disconnected",
            Connection::Connecting => "connecting…",
            Connection::Connected => "connected",
            Connection::Reconnecting => "reconnecting…",
            Connection::Unreachable(_) => "unreachable",
            Connection::SessionLost(_) => "session lost",
            Connection::Failed(_) => "failed",
        }
    }

    /// The failure behind a broken connection, if it is broken.
    pub fn failure(&self) -> Option<&Failure> {
        match self {
            Connection::Unreachable(f) | Connection::SessionLost(f) | Connection::Failed(f) => Some(f),
            _ => None,
        }
    }

    /// Whether a turn should still offer this server's tools (phase 1 asks it again, and says
    /// so in the chat if it still does not answer).
    pub fn in_turns(&self) -> bool {
        matches!(self, Connection::Connected | Connection::Reconnecting | Connection::Unreachable(_))
    }

    /// What the user can do about it, in a sentence, when there is something to do.
    pub fn advice(&self) -> Option<&'static str> {
        Some(match self {
            Connection::Unreachable(_) => {
                "Its tools stay offered: the next turn asks it again. Reconnect starts a new session now."
            }
            Connection::SessionLost(_) => {
                "The server forgot the session and a new one could not be made: press Reconnect."
            }
            Connection::Failed(_) => "Fix what the message says, then press Reconnect.",
            _ => return None,
        })
    }
}
