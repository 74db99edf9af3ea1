//! `cm mcp`'s stdin and stdout, between the process and the MCP server. JSON-RPC asks a server
//! to answer a message it cannot parse with error -32700 (id null); the SDK's stdio transport
//! drops such a line without a word, so the client waits for an answer that never comes. Here
//! each line is looked at first: one that is not JSON is answered with -32700, the rest go on to
//! the server unchanged.
//!
//! stdout has one writer, the [`pump_out`] task: the server writes into a pipe the task reads,
//! and the task writes whole lines only, putting a parse error between two of the server's lines,
//! never inside one. A line longer than [`MAX_LINE`] is passed on unread (the server drops it, as
//! it always did), so a client cannot make this side buffer more than that.

use tokio::io::{
    AsyncBufReadExt, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader, DuplexStream,
};
use tokio::sync::mpsc;

/// The longest line looked at; the server's own limit (16 MiB) is the same.
pub const MAX_LINE: usize = 16 * 1024 * 1024;

/// What a line that is not JSON is answered with.
pub const PARSE_ERROR: &str = r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: the line is not JSON"}}"#;

/// The pipes the server reads and writes, and the tasks that connect them to stdin and stdout.
/// Await `out` after the server ends, so everything it wrote reaches stdout.
pub struct Wired {
    pub server_in: DuplexStream,
    pub server_out: DuplexStream,
    pub out: tokio::task::JoinHandle<()>,
}

/// Connect `input` and `output` (stdin and stdout) to a server through the line check.
pub fn wire<R, W>(input: R, output: W) -> Wired
where
    R: tokio::io::AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    const PIPE: usize = 64 * 1024;
    let (server_in, feed) = tokio::io::duplex(PIPE);
    let (server_out, from_server) = tokio::io::duplex(PIPE);
    let (errors, errors_rx) = mpsc::unbounded_channel();
    tokio::spawn(pump_in(input, feed, errors));
    let out = tokio::spawn(pump_out(from_server, errors_rx, output));
    Wired {
        server_in,
        server_out,
        out,
    }
}

/// Whether a line (without its line break) is something other than JSON. A blank line is
/// not a message at all, so it is not answered.
pub fn unparsable(line: &[u8]) -> bool {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return false;
    }
    match serde_json::from_slice::<serde::de::IgnoredAny>(line) {
        Ok(_) => false,
        Err(e) => matches!(
            e.classify(),
            serde_json::error::Category::Syntax | serde_json::error::Category::Eof
        ),
    }
}

/// stdin to the server, line by line; a line that is not JSON goes to the writer as a parse
/// error instead. Ends (closing the server's input) when stdin or the server's input closes.
async fn pump_in<R>(input: R, mut feed: DuplexStream, errors: mpsc::UnboundedSender<()>)
where
    R: tokio::io::AsyncRead + Unpin,
{
    let mut input = BufReader::new(input);
    let mut line = Vec::new();
    loop {
        line.clear();
        let n = match (&mut input)
            .take(MAX_LINE as u64)
            .read_until(b'\n', &mut line)
            .await
        {
            Ok(n) => n,
            Err(_) => return,
        };
        if n == 0 {
            return;
        }
        let whole = line.ends_with(b"\n");
        if whole || n < MAX_LINE {
            let body = line.strip_suffix(b"\n").unwrap_or(&line);
            if unparsable(body) {
                if errors.send(()).is_err() {
                    return;
                }
                continue;
            }
            if feed.write_all(&line).await.is_err() {
                return;
            }
            if !whole {
                return; // the last line, without a line break: stdin is at its end
            }
            continue;
        }
        // Past the limit: pass the line on as it comes; the server drops it.
        if feed.write_all(&line).await.is_err() {
            return;
        }
        loop {
            let chunk = match input.fill_buf().await {
                Ok([]) | Err(_) => return,
                Ok(chunk) => chunk,
            };
            let (take, done) = match chunk.iter().position(|b| *b == b'\n') {
                Some(at) => (at + 1, true),
                None => (chunk.len(), false),
            };
            if feed.write_all(&chunk[..take]).await.is_err() {
                return;
            }
            input.consume(take);
            if done {
                break;
            }
        }
    }
}

