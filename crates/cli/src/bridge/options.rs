//! The bridge's command line, and what it becomes once checked: a [`Plan`] that fixes what the
//! bridge runs or relays, where it listens and whom it answers. Nothing a request carries can
//! change any of it.

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, SocketAddr, ToSocketAddrs};

use reqwest::Url;

/// Where Loopscope runs by default (`./scripts/serve`): allowed without `--allow-origin`.
pub const DEFAULT_ORIGINS: [&str; 2] = ["http://127.0.0.1:8080", "http://localhost:8080"];
const DEFAULT_PAGE: &str = "http://127.0.0.1:8080/";

const ENVIRONMENT_HELP: &str = "\
The child's environment: the bridge's own (the shell you start it from: PATH, HOME, and
whatever you exported), plus each --env KEY=VALUE. The token is never in it.

Every request must carry `Authorization: Bearer <token>` (a new random token each run, printed
once) and, from a browser, an Origin in the allowed list; `Origin: null` (a sandboxed frame,
such as an MCP App) and any Host but the address served are refused.

Examples:
  loopscope bridge -- npx -y @modelcontextprotocol/server-memory
  loopscope bridge --port 9100 -- uvx mcp-server-time
  loopscope bridge --to http://127.0.0.1:8000/mcp
  loopscope bridge --allow-origin https://you.github.io --json -- python server.py";

/// `loopscope bridge`'s options, as typed.
#[derive(clap::Args, Debug)]
#[command(after_help = ENVIRONMENT_HELP)]
pub struct Options {
    /// The port to listen on (default: a free one).
    #[arg(long)]
    pub port: Option<u16>,
    /// The address to listen on: 127.0.0.1, ::1 or localhost. Any other is refused.
    #[arg(long, default_value = "127.0.0.1", value_name = "ADDRESS")]
    pub bind: String,
    /// A page origin that may use the bridge, besides http://127.0.0.1:8080 and
    /// http://localhost:8080 (repeatable; e.g. https://you.github.io).
    #[arg(long = "allow-origin", value_name = "ORIGIN")]
    pub allow_origin: Vec<String>,
    /// Relay to this HTTP MCP server on this machine instead of running a command.
    #[arg(long, value_name = "URL")]
    pub to: Option<String>,
    /// Print the address, token and connect link as one JSON line first on stdout.
    #[arg(long)]
    pub json: bool,
    /// Add KEY=VALUE to the child's environment (repeatable).
    #[arg(long = "env", value_name = "KEY=VALUE")]
    pub env: Vec<String>,
    /// The Loopscope page the connect link opens (default: http://127.0.0.1:8080/); its
    /// origin is allowed.
    #[arg(long, value_name = "URL")]
    pub page: Option<String>,
    /// The stdio MCP server to run, after `--`.
    #[arg(last = true, value_name = "COMMAND")]
    pub command: Vec<String>,
}

/// What the bridge serves.
#[derive(Clone, Debug)]
pub enum Target {
    /// A stdio server, started once per session.
    Stdio { program: String, args: Vec<String>, env: Vec<(String, String)> },
    /// One HTTP MCP server on this machine, resolved once at start.
    Relay { url: Url },
}

impl Target {
    /// What it runs or relays, as the user wrote it (shown by the bridge and on the page's
    /// consent screen).
    pub fn describe(&self) -> String {
        match self {
            Target::Stdio { program, args, .. } => std::iter::once(program.as_str())
                .chain(args.iter().map(String::as_str))
                .map(quote)
                .collect::<Vec<_>>()
                .join(" "),
            Target::Relay { url } => url.to_string(),
        }
    }
}

/// An argument as a shell would need it.
fn quote(arg: &str) -> String {
    if !arg.is_empty() && arg.chars().all(|c| c.is_ascii_alphanumeric() || "-_./:=@%+,~".contains(c)) {
        arg.to_owned()
    } else {
        format!("'{}'", arg.replace('\'', r"'\''"))
    }
}

/// The checked command line.
#[derive(Clone, Debug)]
pub struct Plan {
    pub listen: SocketAddr,
    pub origins: Vec<String>,
    pub target: Target,
    pub page: Url,
    pub json: bool,
}

