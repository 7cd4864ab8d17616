//! The agent chunk's split points: a turn of the loop (the four phases, Claude's stream, the
//! checks made before sending, and the page's side of it: `state/conversation/turn.rs`), a
//! server's connection (`initialize`, the lists, the GET stream, its notifications, its end),
//! with the MCP and Messages clients they share, and the https page's client-id check at start.
//! (Views drawn by this chunk's code are in `mod.rs`.) The first
//! screen (composer, server form, timeline) shows without them; the chunk is fetched as soon as
//! the page has started, while the user types, so a first Send or Connect rarely waits
//! (ARCHITECTURE.md, "Chunks").

use std::rc::Rc;

use engine::cancel::CancelToken;
use engine::mcp::{McpClient, ServerNotification};
use futures::future::LocalBoxFuture;
use leptos::prelude::{ArcRwSignal, Get, Set};
#[cfg(loopscope_split)]
use wasm_split_helpers::wasm_split;

use super::ChunkMissing;
use crate::PagePlatform;
use crate::state::{Services, TurnInput};
#[cfg(not(loopscope_split))]
use wasm_split_helpers::SplitLoaderError;

split_point! {
    /// A turn of the loop, prepared by the first screen (`Conversation::turn_with`); whether
    /// Claude ended it itself.
    agent, preload preload_agent: fn run_turn(svc: Services, input: TurnInput) -> Result<LocalBoxFuture<'static, bool>, ChunkMissing> {
        Ok(Box::pin(svc.conversation.run_prepared(svc, input)))
    }
}

split_point! {
    /// Whether this https page is its own OAuth client id (`client-metadata.json` beside it),
    /// asked once at start before the saved servers reconnect, which wait for this chunk anyway.
    agent: fn check_metadata_document(platform: Rc<PagePlatform>) -> Result<LocalBoxFuture<'static, ()>, ChunkMissing> {
        Ok(Box::pin(async move { crate::state::check_metadata_document(&platform).await }))
    }
}

type Connection = LocalBoxFuture<'static, ()>;

split_point! {
    /// A server's connection, opened with the client `Services::connect` made.
    agent: fn open_connection(svc: Services, id: String, client: Rc<McpClient<PagePlatform>>, listen: CancelToken, url: String) -> Result<Connection, ChunkMissing> {
        Ok(Box::pin(svc.run_connection(id, client, listen, url)))
    }
}

split_point! {
    /// A notification from a connected server (only a connection this chunk opened has one).
    agent: fn server_notified(svc: Services, server: String, note: ServerNotification) -> Result<(), ChunkMissing> {
        crate::state::on_notification(svc, &server, note);
        Ok(())
    }
}

split_point! {
    /// A session's end (the DELETE, after unsubscribing).
    agent: fn close_connection(svc: Services, id: String, client: Rc<McpClient<PagePlatform>>) -> Result<Connection, ChunkMissing> {
        Ok(Box::pin(svc.close_connection(id, client)))
    }
}

/// Fetches the agent chunk now (the page has started; the user is about to type), then the other
/// chunks once the page is idle, so they do not share the network with it. A failure here is
/// tried again by the first Send or Connect, which says so if it fails too. Once the chunk is
/// in, `loopscope:agent-ready` is dispatched on window: index.html registers the service worker
/// then (its first download would share the network too), and scripts/bench-load.mjs times it.
pub fn fetch_soon() {
    leptos::task::spawn_local(async {
        if preload_agent().await.is_ok() {
            ARRIVED.with(|a| a.set(true));
            if let Ok(ready) = web_sys::CustomEvent::new("loopscope:agent-ready") {
                let _ = leptos::prelude::window().dispatch_event(&ready);
            }
        }
        super::prefetch_when_idle();
    });
}

thread_local! {
    /// Whether the agent chunk is in (set once by `fetch_soon`; a turn that loads it itself
    /// does not set it, so the line below may show for a moment longer than needed, never less).
    /// Reference-counted, not owned by the reactive owner that first reads it (which a view
    /// that shows and hides would dispose of).
    static ARRIVED: ArcRwSignal<bool> = ArcRwSignal::new(false);
}

/// Whether the agent chunk has arrived (reactive): the chat says a Send is waiting for it.
pub fn arrived() -> bool {
    ARRIVED.with(|a| a.get())
}
