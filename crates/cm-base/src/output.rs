//! The output contract every command follows.
//!
//! A command returns a [`Report`]: the JSON `data`, the human text, and the minimal `--quiet`
//! text. [`emit`] prints exactly one of them. With `--json` stdout carries exactly one object:
//! `{"success":true,"command","data","metadata":{"version","executionMs"}}` or
//! `{"success":false,"command","error":{"code","message","hint","retryable","exitCode"}}`.
//! Diagnostics go to stderr only.

use crate::error::CmError;
use serde_json::{Value, json};
use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// cm's version, as every JSON answer reports it.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// How the user asked to see results.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// Text for a person, colored on a terminal.
    #[default]
    Human,
    /// One JSON object on stdout.
    Json,
    /// Only the essentials (ids), or nothing.
    Quiet,
}

/// What a successful command produced.
#[derive(Default)]
pub struct Report {
    /// The JSON answer's data.
    pub data: Value,
    /// What a person sees.
    pub human: String,
    /// What `--quiet` prints (usually ids, one per line). Empty prints nothing.
    pub quiet: String,
    /// Exit code for a command that succeeded in running but reports a failed state
    /// (`cm doctor` with a failing check). 0 for everything else.
    pub exit: i32,
    /// `data` written straight to stdout (large lists) instead of [`Report::data`]: a
    /// 5,000-rule list never builds a `serde_json::Value` tree or a multi-megabyte string.
    pub stream: Option<Streamer>,
}

/// Writes a command's JSON `data` to stdout.
pub type Streamer = Box<dyn FnOnce(&mut dyn Write) -> std::io::Result<()>>;

impl std::fmt::Debug for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Report")
            .field("data", &self.data)
            .field("human", &self.human)
            .field("quiet", &self.quiet)
            .field("exit", &self.exit)
            .field("stream", &self.stream.as_ref().map(|_| "..."))
            .finish()
    }
}

impl Report {
    /// A report of `data`, with no human text yet.
    pub fn new(data: Value) -> Self {
        Report {
            data,
            human: String::new(),
            quiet: String::new(),
            exit: 0,
            stream: None,
        }
    }

    /// A report whose JSON `data` is serialized by `write` directly onto stdout.
    pub fn streamed(write: impl FnOnce(&mut dyn Write) -> std::io::Result<()> + 'static) -> Self {
        let mut r = Report::new(Value::Null);
        r.stream = Some(Box::new(write));
        r
    }
    /// The same report with its human text.
    pub fn human(mut self, text: impl Into<String>) -> Self {
        self.human = text.into();
        self
    }
    /// The same report with what `--quiet` prints.
    pub fn quiet(mut self, text: impl Into<String>) -> Self {
        self.quiet = text.into();
        self
    }

    /// The JSON `data` alone (what the MCP server answers with), a streamed one collected.
    pub fn into_data(self) -> Result<Value, CmError> {
        match self.stream {
            None => Ok(self.data),
            Some(stream) => {
                let mut buf = Vec::new();
                stream(&mut buf).map_err(|e| CmError::internal(format!("cannot render: {e}")))?;
                serde_json::from_slice(&buf)
                    .map_err(|e| CmError::internal(format!("cannot read the rendered data: {e}")))
            }
        }
    }
}

/// Print a command's outcome and return the process exit code.
pub fn emit(command: &str, mode: Mode, started: Instant, result: Result<Report, CmError>) -> i32 {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    match result {
        Ok(report) => {
            let res = match mode {
                Mode::Json => {
                    let ms = started.elapsed().as_millis() as u64;
                    let metadata = json!({"version": VERSION, "executionMs": ms});
                    match report.stream {
                        // Same envelope, with the data written in between.
                        Some(stream) => {
                            let mut w = std::io::BufWriter::with_capacity(64 * 1024, &mut out);
                            write!(
                                w,
                                "{{\"success\":true,\"command\":{},\"data\":",
                                Value::from(command)
                            )
                            .and_then(|_| stream(&mut w))
                            .and_then(|_| writeln!(w, ",\"metadata\":{metadata}}}"))
                            .and_then(|_| w.flush())
                        }
                        None => {
                            let v = json!({
                                "success": true,
                                "command": command,
                                "data": report.data,
                                "metadata": metadata,
                            });
                            let mut t = serde_json::to_string(&v).unwrap_or_default();
                            t.push('\n');
                            out.write_all(t.as_bytes()).and_then(|_| out.flush())
                        }
                    }
                }
                Mode::Quiet => write_text(&mut out, &report.quiet),
                Mode::Human => write_text(&mut out, &crate::emoji::for_human(&report.human)),
            };
            // A closed pipe (`cm ls | head`) is not a failure.
            match res {
                Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => 1,
                _ => report.exit,
            }
        }
        Err(err) => {
            if mode == Mode::Json {
                let _ = writeln!(out, "{}", error_json(command, &err));
            } else {
                let mut msg = format!("cm: {}", err.message);
                if let Some(h) = &err.hint {
                    msg.push_str(&format!("\n  hint: {h}"));
                }
                eprintln!("{}", paint_err(&msg));
            }
            err.exit_code()
        }
    }
}

