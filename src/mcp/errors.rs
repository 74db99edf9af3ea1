//! cm's errors as JSON-RPC errors. The JSON-RPC `code` says what kind of failure it is (bad
//! parameters, busy, timed out, internal); `data` carries cm's own error object, the one
//! `cm --json` prints: `{code, message, hint, retryable, exitCode}`.
//!
//! | JSON-RPC code | when | `data.code` |
//! |---|---|---|
//! | -32602 invalid params | bad arguments, unknown tool, a path outside the workspace | `INVALID_ARGUMENT`, `UNKNOWN_TOOL`, `PATH_OUTSIDE_WORKSPACE`, ... |
//! | -32002 resource not found | an unknown resource or diary entry | `RESOURCE_NOT_FOUND`, `DIARY_NOT_FOUND` |
//! | -32000 server busy | more requests in flight than `--max-concurrent` | `OVERLOADED` (retryable) |
//! | -32001 timed out | a request ran past `--request-timeout` | `TIMEOUT` (retryable) |
//! | -32603 internal error | anything else cm reports | cm's code (`DB_LOCKED`, `IO_ERROR`, ...) |

use crate::error::{CmError, ExitCode};
use rmcp::model::{ErrorCode, ErrorData};
use serde_json::{Value, json};

pub const OVERLOADED: i32 = -32000;
pub const TIMED_OUT: i32 = -32001;

/// The `data` member: cm's error object.
pub fn data(err: &CmError) -> Value {
    json!({
        "code": err.code,
        "message": err.message,
        "hint": err.hint,
        "retryable": err.retryable,
        "exitCode": err.exit_code(),
    })
}

pub fn to_rpc(err: &CmError) -> ErrorData {
    let code = match (err.code, err.exit) {
        ("OVERLOADED", _) => ErrorCode(OVERLOADED),
        ("TIMEOUT", _) => ErrorCode(TIMED_OUT),
        ("RESOURCE_NOT_FOUND" | "DIARY_NOT_FOUND", _) => ErrorCode::RESOURCE_NOT_FOUND,
        (_, ExitCode::Usage) => ErrorCode::INVALID_PARAMS,
        _ => ErrorCode::INTERNAL_ERROR,
    };
    ErrorData::new(code, err.message.clone(), Some(data(err)))
}

pub fn overloaded(limit: usize) -> CmError {
    CmError::new(
        "OVERLOADED",
        ExitCode::Internal,
        format!("the server is busy: {limit} requests are already running"),
    )
    .hint("retry after a second (HTTP answers 503 with Retry-After)")
    .retryable()
}

pub fn timed_out(secs: u64) -> CmError {
    CmError::new(
        "TIMEOUT",
        ExitCode::Internal,
        format!("the request took longer than {secs} s and was abandoned"),
    )
    .hint("retry, or narrow the request (a smaller limit, fewer days); writes are transactional, so none was half done")
    .retryable()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_of_error_gets_its_json_rpc_code_and_keeps_the_cm_code() {
        let usage = to_rpc(&CmError::usage("EMPTY_TASK", "the task is empty").hint("describe it"));
        assert_eq!(usage.code, ErrorCode::INVALID_PARAMS);
        let d = usage.data.unwrap();
        assert_eq!(d["code"], "EMPTY_TASK");
        assert_eq!(d["hint"], "describe it");
        assert_eq!(d["exitCode"], 3);
        assert_eq!(to_rpc(&overloaded(4)).code, ErrorCode(OVERLOADED));
        assert_eq!(to_rpc(&overloaded(4)).data.unwrap()["retryable"], true);
        assert_eq!(to_rpc(&timed_out(3)).code, ErrorCode(TIMED_OUT));
        assert_eq!(
            to_rpc(&CmError::fs("IO_ERROR", "x")).code,
            ErrorCode::INTERNAL_ERROR
        );
    }
}
