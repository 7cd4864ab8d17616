//! The MCP connector comparison ("Ask both ways"): the same question in the page's loop and
//! through the API's connector, figure by figure (`engine::timeline::side_by_side`). In the
//! agent chunk: it exists only after two turns ran.

use leptos::prelude::*;

use super::state::use_services;

/// The comparison's panel, where the chat ends (mounted while there is one).
#[component]
pub fn ComparisonPanel() -> impl IntoView {
    let svc = use_services();
    let conv = svc.conversation;
    move || {
        conv.comparison.get().map(|c| {
            let via = c.via_api.join(", ");
            view! {
                <section class="panel comparison" aria-labelledby="comparison-title">
                    <div class="panel-head">
                        <h2 id="comparison-title">"Both ways compared"</h2>
                        <button type="button" class="link" on:click=move |_| conv.comparison.set(None)>"Close"</button>
                    </div>
                    <p class="muted">
                        {format!("\u{201c}{}\u{201d}: first in this page's loop, then through the API's MCP connector. Compared: {via} (\u{201c}them\u{201d} below). ", c.question)}
                        "Both turns are on the timeline, the page's above the connector's: in the first the page sends tools/list and tools/call on each server's lane; in the second, the calls are on the API's own lane."
                    </p>
                    <table class="compare-table">
                        <thead>
                            <tr><th scope="col">"What"</th><th scope="col">"In the page's loop"</th><th scope="col">"Through the MCP connector"</th></tr>
                        </thead>
                        <tbody>
                            {c.rows.into_iter().map(|r| view! {
                                <tr><th scope="row">{r.what}</th><td>{r.in_page}</td><td>{r.connector}</td></tr>
                            }).collect_view()}
                        </tbody>
                    </table>
                    {(!c.refused.is_empty()).then(|| view! {
                        <ul class="compare-refused" aria-label="Servers the connector could not call">
                            {c.refused.into_iter().map(|(label, why)| view! { <li>{format!("{label}: {why}.")}</li> }).collect_view()}
                        </ul>
                    })}
                </section>
            }
        })
    }
}