/// The JSON error object for `err` raised by `command` (code, message, hint, exit code).
pub fn error_json(command: &str, err: &CmError) -> Value {
    json!({
        "success": false,
        "command": command,
        "error": {
            "code": err.code,
            "message": err.message,
            "hint": err.hint,
            "retryable": err.retryable,
            "exitCode": err.exit_code(),
        }
    })
}

fn write_text(out: &mut impl Write, text: &str) -> std::io::Result<()> {
    if text.is_empty() {
        return Ok(());
    }
    out.write_all(text.as_bytes())?;
    if !text.ends_with('\n') {
        out.write_all(b"\n")?;
    }
    out.flush()
}

static COLOR: AtomicBool = AtomicBool::new(false);

/// Decide once whether human output is coloured: only on a terminal, never with `NO_COLOR`.
pub fn init_color() {
    let on = std::io::stdout().is_terminal()
        && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
    COLOR.store(on, Ordering::Relaxed);
}

/// Whether human output is colored (a terminal, and `NO_COLOR` unset).
pub(crate) fn color_enabled() -> bool {
    COLOR.load(Ordering::Relaxed)
}

/// ANSI styles used by human output.
#[derive(Clone, Copy)]
pub enum Style {
    /// Bold.
    Bold,
    /// Dim.
    Dim,
    /// Red.
    Red,
    /// Green.
    Green,
    /// Yellow.
    Yellow,
    /// Cyan.
    Cyan,
}

/// `text` in `style` when color is on, else unchanged.
pub fn paint(text: &str, style: Style) -> String {
    if !color_enabled() {
        return text.to_string();
    }
    let code = match style {
        Style::Bold => "1",
        Style::Dim => "2",
        Style::Red => "31",
        Style::Green => "32",
        Style::Yellow => "33",
        Style::Cyan => "36",
    };
    format!("\x1b[{code}m{text}\x1b[0m")
}

fn paint_err(text: &str) -> String {
    if std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
    {
        format!("\x1b[31m{text}\x1b[0m")
    } else {
        text.to_string()
    }
}

/// Left-aligned table for human output. Column widths count characters, not bytes.
pub fn table(headers: &[&str], rows: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = headers.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (i, cell) in row.iter().enumerate() {
            if i < widths.len() {
                widths[i] = widths[i].max(cell.chars().count());
            }
        }
    }
    let mut s = String::new();
    let line = |cells: Vec<String>, s: &mut String| {
        let last = cells.len().saturating_sub(1);
        for (i, cell) in cells.into_iter().enumerate() {
            if i == last {
                s.push_str(&cell);
            } else {
                let pad = widths[i].saturating_sub(cell.chars().count());
                s.push_str(&cell);
                s.push_str(&" ".repeat(pad + 2));
            }
        }
        s.push('\n');
    };
    line(headers.iter().map(|h| h.to_string()).collect(), &mut s);
    for row in rows {
        line(row.clone(), &mut s);
    }
    s
}

/// Shorten `text` to at most `max` characters, ending with an ellipsis when cut.
pub fn truncate(text: &str, max: usize) -> String {
    let one_line: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() <= max {
        return one_line;
    }
    let cut: String = one_line.chars().take(max.saturating_sub(1)).collect();
    format!("{cut}…")
}
