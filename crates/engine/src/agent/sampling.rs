//! A server's sampling request (C-38) as a Messages request the user reviews first, and
//! Claude's answer as the result the server gets back. The user's Max tokens is the ceiling: a
//! server cannot spend more of the user's tokens than the user allows.

use serde_json::Value;

use crate::claude::ClaudeSettings;
use crate::text::content_text;
use protocol::claude::{CreateMessage, Message};
use protocol::mcp::{ContentBlock, CreateMessageParams, CreateMessageResult};

/// The server's messages as one editable text, a paragraph per message ("user: …").
pub fn prompt(params: &CreateMessageParams) -> String {
    params.messages.iter().map(|m| format!("{}: {}", m.role, content_text(&m.content))).collect::<Vec<_>>().join("\n\n")
}

/// The tokens the request may use: what the server asked for, within the user's own limit.
pub fn max_tokens(params: &CreateMessageParams, settings: &ClaudeSettings) -> u32 {
    params.max_tokens.clamp(1, settings.max_tokens.max(1))
}

/// The Messages request for `prompt` (the text the user reviewed).
pub fn request(params: &CreateMessageParams, prompt: &str, settings: &ClaudeSettings) -> CreateMessage {
    CreateMessage {
        model: settings.model.clone(),
        max_tokens: max_tokens(params, settings),
        messages: vec![Message::user_text(prompt)],
        system: params.system_prompt.clone().map(Value::String),
        tools: Vec::new(),
        tool_choice: None,
        stream: true,
        stop_sequences: params.stop_sequences.clone().filter(|s| !s.is_empty()),
        temperature: params.temperature,
        thinking: None,
        output_config: None,
        container: None,
        mcp_servers: Vec::new(),
    }
}

/// What the server receives: the (possibly edited) answer and the model that wrote it.
pub fn result(answer: String, model: String) -> CreateMessageResult {
    CreateMessageResult {
        role: "assistant".into(),
        content: ContentBlock::text(answer),
        model,
        stop_reason: Some("endTurn".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn params(max_tokens: u32) -> CreateMessageParams {
        serde_json::from_value(json!({
            "messages": [
                {"role": "user", "content": {"type": "text", "text": "Summarise"}},
                {"role": "assistant", "content": [{"type": "text", "text": "Of what?"}]}
            ],
            "systemPrompt": "Be brief",
            "maxTokens": max_tokens,
            "stopSequences": ["END"]
        }))
        .unwrap()
    }

    #[test]
    fn the_users_max_tokens_is_the_ceiling_c38() {
        let settings = ClaudeSettings { max_tokens: 1024, ..ClaudeSettings::default() };
        assert_eq!(request(&params(100_000), "x", &settings).max_tokens, 1024, "a server cannot ask for more");
        assert_eq!(request(&params(50), "x", &settings).max_tokens, 50, "nor is it given more than it asked");
        assert_eq!(request(&params(0), "x", &settings).max_tokens, 1);
    }

    #[test]
    fn the_request_carries_what_the_server_asked_and_what_the_user_wrote() {
        let p = params(10);
        assert_eq!(prompt(&p), "user: Summarise\n\nassistant: Of what?");
        let r = request(&p, "user: edited", &ClaudeSettings::default());
        assert_eq!(r.messages[0].text(), "user: edited");
        assert_eq!(r.system, Some(json!("Be brief")));
        assert_eq!(r.stop_sequences, Some(vec!["END".to_owned()]));
        assert!(r.tools.is_empty());
        let back = serde_json::to_value(result("Short.".into(), "m".into())).unwrap();
        assert_eq!(
            back,
            json!({"role":"assistant","content":{"type":"text","text":"Short."},"model":"m","stopReason":"endTurn"})
        );
    }
}
