use super::*;

fn words(src: &str) -> Vec<Vec<String>> {
    parse(src)
        .commands
        .iter()
        .map(|c| c.words.iter().map(|w| w.text.clone()).collect())
        .collect()
}

#[test]
fn splits_on_operators_and_keeps_quotes_together() {
    assert_eq!(
        words(r#"git add . && git commit -m "rm -rf /; x" || echo 'a|b' ; ls | wc -l"#),
        vec![
            vec!["git", "add", "."],
            vec!["git", "commit", "-m", "rm -rf /; x"],
            vec!["echo", "a|b"],
            vec!["ls"],
            vec!["wc", "-l"],
        ]
    );
}

#[test]
fn quote_and_backslash_tricks_collapse() {
    assert_eq!(words(r#"r''m -r"f" \/"#), vec![vec!["rm", "-rf", "/"]]);
    assert_eq!(words("\\rm -rf x"), vec![vec!["rm", "-rf", "x"]]);
    assert_eq!(words("r\\\nm x"), vec![vec!["rm", "x"]]);
    assert_eq!(words("$'rm' x"), vec![vec!["rm", "x"]]);
}

#[test]
fn ansi_c_escapes_are_decoded() {
    assert_eq!(words(r"$'\x72\x6d' -rf ~"), vec![vec!["rm", "-rf", "~"]]);
    assert_eq!(words(r"$'\162\155' x"), vec![vec!["rm", "x"]]);
    assert_eq!(words(r"$'\u0072m' x"), vec![vec!["rm", "x"]]);
    assert_eq!(words(r"$'a\'b' $'\q'"), vec![vec!["a'b", "\\q"]]);
}

#[test]
fn substitutions_are_lifted_out() {
    let p = parse(r#"echo "$(rm -rf ~)" `git reset --hard` <(ls)"#);
    assert_eq!(p.substitutions, vec!["rm -rf ~", "git reset --hard", "ls"]);
    // Inside arithmetic, a parameter's word and an unquoted heredoc.
    let p = parse("echo $(( $(rm -rf ~) + 1 )) ${X:-$(git reset --hard)}");
    assert_eq!(p.substitutions, vec!["rm -rf ~", "git reset --hard"]);
    let p = parse("cat <<EOF\nit's $(rm -rf ~)\nEOF");
    assert_eq!(p.substitutions, vec!["rm -rf ~"]);
    let p = parse("cat <<'EOF'\n$(rm -rf ~)\nEOF");
    assert!(p.substitutions.is_empty());
}

#[test]
fn words_keep_their_parts() {
    let p = parse(r#"rm -rf "$D"/x ${HOME:?} ~/'a b' $1"#);
    let parts: Vec<&Vec<Part>> = p.commands[0].words.iter().map(|w| &w.parts).collect();
    assert_eq!(
        parts[2],
        &vec![
            Part::Param {
                expr: "D".into(),
                dq: true
            },
            Part::Lit {
                text: "/x".into(),
                quoted: false
            }
        ]
    );
    assert_eq!(
        parts[3],
        &vec![Part::Param {
            expr: "{HOME:?".into(),
            dq: false
        }]
    );
    assert_eq!(
        parts[4],
        &vec![
            Part::Lit {
                text: "~/".into(),
                quoted: false
            },
            Part::Lit {
                text: "a b".into(),
                quoted: true
            }
        ]
    );
    assert_eq!(p.commands[0].words[5].text, "$1");
    // A parameter's word may hold spaces.
    assert_eq!(
        words("echo ${X:-a b} c"),
        vec![vec!["echo", "${X:-a b}", "c"]]
    );
}

#[test]
fn process_substitution_is_a_word() {
    let p = parse("bash <(echo 'rm -rf ~')");
    assert_eq!(p.commands[0].words.len(), 2);
    assert_eq!(
        p.commands[0].words[1].parts,
        vec![Part::ProcSub {
            text: "echo 'rm -rf ~'".into()
        }]
    );
}

#[test]
fn heredoc_bodies_attach_to_their_command() {
    let p = parse("python3 - <<'EOF'\nimport shutil\nshutil.rmtree('/')\nEOF\necho done");
    assert_eq!(p.commands.len(), 2);
    assert_eq!(
        p.commands[0].stdin_text,
        vec!["import shutil\nshutil.rmtree('/')\n"]
    );
    assert_eq!(p.commands[1].words[0].text, "echo");
    let p = parse("bash <<< 'rm -rf /'");
    assert_eq!(p.commands[0].stdin_text, vec!["rm -rf /"]);
}

#[test]
fn quoted_text_is_blanked() {
    assert_eq!(
        blank_quoted(r#"echo ":(){ x }" 'a b' c"#),
        r#"echo "________" '___' c"#
    );
}

#[test]
fn redirections_are_operator_words() {
    let p = parse("cat x 2>/dev/null > /dev/sda");
    let w: Vec<(&str, bool)> = p.commands[0]
        .words
        .iter()
        .map(|w| (w.text.as_str(), w.op))
        .collect();
    assert_eq!(
        w,
        vec![
            ("cat", false),
            ("x", false),
            ("2>", true),
            ("/dev/null", false),
            (">", true),
            ("/dev/sda", false)
        ]
    );
    assert!(parse("a | b").commands[1].piped);
}
