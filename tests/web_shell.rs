//! DOM tests of the app shell, run in headless Chromium by wasm-bindgen-test
//! (`cargo test --target wasm32-unknown-unknown`).
#![cfg(target_arch = "wasm32")]

use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn document() -> web_sys::Document {
    web_sys::window().unwrap().document().unwrap()
}

/// Mounts the app into a fresh container and returns the container.
fn mount() -> web_sys::HtmlElement {
    let host: web_sys::HtmlElement = document().create_element("div").unwrap().unchecked_into();
    document().body().unwrap().append_child(&host).unwrap();
    let handle = leptos::mount::mount_to(host.clone(), loopscope::App);
    handle.forget();
    host
}

fn region_names(host: &web_sys::HtmlElement) -> Vec<String> {
    let sections = host.query_selector_all("section[aria-labelledby]").unwrap();
    (0..sections.length())
        .map(|i| {
            let s: web_sys::Element = sections.item(i).unwrap().unchecked_into();
            let label_id = s.get_attribute("aria-labelledby").unwrap();
            document().get_element_by_id(&label_id).unwrap().text_content().unwrap()
        })
        .collect()
}

#[wasm_bindgen_test]
async fn shell_has_its_named_areas() {
    let host = mount();
    leptos::task::tick().await;
    assert_eq!(region_names(&host), ["Settings", "Servers", "Workshop", "Chat", "Timeline"]);
    assert_eq!(host.query_selector("h1").unwrap().unwrap().text_content().unwrap(), "Loopscope");
    host.remove();
}

#[wasm_bindgen_test]
async fn theme_toggle_switches_and_names_the_next_theme() {
    let host = mount();
    leptos::task::tick().await;
    let root = document().document_element().unwrap();
    let button: web_sys::HtmlElement = host.query_selector("button.theme-toggle").unwrap().unwrap().unchecked_into();
    let before = root.get_attribute("data-theme").unwrap();
    let label = button.get_attribute("aria-label").unwrap();
    let other = if before == "dark" { "light" } else { "dark" };
    assert_eq!(label, format!("Switch to {other} theme"));
    button.click();
    leptos::task::tick().await;
    assert_eq!(root.get_attribute("data-theme").unwrap(), other);
    assert_eq!(button.get_attribute("aria-label").unwrap(), format!("Switch to {before} theme"));
    button.click();
    leptos::task::tick().await;
    host.remove();
}

/// A task a component starts ends with the component: dropped at its next await, it writes
/// nothing afterwards (`loopscope::task::spawn_owned`).
#[wasm_bindgen_test]
async fn a_task_stops_with_its_owner() {
    use leptos::prelude::*;
    let wrote = RwSignal::new(0u32);
    let sleep = |ms: i32| {
        wasm_bindgen_futures::JsFuture::from(js_sys::Promise::new(&mut |resolve, _| {
            web_sys::window().unwrap().set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms).unwrap();
        }))
    };
    let run = |owner: &Owner| {
        owner.with(|| {
            loopscope::task::spawn_owned(async move {
                let _ = sleep(30).await;
                wrote.update(|n| *n += 1);
            })
        })
    };
    let kept = Owner::new();
    run(&kept);
    let gone = Owner::new();
    run(&gone);
    gone.cleanup();
    let _ = sleep(100).await;
    assert_eq!(wrote.get_untracked(), 1, "only the task whose owner lives wrote");
}