/// The one writer of stdout: the server's output, whole lines at a time, and a parse error
/// for each unparsable line, written only between two of the server's lines.
async fn pump_out<W>(
    mut from_server: DuplexStream,
    mut errors: mpsc::UnboundedReceiver<()>,
    mut output: W,
) where
    W: AsyncWrite + Unpin,
{
    let mut pending: Vec<u8> = Vec::new();
    let mut owed = 0usize;
    let mut chunk = vec![0u8; 64 * 1024];
    let mut server_open = true;
    let mut errors_open = true;
    while server_open || errors_open {
        tokio::select! {
            read = from_server.read(&mut chunk), if server_open => match read {
                Ok(0) | Err(_) => server_open = false,
                Ok(n) => {
                    pending.extend_from_slice(&chunk[..n]);
                    if let Some(last) = pending.iter().rposition(|b| *b == b'\n') {
                        let rest = pending.split_off(last + 1);
                        if output.write_all(&pending).await.is_err() {
                            return;
                        }
                        pending = rest;
                    }
                }
            },
            got = errors.recv(), if errors_open => match got {
                Some(()) => owed += 1,
                None => errors_open = false,
            },
        }
        // A parse error waits while the server is part way through a line.
        if pending.is_empty() {
            while owed > 0 {
                owed -= 1;
                if output.write_all(PARSE_ERROR.as_bytes()).await.is_err()
                    || output.write_all(b"\n").await.is_err()
                {
                    return;
                }
            }
        }
        if output.flush().await.is_err() {
            return;
        }
        // Once the server has stopped, nothing more is answered, except the parse errors of
        // lines already read: they may still sit in the channel when the server's output ends
        // first (a client that sends a bad line and then closes stdin must get its -32700).
        if !server_open {
            while errors.try_recv().is_ok() {
                owed += 1;
            }
            if pending.is_empty() {
                for _ in 0..owed {
                    if output.write_all(PARSE_ERROR.as_bytes()).await.is_err()
                        || output.write_all(b"\n").await.is_err()
                    {
                        return;
                    }
                }
            }
            break;
        }
    }
    if !pending.is_empty() {
        let _ = output.write_all(&pending).await;
    }
    let _ = output.flush().await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_text_that_is_not_json_is_unparsable() {
        assert!(unparsable(b"hello"));
        assert!(unparsable(b"{\"jsonrpc\":"));
        assert!(unparsable(b"{} {}"));
        assert!(!unparsable(
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}"
        ));
        assert!(!unparsable(b"{\"jsonrpc\":\"2.0\"}\r"));
        assert!(
            !unparsable(b"[1,2]"),
            "JSON of the wrong shape is the server's to answer"
        );
        assert!(!unparsable(b"   "));
    }

    #[test]
    fn a_parse_error_never_lands_inside_a_server_line() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async {
            let (mut server_w, from_server) = tokio::io::duplex(1024);
            let (errors, errors_rx) = mpsc::unbounded_channel();
            let (sink, mut read_back) = tokio::io::duplex(1 << 20);
            let out = tokio::spawn(pump_out(from_server, errors_rx, sink));
            server_w.write_all(b"{\"a\":").await.unwrap();
            tokio::task::yield_now().await;
            errors.send(()).unwrap();
            tokio::task::yield_now().await;
            server_w.write_all(b"1}\n").await.unwrap();
            drop(server_w);
            drop(errors);
            out.await.unwrap();
            let mut all = String::new();
            read_back.read_to_string(&mut all).await.unwrap();
            assert_eq!(all, format!("{{\"a\":1}}\n{PARSE_ERROR}\n"));
        });
    }
}
