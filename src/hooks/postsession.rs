//! The `postsession` hook entry point. For now it only drains its payload and allows; the issue that
//! owns this hook fills in the decision.

pub fn run(_args: &[String]) -> i32 {
    let _payload = super::read_stdin();
    0
}