/// Why the command line cannot run, as a sentence that says what to do.
#[derive(Debug, PartialEq, Eq)]
pub struct UsageError(pub String);

impl fmt::Display for UsageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

fn usage(text: impl Into<String>) -> UsageError {
    UsageError(text.into())
}

impl Options {
    /// Checks everything before anything listens or starts.
    pub fn plan(self) -> Result<Plan, UsageError> {
        let ip = loopback(&self.bind).ok_or_else(|| {
            usage(format!(
                "--bind {}: the bridge listens on this machine only (127.0.0.1, ::1 or localhost), never on a network \
                 another machine can reach",
                self.bind
            ))
        })?;
        let page = Url::parse(self.page.as_deref().unwrap_or(DEFAULT_PAGE))
            .ok()
            .filter(|u| matches!(u.scheme(), "http" | "https") && u.host().is_some())
            .ok_or_else(|| {
                usage("--page needs the http(s) address of a Loopscope page, such as http://127.0.0.1:8080/")
            })?;
        let mut origins: Vec<String> = DEFAULT_ORIGINS.iter().map(|o| (*o).to_owned()).collect();
        for given in self
            .allow_origin
            .iter()
            .map(String::as_str)
            .chain(std::iter::once(page.origin().ascii_serialization().as_str()))
        {
            let origin = origin(given)?;
            if !origins.contains(&origin) {
                origins.push(origin);
            }
        }
        let target = match (self.to, self.command.split_first()) {
            (Some(_), Some(_)) => {
                return Err(usage(
                    "give either --to URL or a command after --, not both: one bridge serves one server",
                ));
            }
            (None, None) => {
                return Err(usage(
                    "name the stdio server to run after -- (loopscope bridge -- npx -y @modelcontextprotocol/server-memory), \
                     or a server to relay with --to URL",
                ));
            }
            (Some(to), None) => Target::Relay { url: relay_target(&to)? },
            (None, Some((program, args))) => {
                let env = self
                    .env
                    .iter()
                    .map(|pair| match pair.split_once('=') {
                        Some((k, v)) if !k.is_empty() => Ok((k.to_owned(), v.to_owned())),
                        _ => Err(usage(format!("--env {pair}: write it as KEY=VALUE"))),
                    })
                    .collect::<Result<_, _>>()?;
                Target::Stdio { program: program.clone(), args: args.to_vec(), env }
            }
        };
        if matches!(target, Target::Relay { .. }) && !self.env.is_empty() {
            return Err(usage("--env is for a command the bridge runs; with --to nothing is started"));
        }
        Ok(Plan { listen: SocketAddr::new(ip, self.port.unwrap_or(0)), origins, target, page, json: self.json })
    }
}

/// The loopback address `text` names, if it names one.
fn loopback(text: &str) -> Option<IpAddr> {
    if text.eq_ignore_ascii_case("localhost") {
        return Some(IpAddr::V4(Ipv4Addr::LOCALHOST));
    }
    text.trim_start_matches('[').trim_end_matches(']').parse::<IpAddr>().ok().filter(IpAddr::is_loopback)
}

/// An origin as browsers send it: `scheme://host[:port]`, lower case, nothing after.
fn origin(text: &str) -> Result<String, UsageError> {
    let refuse = |why: &str| usage(format!("--allow-origin {text}: {why}"));
    if text.trim().eq_ignore_ascii_case("null") {
        return Err(refuse("`null` is what a sandboxed frame (an MCP App, a file) sends, and is never allowed"));
    }
    let url = Url::parse(text).map_err(|_| refuse("write an origin such as https://you.github.io"))?;
    if !matches!(url.scheme(), "http" | "https") || url.host().is_none() {
        return Err(refuse("an origin is http:// or https:// and a host"));
    }
    if url.path() != "/" || url.query().is_some() || url.fragment().is_some() || !url.username().is_empty() {
        return Err(refuse("an origin has no path, query or user: only scheme://host[:port]"));
    }
    Ok(url.origin().ascii_serialization())
}

