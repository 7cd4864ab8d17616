# Build tools: the wasm target, Trunk, wasm-bindgen-cli and wasm-opt. Sourced after common.sh.

TRUNK_VERSION=0.21.14
BINARYEN_VERSION=132
TERSER_VERSION=5.51.4

ensure_rust() {
    require cargo "install Rust with rustup (https://rustup.rs)"
    require rustup "install Rust with rustup (https://rustup.rs)"
    if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
        step "Installing the Rust target wasm32-unknown-unknown"
        rustup target add wasm32-unknown-unknown
    fi
}

# Installs `cargo install NAME --version V` unless BIN --version already prints V.
cargo_tool() {  # cargo_tool BIN CRATE VERSION [extra cargo install args…]
    local bin=$1 crate=$2 version=$3; shift 3
    local have
    have=$("$bin" --version 2>/dev/null | awk '{print $2}' || true)
    if [ "$have" != "$version" ]; then
        step "Installing $crate $version with cargo (found: ${have:-none}); this takes minutes once"
        cargo install "$crate" --version "$version" --force "$@" \
            || die "cargo install $crate $version failed (see above)"
    fi
}

# The wasm-bindgen version the app is built with, read from Cargo.lock so the CLI always matches.
wasm_bindgen_version() {
    awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' "$ROOT/Cargo.lock"
}

# Trunk's own release profile asks for fat LTO in one codegen unit: one core for minutes at the
# end. Without it the install took 5 min 35 s instead of 7 min 24 s on 2 idle cores, and the
# binary builds a byte-identical dist/ (measured 2026-12-03).
ensure_trunk() {
    CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 \
        cargo_tool trunk trunk "$TRUNK_VERSION" --locked
}

ensure_wasm_bindgen() {
    local v
    v=$(wasm_bindgen_version)
    [ -n "$v" ] || die "cannot read the wasm-bindgen version from Cargo.lock"
    # --locked fails here: its lockfile wants a crate version the registry does not serve.
    cargo_tool wasm-bindgen wasm-bindgen-cli "$v"
}

# Installs npm's `package@version` into .tools/<dir> unless `have` (what the installed copy says
# its version is) is that version already: $1 dir, $2 package, $3 version, $4 have, $5 why.
npm_tool() {
    if [ "$4" != "$3" ]; then
        require_node
        step "Installing $2@$3 ($5) into .tools/$1"
        mkdir -p "$TOOLS/$1"
        npm install --silent --no-audit --no-fund --prefix "$TOOLS/$1" "$2@$3" || die "npm install $2@$3 failed"
    fi
}

# wasm-opt from npm's binaryen, never Debian's (its 108 breaks the app: toolchain notes).
ensure_wasm_opt() {
    npm_tool binaryen binaryen "$BINARYEN_VERSION" \
        "$("$TOOLS/binaryen/node_modules/.bin/wasm-opt" --version 2>/dev/null | awk '{print $3}' || true)" "wasm-opt"
}

# The release build minifies the JS that wasm-bindgen and the splitter write (Trunk minifies only
# the files it processes itself): terser, pure JS, pinned (docs/size.md).
ensure_minifier() {
    npm_tool terser terser "$TERSER_VERSION" \
        "$("$TOOLS/terser/node_modules/.bin/terser" --version 2>/dev/null | awk '{print $2}' || true)" "the JS minifier"
}

ensure_build_tools() {
    ensure_rust
    ensure_trunk
    ensure_wasm_bindgen
    ensure_wasm_opt
    ensure_minifier
    cargo fetch --quiet
}
