//! Reflection and validation given hostile or thin input, through the real binary: a file that
//! is no transcript, a transcript with no messages, rule text `playbook add` would refuse,
//! rules made of the words every session uses, and a dry run with an LLM configured.

use crate::harness::Env;
use crate::reflect::NOW;

#[test]
fn validate_holds_rule_text_to_the_checks_of_playbook_add() {
    let env = Env::builder().now(NOW).build();
    let long = "Always pin the timezone. ".repeat(420);
    for (text, code) in [
        ("", "EMPTY_RULE"),
        (" \t\n ", "EMPTY_RULE"),
        (long.as_str(), "RULE_TOO_LONG"),
    ] {
        let add = env
            .cm(&["playbook", "add", text])
            .json()
            .run()
            .code(2)
            .error();
        let validate = env.cm(&["validate", text]).json().run().code(2).error();
        assert_eq!(add["code"], code);
        assert_eq!(validate["code"], code, "{validate}");
        assert_eq!(validate["message"], add["message"]);
    }
    // A secret in the text is never repeated, and the rule is refused for carrying it.
    let d = env.data_of(&[
        "validate",
        "Use the token ghp_abcdefghijklmnopqrstuvwxyz0123456789 for the registry",
    ]);
    assert!(!d.to_string().contains("ghp_abcdefghij"), "{d}");
    assert_eq!(d["verdict"], "reject", "{d}");
}
