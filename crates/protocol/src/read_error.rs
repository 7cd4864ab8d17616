//! Why a document or an event from outside could not be read: the one error of this crate's
//! hand-written readers (OAuth documents, Claude's stream events). The engine names the document
//! and where it came from; this says only what was wrong with its text.

/// What was wrong with a document's text.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ReadError {
    /// The text does not parse as JSON (the parser's own words).
    #[error("not JSON ({0})")]
    NotJson(String),
    /// A member every such document must have is missing (or is not a string).
    #[error("it has no \"{0}\"")]
    Missing(&'static str),
}

impl From<serde_json::Error> for ReadError {
    fn from(e: serde_json::Error) -> Self {
        Self::NotJson(e.to_string())
    }
}
