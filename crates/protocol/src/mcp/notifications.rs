//! Notification payloads: progress, log messages, cancellation.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::jsonrpc::RequestId;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProgressParams {
    /// A string or integer, echoing the token we sent in `_meta.progressToken` (C-22).
    pub progress_token: Value,
    pub progress: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// The eight syslog levels `logging/setLevel` and `notifications/message` use (C-23).
pub const LOG_LEVELS: [&str; 8] = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"];

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LoggingMessageParams {
    pub level: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logger: Option<String>,
    pub data: Value,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CancelledParams {
    pub request_id: RequestId,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ResourceUpdatedParams {
    pub uri: String,
}
