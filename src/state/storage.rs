//! localStorage, for what the user asked us to keep. Failures (private mode, quota) are
//! ignored: the page works without persistence.

pub fn get(key: &str) -> Option<String> {
    web_sys::window()?.local_storage().ok()??.get_item(key).ok()?
}

pub fn set(key: &str, value: &str) {
    if let Some(s) = web_sys::window().and_then(|w| w.local_storage().ok().flatten()) {
        let _ = s.set_item(key, value);
    }
}

pub fn remove(key: &str) {
    if let Some(s) = web_sys::window().and_then(|w| w.local_storage().ok().flatten()) {
        let _ = s.remove_item(key);
    }
}

/// What was saved, read back; `None` if it no longer reads. Through a `Value`: the page already
/// carries serde_json's `Value` deserializer for every type, and a second (text) one per saved
/// type costs kilobytes (docs/size.md).
pub fn read_json<T: serde::de::DeserializeOwned>(text: &str) -> Option<T> {
    serde_json::from_str::<serde_json::Value>(text).ok().and_then(|v| serde_json::from_value(v).ok())
}
