//! MCP messages (protocol versions 2025-03-26, 2025-06-18, 2025-11-25 and 2026-07-28), as `params` and
//! `result` payloads of JSON-RPC messages. Field names follow `schema.ts`; anything we do not
//! model is kept in `extra` or as raw JSON so nothing a server sends is lost.

pub mod apps;
mod content;
mod lifecycle;
mod modern;
mod notifications;
mod prompts;
mod resources;
mod server_requests;
mod tasks;
mod tools;

pub use content::*;
pub use lifecycle::*;
pub use modern::*;
pub use notifications::*;
pub use prompts::*;
pub use resources::*;
pub use server_requests::*;
pub use tasks::*;
pub use tools::*;

/// Request and notification method names.
pub mod method {
    pub const INITIALIZE: &str = "initialize";
    pub const INITIALIZED: &str = "notifications/initialized";
    pub const PING: &str = "ping";
    pub const TOOLS_LIST: &str = "tools/list";
    pub const TOOLS_CALL: &str = "tools/call";
    pub const RESOURCES_LIST: &str = "resources/list";
    pub const RESOURCES_TEMPLATES_LIST: &str = "resources/templates/list";
    pub const RESOURCES_READ: &str = "resources/read";
    pub const RESOURCES_SUBSCRIBE: &str = "resources/subscribe";
    pub const RESOURCES_UNSUBSCRIBE: &str = "resources/unsubscribe";
    pub const PROMPTS_LIST: &str = "prompts/list";
    pub const PROMPTS_GET: &str = "prompts/get";
    pub const LOGGING_SET_LEVEL: &str = "logging/setLevel";
    pub const CANCELLED: &str = "notifications/cancelled";
    pub const PROGRESS: &str = "notifications/progress";
    pub const MESSAGE: &str = "notifications/message";
    pub const TOOLS_LIST_CHANGED: &str = "notifications/tools/list_changed";
    pub const RESOURCES_LIST_CHANGED: &str = "notifications/resources/list_changed";
    pub const PROMPTS_LIST_CHANGED: &str = "notifications/prompts/list_changed";
    pub const RESOURCES_UPDATED: &str = "notifications/resources/updated";
    pub const SAMPLING_CREATE_MESSAGE: &str = "sampling/createMessage";
    pub const ELICITATION_CREATE: &str = "elicitation/create";
    pub const ROOTS_LIST: &str = "roots/list";
    /// 2026-07-28: the discovery request that replaces `initialize`.
    pub const SERVER_DISCOVER: &str = "server/discover";
    /// 2026-07-28: the long-lived request whose stream carries change notifications.
    pub const SUBSCRIPTIONS_LISTEN: &str = "subscriptions/listen";
    pub const SUBSCRIPTIONS_ACKNOWLEDGED: &str = "notifications/subscriptions/acknowledged";
    /// Tasks (2025-11-25 experimental, and the 2026 extension).
    pub const TASKS_GET: &str = "tasks/get";
    pub const TASKS_CANCEL: &str = "tasks/cancel";
    /// 2025-11-25 only: blocks until the task ends, then answers with its result.
    pub const TASKS_RESULT: &str = "tasks/result";
    /// The 2026 extension only: answers to a task's `inputRequests`.
    pub const TASKS_UPDATE: &str = "tasks/update";
    /// 2025-11-25's status notification, and the 2026 extension's.
    pub const TASKS_STATUS: &str = "notifications/tasks/status";
    pub const TASKS_NOTIFICATION: &str = "notifications/tasks";
}

/// A page of a `*/list` result: the items plus the cursor of the next page, if any (C-24).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PaginatedParams {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
}
