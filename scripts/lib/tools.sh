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

# wasm-opt from npm's binaryen, never Debian's (its 108 breaks the app: toolchain notes).
ensure_wasm_opt() {
    local have
    have=$("$TOOLS/binaryen/node_modules/.bin/wasm-opt" --version 2>/dev/null | awk '{print $3}' || true)
    if [ "$have" != "$BINARYEN_VERSION" ]; then
        require_node
        step "Installing wasm-opt (npm binaryen@$BINARYEN_VERSION) into .tools/binaryen"
        mkdir -p "$TOOLS/binaryen"
        npm install --silent --no-audit --no-fund --prefix "$TOOLS/binaryen" "binaryen@$BINARYEN_VERSION" \
            || die "npm install binaryen@$BINARYEN_VERSION failed"
    fi
}

# The release build minifies the JS that wasm-bindgen and the splitter write (Trunk minifies only
# the files it processes itself): terser, pure JS, pinned (docs/size.md).
ensure_minifier() {
    local have
    have=$("$TOOLS/terser/node_modules/.bin/terser" --version 2>/dev/null | awk '{print $2}' || true)
    if [ "$have" != "$TERSER_VERSION" ]; then
        require_node
        step "Installing terser@$TERSER_VERSION into .tools/terser"
        mkdir -p "$TOOLS/terser"
        npm install --silent --no-audit --no-fund --prefix "$TOOLS/terser" "terser@$TERSER_VERSION" \
            || die "npm install terser@$TERSER_VERSION failed"
    fi
}

ensure_build_tools() {
    ensure_rust
    ensure_trunk
    ensure_wasm_bindgen
    ensure_wasm_opt
    ensure_minifier
    cargo fetch --quiet
}