/// The one server `--to` relays to: plain http on this machine, its name resolved now and never
/// again (a name resolved per request could be rebound to another address in between).
fn relay_target(text: &str) -> Result<Url, UsageError> {
    let refuse = |why: &str| usage(format!("--to {text}: {why}"));
    let mut url =
        Url::parse(text).map_err(|_| refuse("write the server's address, such as http://127.0.0.1:8000/mcp"))?;
    if url.scheme() != "http" {
        return Err(refuse(
            "the bridge relays plain http on this machine; a server on https already has what a browser needs, \
             or can send CORS headers itself",
        ));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(refuse("put no user or password in the address"));
    }
    let host = url.host_str().unwrap_or_default().to_owned();
    let port = url.port_or_known_default().unwrap_or(80);
    let resolved = (host.trim_start_matches('[').trim_end_matches(']'), port)
        .to_socket_addrs()
        .map_err(|e| refuse(&format!("cannot resolve {host}: {e}")))?
        .map(|a| a.ip())
        .collect::<Vec<_>>();
    let ip = match resolved.first() {
        Some(ip) if resolved.iter().all(IpAddr::is_loopback) => *ip,
        _ => return Err(refuse("the bridge relays only to a server on this machine (127.0.0.1, ::1 or localhost)")),
    };
    url.set_ip_host(ip).map_err(|()| refuse("cannot use this host"))?;
    Ok(url)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(args: &[&str]) -> Options {
        use clap::Parser;
        #[derive(clap::Parser)]
        struct Wrap {
            #[command(flatten)]
            o: Options,
        }
        Wrap::try_parse_from(std::iter::once("bridge").chain(args.iter().copied())).expect("parses").o
    }

    #[test]
    fn it_listens_on_loopback_only() {
        for bind in ["0.0.0.0", "::", "192.168.1.2", "10.0.0.1", "example.com", "127.0.0.1.nip.io"] {
            let e = options(&["--bind", bind, "--", "x"]).plan().unwrap_err();
            assert!(e.0.contains("this machine only"), "{bind}: {e}");
        }
        for bind in ["127.0.0.1", "::1", "[::1]", "localhost", "127.1.2.3"] {
            let plan = options(&["--bind", bind, "--", "x"]).plan().unwrap();
            assert!(plan.listen.ip().is_loopback(), "{bind}");
        }
    }

    #[test]
    fn origins_are_exact_and_never_null() {
        let plan = options(&["--allow-origin", "https://You.GitHub.io", "--", "x"]).plan().unwrap();
        assert_eq!(plan.origins, ["http://127.0.0.1:8080", "http://localhost:8080", "https://you.github.io"]);
        for bad in ["null", "https://you.github.io/loopscope", "ftp://x", "you.github.io", "https://a@b.c"] {
            assert!(options(&["--allow-origin", bad, "--", "x"]).plan().is_err(), "{bad}");
        }
        let plan = options(&["--page", "http://127.0.0.1:8081/?demo", "--", "x"]).plan().unwrap();
        assert!(plan.origins.contains(&"http://127.0.0.1:8081".to_owned()));
    }

    #[test]
    fn a_relay_goes_to_this_machine_resolved_once() {
        let plan = options(&["--to", "http://localhost:8000/mcp"]).plan().unwrap();
        let Target::Relay { url } = plan.target else { panic!("relay") };
        assert!(url.host_str() == Some("127.0.0.1") || url.host_str() == Some("[::1]"), "{url}");
        assert_eq!(url.path(), "/mcp");
        for bad in ["https://127.0.0.1/mcp", "http://192.168.0.2:8000/mcp", "http://u:p@127.0.0.1/mcp", "nope"] {
            assert!(options(&["--to", bad]).plan().is_err(), "{bad}");
        }
        assert!(options(&["--to", "http://127.0.0.1:1/mcp", "--", "x"]).plan().is_err());
        assert!(options(&[]).plan().is_err());
    }

    #[test]
    fn the_command_is_shown_as_a_shell_would_need_it() {
        let plan = options(&["--env", "A=1", "--", "npx", "-y", "@scope/server", "my notes", "it's"]).plan().unwrap();
        assert_eq!(plan.target.describe(), r"npx -y @scope/server 'my notes' 'it'\''s'");
        assert!(options(&["--env", "novalue", "--", "x"]).plan().is_err());
    }
}
