//! The page's two requests to the bridge's own side channel, each with the token and never
//! following a redirect: what it serves (`GET /bridge`, for the consent screen) and its log
//! (`GET /bridge/log`, for the card's Log tab).

use crate::limits::{BodyError, read_text};
use crate::platform::{HttpRequest, Platform, Redirects};

use super::fault::{BridgeFault, read_log};
use super::link::{BridgeInfo, BridgeLink};
use protocol::bridge::LogEntry;

/// Its answers are small: a description, and at most 2,000 log entries of 4 KiB.
const MAX_INFO: usize = 64 * 1024;
const MAX_LOG: usize = 16 * 1024 * 1024;

/// Why the bridge could not be asked.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum AskError {
    #[error(
        "nothing answers at {0}: the bridge has stopped, or this link is from an earlier run. Start it again and open the link it prints"
    )]
    Unreachable(String),
    #[error("the bridge refused: {}", .0.error.message)]
    Refused(Box<BridgeFault>),
    #[error("what answers at {0} is not loopscope bridge")]
    NotABridge(String),
}

async fn get<P: Platform>(platform: &P, link: &BridgeLink, url: String, max: usize) -> Result<String, AskError> {
    let mut request = HttpRequest::get(url.clone());
    let (name, value) = link.authorization();
    request.headers.set(&name, value);
    request.redirects = Redirects::Refuse;
    let response = platform.send(request).await.map_err(|_| AskError::Unreachable(link.url.clone()))?;
    let refused = response.headers.get(super::ERROR_HEADER).map(str::to_owned);
    let is_bridge = response.headers.get(super::MARK_HEADER).is_some() || refused.is_some();
    let status = response.status;
    let text = read_text(response.body, max).await.map_err(|e| match e {
        BodyError::TooBig(_) => AskError::NotABridge(url.clone()),
        BodyError::Network(_) => AskError::Unreachable(link.url.clone()),
    })?;
    match refused {
        Some(kind) => Err(AskError::Refused(Box::new(BridgeFault::read(status, &kind, &text)))),
        None if is_bridge && (200..300).contains(&status) => Ok(text),
        None => Err(AskError::NotABridge(url)),
    }
}

/// What the bridge says it serves.
pub async fn info<P: Platform>(platform: &P, link: &BridgeLink) -> Result<BridgeInfo, AskError> {
    let text = get(platform, link, link.info_url(), MAX_INFO).await?;
    BridgeInfo::read(&text).ok_or_else(|| AskError::NotABridge(link.info_url()))
}

/// The bridge's log after entry `after`.
pub async fn log<P: Platform>(platform: &P, link: &BridgeLink, after: u64) -> Result<Vec<LogEntry>, AskError> {
    let text = get(platform, link, link.log_url(after), MAX_LOG).await?;
    Ok(read_log(&text))
}
