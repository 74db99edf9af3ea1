//! Starter playbooks: the shipped ones and the user's own from the data dir's `starters/`.

use crate::harness::Env;

#[test]
fn user_starters_are_listed_and_seed_init() {
    let env = Env::new();
    env.write(
        "data/starters/shop.yaml",
        "name: shop\ndescription: Our shop's rules.\nbullets:\n  - content: Run make check before pushing to the shop repository\n    category: workflow\n    tags: [shop]\n",
    );
    env.write("data/starters/broken.yaml", "bullets: [: nope\n");
    let data = env.cm(&["starters"]).json().run().ok().data();
    let list = data["starters"].as_array().unwrap();
    let shop = list
        .iter()
        .find(|s| s["name"] == "shop")
        .expect("user starter listed");
    assert_eq!(shop["source"], "user");
    assert_eq!(shop["rules"], 1);
    assert_eq!(shop["description"], "Our shop's rules.");
    let broken = list.iter().find(|s| s["name"] == "broken").unwrap();
    assert!(broken["error"].is_string());
    assert_eq!(list.iter().filter(|s| s["source"] == "builtin").count(), 6);
    for s in list.iter().filter(|s| s["source"] == "builtin") {
        assert!(s["rules"].as_u64().unwrap() >= 12, "{s}");
    }
    let init = env
        .cm(&["init", "--starter", "shop"])
        .json()
        .run()
        .ok()
        .data();
    assert_eq!(init["starter"]["added"], 1);
    env.cm(&["init", "--starter", "broken"])
        .json()
        .run()
        .code(2)
        .error_code("STARTER_INVALID");
    env.cm(&["init", "--starter", "nosuch"])
        .json()
        .run()
        .code(3)
        .error_code("STARTER_NOT_FOUND");
}

#[test]
fn a_user_starter_replaces_the_builtin_of_its_name() {
    let env = Env::new();
    env.write(
        "data/starters/rust.yml",
        "bullets:\n  - content: Run cargo xtask ci before pushing\n    category: workflow\n    tags: [rust]\n",
    );
    let data = env.cm(&["starters"]).json().run().ok().data();
    let rust: Vec<_> = data["starters"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["name"] == "rust")
        .collect();
    assert_eq!(rust.len(), 1);
    assert_eq!(rust[0]["source"], "user");
    let init = env
        .cm(&["init", "--starter", "rust"])
        .json()
        .run()
        .ok()
        .data();
    assert_eq!(init["starter"]["added"], 1);
}
