//! The `split_point!` macro (mod.rs, sign_in.rs and demo.rs use it; declared first, as macros are
//! visible only after their definition). A call site has `Loaded`, `SplitLoaderError` and
//! (with `loopscope_split`) `wasm_split` in scope.

/// A split point. Built with `--cfg loopscope_split` (the page itself: scripts/build-wasm.mjs
/// sets it for every build Trunk makes, debug or release), a `#[wasm_split]` function whose code
/// lands in its chunk; built without (the browser tests, which wasm-bindgen-test links whole,
/// with no chunk loader), the same body as a plain async function.
macro_rules! split_point {
    ($(#[doc = $doc:literal])* $chunk:ident $(, preload $preload:ident)?: fn $name:ident($($arg:ident: $ty:ty),*) $body:block) => {
        split_point! { $(#[doc = $doc])* $chunk $(, preload $preload)?: fn $name($($arg: $ty),*) -> Loaded $body }
    };
    ($(#[doc = $doc:literal])* $chunk:ident $(, preload $preload:ident)?: fn $name:ident($($arg:ident: $ty:ty),*) -> $ret:ty $body:block) => {
        $(#[doc = $doc])*
        #[cfg(loopscope_split)]
        #[wasm_split($chunk, fallible $(, preload($preload))?)]
        pub fn $name($($arg: $ty),*) -> $ret $body

        $(#[doc = $doc])*
        #[cfg(not(loopscope_split))]
        pub async fn $name($($arg: $ty),*) -> $ret $body

        $(
            #[cfg(not(loopscope_split))]
            pub async fn $preload() -> Result<(), SplitLoaderError> {
                Ok(())
            }
        )?
    };
}
