//! Where a situation happened: the language or tool stacks a session touched, from the files it
//! named and the commands it ran, and the stacks a workspace directory shows at its top level.
//!
//! Used to keep a Terraform rule out of a Rust task: a rule learned only in other workspaces,
//! for stacks the current workspace does not use, needs much stronger evidence to be shown.
//! Pure, except [`of_directory`], which lists one directory (bounded).

use std::collections::BTreeSet;

/// File names (exact, lower-case) that mark a stack.
const MARKER_FILES: &[(&str, &str)] = &[
    ("cargo.toml", "rust"),
    ("cargo.lock", "rust"),
    ("package.json", "javascript"),
    ("tsconfig.json", "javascript"),
    ("go.mod", "go"),
    ("pyproject.toml", "python"),
    ("requirements.txt", "python"),
    ("setup.py", "python"),
    ("manage.py", "python"),
    ("pom.xml", "jvm"),
    ("build.gradle", "jvm"),
    ("build.gradle.kts", "jvm"),
    ("chart.yaml", "kubernetes"),
    ("values.yaml", "kubernetes"),
    ("kustomization.yaml", "kubernetes"),
    ("dockerfile", "docker"),
    ("docker-compose.yml", "docker"),
    ("compose.yaml", "docker"),
    ("package.swift", "swift"),
    ("podfile", "swift"),
    ("gemfile", "ruby"),
    ("composer.json", "php"),
    ("mix.exs", "elixir"),
];

/// File extensions that mark a stack.
const EXTENSIONS: &[(&str, &str)] = &[
    ("rs", "rust"),
    ("ts", "javascript"),
    ("tsx", "javascript"),
    ("js", "javascript"),
    ("jsx", "javascript"),
    ("mjs", "javascript"),
    ("vue", "javascript"),
    ("py", "python"),
    ("ipynb", "python"),
    ("go", "go"),
    ("tf", "terraform"),
    ("tfvars", "terraform"),
    ("java", "jvm"),
    ("kt", "jvm"),
    ("scala", "jvm"),
    ("swift", "swift"),
    ("xcodeproj", "swift"),
    ("rb", "ruby"),
    ("php", "php"),
    ("cs", "dotnet"),
    ("csproj", "dotnet"),
    ("ex", "elixir"),
    ("exs", "elixir"),
];

/// Commands that mark a stack when a session runs them.
const COMMANDS: &[(&str, &str)] = &[
    ("bun", "javascript"),
    ("bundle", "ruby"),
    ("cargo", "rust"),
    ("composer", "php"),
    ("dotnet", "dotnet"),
    ("go", "go"),
    ("gradle", "jvm"),
    ("helm", "kubernetes"),
    ("java", "jvm"),
    ("kubectl", "kubernetes"),
    ("mix", "elixir"),
    ("mvn", "jvm"),
    ("node", "javascript"),
    ("npm", "javascript"),
    ("npx", "javascript"),
    ("pip", "python"),
    ("pnpm", "javascript"),
    ("poetry", "python"),
    ("pytest", "python"),
    ("python", "python"),
    ("python3", "python"),
    ("rails", "ruby"),
    ("rustc", "rust"),
    ("spark-submit", "jvm"),
    ("swift", "swift"),
    ("terraform", "terraform"),
    ("tofu", "terraform"),
    ("xcodebuild", "swift"),
    ("yarn", "javascript"),
];

fn lookup(table: &[(&str, &'static str)], key: &str) -> Option<&'static str> {
    table.iter().find(|(k, _)| *k == key).map(|(_, v)| *v)
}

/// The stack a file name marks, if any.
pub fn of_file_name(name: &str) -> Option<&'static str> {
    let base = name.rsplit('/').next().unwrap_or(name).to_ascii_lowercase();
    if let Some(s) = lookup(MARKER_FILES, &base) {
        return Some(s);
    }
    let (_, ext) = base.rsplit_once('.')?;
    lookup(EXTENSIONS, ext)
}

/// Stacks named in a piece of text: file names anywhere, commands where a command starts (a
/// tool call's text is the command or the file path it was given).
pub fn of_text(text: &str, is_call: bool, out: &mut BTreeSet<&'static str>) {
    let mut command_start = is_call;
    for word in text.split(|c: char| c.is_whitespace() || "\"'`(),;|&<>=".contains(c)) {
        if word.is_empty() {
            // A separator (`&&`, `;`, `|`) starts the next command.
            command_start = is_call;
            continue;
        }
        if command_start {
            let cmd = word.rsplit('/').next().unwrap_or(word);
            if let Some(s) = lookup(COMMANDS, cmd) {
                out.insert(s);
            }
            command_start = matches!(cmd, "sudo" | "env" | "time" | "exec" | "$");
        }
        if word.contains('.')
            && let Some(s) = of_file_name(word.trim_end_matches([':', '.']))
        {
            out.insert(s);
        }
    }
}

/// Stacks a directory shows at its top level (at most `max_entries` names read).
pub fn of_directory(dir: &std::path::Path, max_entries: usize) -> BTreeSet<&'static str> {
    let mut out = BTreeSet::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for e in entries.take(max_entries).flatten() {
        if let Some(s) = of_file_name(&e.file_name().to_string_lossy()) {
            out.insert(s);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stacks(text: &str, call: bool) -> Vec<&'static str> {
        let mut s = BTreeSet::new();
        of_text(text, call, &mut s);
        s.into_iter().collect()
    }

    #[test]
    fn commands_and_files_name_stacks() {
        assert_eq!(stacks("cd infra && terraform plan", true), ["terraform"]);
        assert_eq!(stacks("/home/dev/app/src/main.rs", true), ["rust"]);
        assert_eq!(
            stacks("sudo kubectl rollout status; npm test", true),
            ["javascript", "kubernetes"]
        );
        assert_eq!(
            stacks("I edited Chart.yaml and api.go.", false),
            ["go", "kubernetes"]
        );
    }

    #[test]
    fn command_words_in_prose_are_not_commands() {
        assert!(stacks("let's go with the cargo cult fix", false).is_empty());
        assert!(stacks("git commit -m 'bump cargo'", true).is_empty());
    }
}
