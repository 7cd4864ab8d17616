//! Who runs the authorization flow's steps (discovery, registration, sign-in, token requests).
//! `InPlace` runs them where they are called: the native driver and the tests. The page runs
//! them from code it loads only when a server first asks for authorization (its `signin` chunk,
//! src/chunks/), so that a visit which never signs in never downloads them; for that, nothing
//! on the first screen may call the steps directly, only through this seam.

use std::rc::Rc;

use futures::future::LocalBoxFuture;

use super::{AfterRefusal, Auth, AuthError};
use crate::platform::Platform;

/// The steps of [`Auth`] that talk to authorization servers, behind one indirection.
pub trait FlowRunner<P: Platform> {
    /// [`Auth::answer_now`].
    fn answer(
        &self,
        auth: Rc<Auth<P>>,
        status: u16,
        www_authenticate: Option<String>,
        seen_generation: u64,
    ) -> LocalBoxFuture<'static, Result<AfterRefusal, AuthError>>;
    /// [`Auth::refresh_now`].
    fn refresh(&self, auth: Rc<Auth<P>>) -> LocalBoxFuture<'static, ()>;
    /// [`Auth::sign_in_now`].
    fn sign_in(&self, auth: Rc<Auth<P>>) -> LocalBoxFuture<'static, Result<(), AuthError>>;
}

/// Runs the steps in place.
pub struct InPlace;

impl<P: Platform + 'static> FlowRunner<P> for InPlace {
    fn answer(
        &self,
        auth: Rc<Auth<P>>,
        status: u16,
        www_authenticate: Option<String>,
        seen_generation: u64,
    ) -> LocalBoxFuture<'static, Result<AfterRefusal, AuthError>> {
        Box::pin(async move { auth.answer_now(status, www_authenticate.as_deref(), seen_generation).await })
    }

    fn refresh(&self, auth: Rc<Auth<P>>) -> LocalBoxFuture<'static, ()> {
        Box::pin(async move { auth.refresh_now().await })
    }

    fn sign_in(&self, auth: Rc<Auth<P>>) -> LocalBoxFuture<'static, Result<(), AuthError>> {
        Box::pin(async move { auth.sign_in_now().await })
    }
}
