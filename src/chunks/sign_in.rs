//! The authorization flow's steps as split points: the page's `FlowRunner` (engine::auth) runs
//! them from the signin chunk.

use std::rc::Rc;

use engine::auth::{AfterRefusal, Auth, AuthError, FlowRunner, InPlace};
use futures::future::LocalBoxFuture;
#[cfg(loopscope_split)]
use wasm_split_helpers::wasm_split;

use super::ChunkMissing;
use crate::PagePlatform;

/// A step of the authorization flow that talks to authorization servers, as a future run from
/// the signin chunk (engine::auth::FlowRunner; `SignInFromChunk` below).
type AuthStep<T> = Result<LocalBoxFuture<'static, Result<T, AuthError>>, ChunkMissing>;

split_point! {
    /// What to do after a server's 401 or 403.
    signin: fn auth_answer(auth: Rc<Auth<PagePlatform>>, status: u16, www: Option<String>, seen: u64) -> AuthStep<AfterRefusal> {
        Ok(InPlace.answer(auth, status, www, seen))
    }
}

split_point! {
    /// Refreshing a token about to expire.
    signin: fn auth_refresh(auth: Rc<Auth<PagePlatform>>) -> AuthStep<()> {
        let refresh = InPlace.refresh(auth);
        Ok(Box::pin(async move {
            refresh.await;
            Ok(())
        }))
    }
}

split_point! {
    /// Signing in from the card's button.
    signin: fn auth_sign_in(auth: Rc<Auth<PagePlatform>>) -> AuthStep<()> {
        Ok(InPlace.sign_in(auth))
    }
}

/// The page's authorization flow runner: the steps come from the signin chunk, so a visit that
/// never signs in never downloads them. A chunk that does not arrive is the flow's own error
/// (`AuthError::CodeMissing`), shown on the card like any other.
pub struct SignInFromChunk;

impl FlowRunner<PagePlatform> for SignInFromChunk {
    fn answer(
        &self,
        auth: Rc<Auth<PagePlatform>>,
        status: u16,
        www: Option<String>,
        seen: u64,
    ) -> LocalBoxFuture<'static, Result<AfterRefusal, AuthError>> {
        Box::pin(async move { auth_answer(auth, status, www, seen).await.map_err(|_| AuthError::CodeMissing)?.await })
    }

    fn refresh(&self, auth: Rc<Auth<PagePlatform>>) -> LocalBoxFuture<'static, ()> {
        // Without the code a due refresh is skipped: the request goes out, and a 401 says why.
        Box::pin(async move {
            if let Ok(refresh) = auth_refresh(auth).await {
                let _ = refresh.await;
            }
        })
    }

    fn sign_in(&self, auth: Rc<Auth<PagePlatform>>) -> LocalBoxFuture<'static, Result<(), AuthError>> {
        Box::pin(async move { auth_sign_in(auth).await.map_err(|_| AuthError::CodeMissing)?.await })
    }
}
