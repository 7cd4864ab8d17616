# Shared helpers for scripts/serve and scripts/test. Sourced, not run.
# Every ensure_* function is idempotent: it checks the exact version it needs and installs only
# what is missing or wrong, saying what it installs.

set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
TOOLS="$ROOT/.tools"          # project-local tools (npm binaryen); git-ignored
export PATH="$HOME/.cargo/bin:$TOOLS/binaryen/node_modules/.bin:$TOOLS/terser/node_modules/.bin:$PATH"

# Each step says when it started (seconds since the script began), so slow layers show.
step() { printf '\033[1;34m==>\033[0m [%3d s] %s\n' "$SECONDS" "$*" >&2; }
info() { printf '    %s\n' "$*" >&2; }
die() { printf '\033[1;31merror:\033[0m %s\n' "$*" >&2; exit 1; }

# Runs a command as root: directly when we are root, through sudo when it works without a
# password prompt, otherwise fails with what the user must install by hand.
as_root() {
    if [ "$(id -u)" = 0 ]; then
        "$@"
    elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
        sudo "$@"
    else
        return 1
    fi
}

require() {  # require CMD "how to get it"
    command -v "$1" >/dev/null || die "$1 is required: $2"
}

# The version a command reports, checked against a minimum (dotted numbers, compared as versions).
require_version() {  # require_version NAME HAVE MIN "how to get it"
    [ "$(printf '%s\n%s\n' "$3" "$2" | sort -V | head -1)" = "$3" ] \
        || die "$1 $3 or newer is required, found $2: $4"
}

# Node.js 20+ with npm (wasm-opt from npm's binaryen, Playwright, server-everything).
require_node() {
    require node "install Node.js 20+ and npm"
    require npm "install Node.js 20+ and npm"
    require_version Node.js "$(node -p process.versions.node)" 20 "install Node.js 20+ and npm"
}

# Prints a file's content hash (used to notice that a lockfile changed since the last install).
hash_of() { cat "$@" | sha256sum | cut -c1-16; }
