//! Remote APIs and SDKs: what any service's REST API or client library deletes, whatever the
//! service. The estate's packs know the tools they name; an agent also talks to services no
//! pack names (a pull zone on a CDN, a Harbor project, a SaaS app's records) through curl,
//! httpie or a one-liner in Python or Node. An HTTP DELETE, a POST to an endpoint named for
//! destruction (`.../doDelete`, `.../purge_all`, `.../clear`) or an SDK call named so
//! (`delete_hosted_zone(`, `new DeleteBucketCommand(`, `.objects.all().delete()`) is asked
//! about: often intended, and only the user knows whether the thing named may go. A service on
//! this machine (localhost) is the agent's own development server and passes.

use super::{Pack, Rule, shell};
use crate::guard::Severity::High;
use crate::guard::normalize::Lang;

/// A request to this machine (the agent's own development server), to a request-echo service,
/// or for something scratch the agent made itself (`/tmp/`, `scratch-`, `-temp`).
const LOCAL: &str = r"(?://|\s|@|^|')(?:localhost|127\.0\.0\.1|0\.0\.0\.0|\[::1\]|host\.docker\.internal|httpbin\.org|postman-echo\.com)(?:[:/\s']|$)|\s:\d*/|\s:\d+(?:\s|$)|[/:=_.'-](?:tmp|temp|scratch)(?:[/_.'?-]|\s|$)";

/// The verbs an SDK call that deletes is named with (`delete_hosted_zone`, `dropDatabase`,
/// `flushall`, `clear_objects`).
const SDK_VERBS: &[&str] = &[
    "delete",
    "destroy",
    "purge",
    "terminate",
    "deregister",
    "drop",
    "flush",
    "clear",
];

pub static PACK: Pack = Pack {
    name: "api",
    description: "HTTP DELETE and destructive calls to remote services' APIs, and deletions through SDK one-liners",
    default_on: true,
    // The HTTP clients and forge CLIs, and every verb an SDK rule or an endpoint rule needs.
    keywords: &[
        "curl",
        "wget",
        "http",
        "xh",
        "gh",
        "glab",
        "clear",
        "wipe",
        "delete",
        "drop",
        "flush",
        "purge",
        "destroy",
        "terminate",
        "deregister",
    ],
    rules: &[
        Rule {
            unless: Some(LOCAL),
            ..shell(
                "http-delete",
                High,
                &[
                    "curl", "curlie", "wget", "http", "https", "xh", "xhs", "httpie",
                ],
                &["delete"],
                r"^(?:curl|curlie|wget|http|https|xh|xhs|httpie)\s(?:.*\s)?(?:-X\s*'?DELETE|--request[=\s]'?DELETE|--method[=\s]'?DELETE)(?:'|\s|$)|^(?:http|https|xh|xhs|httpie|curlie)\s(?:-\S+\s+)*(?:DELETE|delete)\s",
                "sends an HTTP DELETE to a remote service: what the URL names is deleted there",
                "GET the URL first to see what it names, and let the user confirm the delete",
            )
        },
        Rule {
            unless: Some(LOCAL),
            ..shell(
                "http-destructive-endpoint",
                High,
                &[
                    "curl", "curlie", "wget", "http", "https", "xh", "xhs", "httpie",
                ],
                &["delete", "destroy", "wipe", "clear"],
                r"^(?:curl|curlie|wget|http|https|xh|xhs|httpie)\s(?:.*\s)?'?(?:https?://)?[\w.$:{}-]+(?:/\S*)?/(?:do)?(?:[Dd]elete|[Dd]estroy|[Ww]ipe|[Cc]lear)(?:[-_]\w+|[A-Z]\w*)?(?:[/?#'\s]|$)",
                "calls an endpoint of a remote service named for deleting, clearing or wiping",
                "read what the endpoint does first, and let the user confirm",
            )
        },
        Rule {
            // Taking a label, an assignee, a reviewer or a reaction off an issue or pull
            // request is everyday triage.
            unless: Some(
                r"/(?:issues|pulls)/\d+/(?:labels|assignees|requested_reviewers|reactions)\b|/reactions/|/subscription\b|/notifications\b|[/:=_.'-](?:tmp|temp|scratch)(?:[/_.'?-]|\s|$)",
            ),
            ..shell(
                "forge-api-delete",
                High,
                &["gh", "glab"],
                &["delete"],
                r"^(?:gh|glab)\s(?:.*\s)?api\s(?:.*\s)?(?:-X\s*'?DELETE|--method[=\s]'?DELETE)(?:'|\s|$)",
                "deletes something on the forge through its API (a release asset, a branch, a key, a package)",
                "GET the same path first to see what it names, and let the user confirm",
            )
        },
        Rule {
            on: super::On::Lang(Lang::Python),
            // A delete with a filter is the SDK's `DELETE ... WHERE`: everyday (emptying a whole
            // collection is the database pack's).
            unless: Some(
                r"\.delete_(?:one|many)\(\s*\{\s*[^\s}]|\.filter\([^)]*\)\.delete\(\)|\b(?:requests|httpx|session|client)\.delete\(\s*f?['\x22]https?://(?:localhost|127\.0\.0\.1)[:/'\x22]",
            ),
            ..shell(
                "python-sdk-delete",
                High,
                &[],
                SDK_VERBS,
                r"\.(?:(?:batch_)?(?:delete|terminate|purge|deregister|destroy)_\w+|drop_(?:database|collection|table|index|indexes|keyspace|all)|clear_(?:objects|index)|flushall|flushdb|delete|destroy|purge)\s*\(",
                "deletes through a service's SDK (a bucket's objects, a zone, a table, an index, a repository)",
                "list what the call would delete first, and let the user confirm",
            )
        },
        Rule {
            on: super::On::Lang(Lang::Node),
            unless: Some(r"\.delete(?:One|Many)\(\s*\{\s*[^\s}]"),
            ..shell(
                "node-sdk-delete",
                High,
                &[],
                SDK_VERBS,
                r"\.(?:delete|terminate|purge|deregister|destroy)[A-Z]\w*\s*\(|\.(?:drop(?:Database|Collection|Table|Index|Indexes|Keyspace)|flush(?:all|db|All|Db))\s*\(|\bindices\.delete\s*\(|new\s+(?:Batch)?(?:Delete|Terminate|Purge|Deregister|Destroy|Drop)\w*Command\s*\(|method\s*:\s*['`\x22]DELETE['`\x22]",
                "deletes through a service's SDK or a DELETE request from a script",
                "list what the call would delete first, and let the user confirm",
            )
        },
    ],
};
