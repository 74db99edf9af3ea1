//! The languages a command's segments are examined in. Its own file so that build.rs, which
//! compiles the pack tables' regexes ahead of time, reads the same enum the tables name.

/// The language of a segment's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Lang {
    /// A shell command line.
    Shell,
    /// Python source.
    Python,
    /// JavaScript run by Node (or Deno, Bun).
    Node,
    /// Ruby source.
    Ruby,
    /// Perl source.
    Perl,
    /// SQL statements.
    Sql,
    /// PHP source.
    Php,
    /// Lua source.
    Lua,
    /// An awk program.
    Awk,
    /// A whole shell command line with the text inside quotes blanked out.
    Line,
}

impl Lang {
    /// The language's name in answers (`shell`, `python`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Lang::Shell => "shell",
            Lang::Python => "python",
            Lang::Node => "javascript",
            Lang::Ruby => "ruby",
            Lang::Perl => "perl",
            Lang::Sql => "sql",
            Lang::Php => "php",
            Lang::Lua => "lua",
            Lang::Awk => "awk",
            Lang::Line => "line",
        }
    }
}
