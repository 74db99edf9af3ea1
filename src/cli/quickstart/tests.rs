use super::*;

/// The command path and `--flags` of a `cm ...` line, checked against the parser.
fn check_line(all: &[CommandInfo], line: &str) {
    let words: Vec<&str> = line.split_whitespace().skip(1).collect();
    let mut path = String::new();
    for w in &words {
        if w.starts_with('-') || w.starts_with('"') || w.starts_with('<') {
            break;
        }
        let next = if path.is_empty() {
            w.to_string()
        } else {
            format!("{path} {w}")
        };
        if tree::find(all, &next).is_some() {
            path = next;
        } else {
            break;
        }
    }
    let cmd = tree::find(all, &path).unwrap_or_else(|| panic!("`{line}` names no command"));
    for w in words.iter().filter(|w| w.starts_with("--")) {
        let global = ["--json", "--quiet"].contains(w);
        assert!(
            global || cmd.flags.iter().any(|f| tree::flag_name(&f.flag) == *w),
            "`{line}`: cm {path} has no {w}"
        );
    }
}

#[test]
fn every_command_line_in_the_protocol_and_layers_exists() {
    let all = tree::all();
    for step in PROTOCOL {
        if !step.run.is_empty() {
            check_line(&all, step.run);
        }
        for (i, span) in step.why.split('`').enumerate() {
            if i % 2 == 1 && span.starts_with("cm ") {
                check_line(&all, span);
            }
        }
    }
    let state = crate::app::quickstart::State {
        data_dir: String::new(),
        initialised: false,
        rule_count: None,
        index: crate::app::quickstart::IndexState {
            sessions: 0,
            messages: 0,
            last_indexed_at: None,
        },
        hooks: crate::app::quickstart::HooksState {
            installed: vec![],
            post_session: false,
            guard: false,
        },
        llm: crate::app::quickstart::LlmState {
            configured: false,
            provider: None,
            model: None,
            reason: None,
        },
        config_changes: Default::default(),
        config_path: String::new(),
        repo_config: None,
    };
    for layer in layers(&state).as_array().unwrap() {
        for line in layer["commands"].as_array().unwrap() {
            check_line(&all, line.as_str().unwrap());
        }
    }
    for path in KEY_COMMANDS {
        assert!(
            tree::find(&all, path).is_some(),
            "key command {path} is gone"
        );
    }
}

#[test]
fn the_tree_has_every_top_level_command_and_its_flags() {
    let all = tree::all();
    let context = tree::find(&all, "context").unwrap();
    assert!(context.flags.iter().any(|f| f.flag.starts_with("--limit")));
    assert!(context.aliases.contains(&"ctx".to_string()));
    assert!(tree::find(&all, "history search").is_some());
    assert!(tree::find(&all, "quickstart").is_some());
}
