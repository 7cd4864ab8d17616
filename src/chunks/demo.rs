//! The demo model and the demo server as a split point: the page's `DemoRunner`
//! (engine::demo) answers `demo://` requests from the demo chunk, so a visit that never uses
//! the demo never downloads them.

use engine::demo::{Demo, DemoRunner};
use engine::platform::{HttpRequest, HttpResponse, NetworkError};
use futures::future::LocalBoxFuture;
#[cfg(loopscope_split)]
use wasm_split_helpers::wasm_split;

use super::ChunkMissing;
use crate::platform::Browser;
#[cfg(not(loopscope_split))]
use wasm_split_helpers::SplitLoaderError;

type Answer = LocalBoxFuture<'static, Result<HttpResponse, NetworkError>>;

split_point! {
    /// A request to the demo model or the demo server, answered.
    demo, preload preload_demo: fn demo_answer(demo: Demo<Browser>, request: HttpRequest) -> Result<Answer, ChunkMissing> {
        Ok(Box::pin(async move { demo.answer_now(request).await }))
    }
}

/// The page's demo runner. A chunk that does not arrive is a network error on the request
/// (the loop and the card name its layer), with what to do.
pub struct DemoFromChunk;

impl DemoRunner<Browser> for DemoFromChunk {
    fn answer(&self, demo: Demo<Browser>, request: HttpRequest) -> Answer {
        Box::pin(async move {
            let answer = demo_answer(demo, request).await.map_err(|_| {
                NetworkError::new(
                    "the demo's code did not arrive (offline on a first visit, or the site was updated): \
                     reload the page when online to use the demo",
                )
            })?;
            answer.await
        })
    }
}
