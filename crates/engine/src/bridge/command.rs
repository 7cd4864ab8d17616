//! A command line typed where a server's address goes (`npx -y @modelcontextprotocol/server-memory`,
//! `uvx mcp-server-git`): a stdio server, which a page cannot start. The page answers with the
//! bridge command that serves it, this page's address filled in.

/// Programs that start stdio servers, as people type them.
const LAUNCHERS: [&str; 18] = [
    "npx", "npx.cmd", "uvx", "uv", "node", "python", "python3", "py", "docker", "podman", "deno", "bun", "bunx",
    "pipx", "go", "cargo", "java", "dotnet",
];

/// The words of a command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommandLine {
    pub words: Vec<String>,
}

impl CommandLine {
    /// `text` as a command line, when it is one rather than an address: it starts with a program
    /// that launches servers or with a path, or it has spaces and no `://`.
    pub fn read(text: &str) -> Option<CommandLine> {
        let text = text.trim();
        if text.is_empty() || text.contains("://") || text.lines().count() > 1 {
            return None;
        }
        let words = split(text)?;
        let first = words.first()?;
        let program = first.rsplit(['/', '\\']).next().unwrap_or(first).to_ascii_lowercase();
        let looks_like = LAUNCHERS.contains(&program.as_str())
            || first.starts_with("./")
            || first.starts_with('/')
            || first.starts_with("~/")
            || (words.len() > 1 && !first.contains('.') && !first.contains(':'));
        looks_like.then_some(CommandLine { words })
    }

    /// The words quoted as a POSIX shell needs them.
    pub fn quoted(&self) -> String {
        self.words.iter().map(|w| quote(w)).collect::<Vec<_>>().join(" ")
    }
}

/// Splits like a POSIX shell: spaces separate, '…' and "…" group, \ escapes (outside '…').
fn split(text: &str) -> Option<Vec<String>> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                loop {
                    match chars.next()? {
                        '\'' => break,
                        c => word.push(c),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next()? {
                        '"' => break,
                        '\\' => word.push(chars.next()?),
                        c => word.push(c),
                    }
                }
            }
            '\\' => {
                in_word = true;
                word.push(chars.next()?);
            }
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    Some(words)
}

fn quote(word: &str) -> String {
    if !word.is_empty() && word.chars().all(|c| c.is_ascii_alphanumeric() || "-_./:=@%+,~".contains(c)) {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// Where the bridge's connect link opens by default (its `--page`).
const DEFAULT_PAGE: &str = "http://127.0.0.1:8080/";

/// `--page <this page>` unless this page is the bridge's default.
fn page_option(page: &str) -> String {
    if page == DEFAULT_PAGE { String::new() } else { format!("--page {} ", quote(page)) }
}

/// The command that serves `command` to the page at `page` (its address without a fragment).
pub fn bridge_command(command: &CommandLine, page: &str) -> String {
    format!("loopscope bridge {}-- {}", page_option(page), command.quoted())
}

/// The command that relays a server without CORS headers to the page at `page`.
pub fn relay_command(server: &str, page: &str) -> String {
    format!("loopscope bridge {}--to {}", page_option(page), quote(server))
}

#[cfg(test)]
#[allow(clippy::indexing_slicing)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<String> {
        CommandLine::read(text).map(|c| c.words).unwrap_or_default()
    }

    #[test]
    fn command_lines_are_told_from_addresses() {
        assert_eq!(
            words("npx -y @modelcontextprotocol/server-filesystem ~/notes"),
            ["npx", "-y", "@modelcontextprotocol/server-filesystem", "~/notes"]
        );
        assert_eq!(words("uvx mcp-server-git"), ["uvx", "mcp-server-git"]);
        assert_eq!(words(r#"python "my server.py" --flag 'a b'"#), ["python", "my server.py", "--flag", "a b"]);
        assert_eq!(words("./target/release/server --stdio"), ["./target/release/server", "--stdio"]);
        assert_eq!(words("my-server --stdio"), ["my-server", "--stdio"]);
        for address in [
            "http://127.0.0.1:8000/mcp",
            "example.com/mcp",
            "127.0.0.1:8000/mcp",
            "localhost:3000",
            "",
            "npx 'unclosed",
        ] {
            assert_eq!(CommandLine::read(address), None, "{address}");
        }
    }

    #[test]
    fn the_bridge_command_carries_this_pages_address() {
        let c = CommandLine::read("python 'my server.py'").unwrap();
        assert_eq!(bridge_command(&c, "http://127.0.0.1:8080/"), "loopscope bridge -- python 'my server.py'");
        assert_eq!(
            bridge_command(&c, "https://you.github.io/loopscope/"),
            "loopscope bridge --page https://you.github.io/loopscope/ -- python 'my server.py'"
        );
        assert_eq!(
            relay_command("http://127.0.0.1:8000/mcp", "http://localhost:8080/"),
            "loopscope bridge --page http://localhost:8080/ --to http://127.0.0.1:8000/mcp"
        );
    }
}
