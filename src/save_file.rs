//! Saving a file the user asked for: a session export, or what an MCP App asked to save and
//! the user agreed to (`engine::apps::DownloadFile`, its name already made safe).

use leptos::prelude::*;
use wasm_bindgen::JsCast;

/// Offers `bytes` as a download named `name`, of type `mime` (an app's files are saved as
/// `application/octet-stream`: bytes the browser does not open).
pub fn save_file(name: &str, bytes: &[u8], mime: &str) {
    let parts = js_sys::Array::of1(&js_sys::Uint8Array::from(bytes));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(mime);
    let Ok(blob) = web_sys::Blob::new_with_u8_array_sequence_and_options(&parts, &options) else { return };
    let Ok(url) = web_sys::Url::create_object_url_with_blob(&blob) else { return };
    if let Ok(a) = document().create_element("a") {
        let _ = a.set_attribute("href", &url);
        let _ = a.set_attribute("download", name);
        if let Ok(a) = a.dyn_into::<web_sys::HtmlElement>() {
            a.click();
        }
    }
    // The download starts after this task: revoking the URL now leaves some browsers with
    // nothing to save. A minute later the file has long been taken.
    set_timeout(
        move || {
            let _ = web_sys::Url::revoke_object_url(&url);
        },
        std::time::Duration::from_secs(60),
    );
}
