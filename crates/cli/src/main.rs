//! `loopscope`, Loopscope's native program. The page runs in a browser, which cannot start a
//! process and may not read a server that sends no CORS headers; `loopscope bridge` closes both
//! gaps on the user's own machine, and is built so that nothing but the user's page, holding the
//! token it printed, can use it (docs/bridge.md).

mod bridge;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "loopscope",
    version,
    about = "Loopscope's native program (the page itself runs in the browser: ./scripts/serve)"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Serve a stdio MCP server (or relay a server without CORS headers) to the page, on 127.0.0.1.
    Bridge(bridge::Options),
}

fn main() -> ExitCode {
    match Cli::parse().command {
        Command::Bridge(options) => bridge::main(options),
    }
}
