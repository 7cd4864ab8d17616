//! Newline-delimited reading with a bound: a line over the limit is not kept, only measured, so a
//! child that writes 100 MB without a newline costs the bridge no more than the limit.

use tokio::io::{AsyncBufRead, AsyncBufReadExt};

#[derive(Debug, PartialEq, Eq)]
pub enum Line {
    /// A whole line, without its `\n` (or `\r\n`).
    Whole(Vec<u8>),
    /// A line longer than the limit, dropped; its length.
    TooLong(usize),
}

/// The next line, `None` at the end of the stream (a last line without `\n` still counts).
pub async fn next<R: AsyncBufRead + Unpin>(reader: &mut R, max: usize) -> std::io::Result<Option<Line>> {
    let mut kept = Vec::new();
    let mut length = 0usize;
    loop {
        let available = reader.fill_buf().await?;
        if available.is_empty() {
            return Ok((length > 0).then(|| finish(kept, length, max)));
        }
        let (part, done) = match available.iter().position(|b| *b == b'\n') {
            Some(i) => (available.get(..i).unwrap_or_default(), Some(i + 1)),
            None => (available, None),
        };
        length += part.len();
        if length <= max {
            kept.extend_from_slice(part);
        } else if !kept.is_empty() {
            kept = Vec::new();
        }
        let used = done.unwrap_or(available.len());
        reader.consume(used);
        if done.is_some() {
            return Ok(Some(finish(kept, length, max)));
        }
    }
}

fn finish(mut kept: Vec<u8>, length: usize, max: usize) -> Line {
    if length > max {
        return Line::TooLong(length);
    }
    if kept.last() == Some(&b'\r') {
        kept.pop();
    }
    Line::Whole(kept)
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn all(input: &[u8], max: usize) -> Vec<Line> {
        let mut reader = tokio::io::BufReader::with_capacity(4, input);
        let mut out = Vec::new();
        while let Some(line) = next(&mut reader, max).await.unwrap() {
            out.push(line);
        }
        out
    }

    #[tokio::test]
    async fn lines_split_anywhere_come_out_whole_or_measured() {
        let lines = all(b"{\"a\":1}\r\n0123456789abc\n\nlast", 10).await;
        assert_eq!(
            lines,
            [
                Line::Whole(b"{\"a\":1}".to_vec()),
                Line::TooLong(13),
                Line::Whole(Vec::new()),
                Line::Whole(b"last".to_vec())
            ]
        );
    }
}
