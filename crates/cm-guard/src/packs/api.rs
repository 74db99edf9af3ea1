//! Remote APIs and SDKs: what any service's REST API or client library deletes, whatever the
//! service. The estate's packs know the tools they name; an agent also talks to services no
//! pack names (a pull zone on a CDN, a Harbor project, a SaaS app's records) through curl,
//! httpie or a one-liner in Python or Node. An HTTP DELETE, a POST to an endpoint named for
//! destruction (`.../doDelete`, `.../purge_all`, `.../clear`) or an SDK call named so
//! (`delete_hosted_zone(`, `new DeleteBucketCommand(`, `.objects.all().delete()`) is asked
//! about: often intended, and only the user knows whether the thing named may go. A service on
//! this machine (localhost) is the agent's own development server and passes.

use super::{Pack, Rule, shell};
use crate::Severity::High;
use crate::normalize::Lang;

/// A request to this machine (the agent's own development server), to a request-echo service,
/// or for something scratch the agent made itself (`/tmp/`, `scratch-`, `-temp`).
const LOCAL: &str = r"(?://|\s|@|^|')(?:localhost|127\.0\.0\.1|0\.0\.0\.0|\[::1\]|host\.docker\.internal|httpbin\.org|postman-echo\.com)(?:[:/\s']|$)|\s:\d*/|\s:\d+(?:\s|$)|[/:=_.'-](?:tmp|temp|scratch)(?:[/_.'?-]|\s|$)";

/// What a tool's delete verb passes with: tools with packs of their own or whose removals are
/// judged there (the clouds' and forges' CLIs: one object removed is everyday, a bucket is not;
/// an optional pack's rules stay off until it is enabled), lookups of
/// a command (`which rm`, `man rm`), tools whose removals are
/// everyday (package managers, and Node runners' own verbs: `pnpm wrangler queues delete` is
/// still asked about; version control, editors' extensions, local containers and
/// clusters), scratch things the agent made (`tmp`, `temp`, `scratch`, `test` in a name), dry
/// runs and help, keep-the-newest retention (`delete retain 7`, `--keep-last`), and a consumed
/// queue message acknowledged (`sqs delete-message`). Cache purges are the cdn pack's.
const VERB_UNLESS: &str = r#"^(?:npm|pnpm|yarn|bun|bunx|npx)\s+(?:-\S+\s+)*(?:remove|rm|r|un|uninstall|unlink|prune|dedupe|cache|store|config|dist-tag|owner|team|access|token|hook|profile|unpublish|deprecate|link|patch-remove)(?:\s|$)|^(?:turbo|nx|lerna|rush|bazel|bazelisk|pants|moon|docker-compose|podman-compose|git-lfs|pre-commit|tox|nox|conan|vcpkg|pipenv|gh|glab|tea|which|type|whereis|whatis|apropos|man|info|tldr|help|aws|gcloud|gsutil|az|azcopy|doctl|hcloud|linode-cli|vultr-cli|s3cmd|mc|pip|pip3|pipx|uv|poetry|pdm|hatch|cargo|go|conda|mamba|micromamba|brew|apt|apt-get|aptitude|dnf|yum|zypper|pacman|apk|snap|flatpak|port|gem|bundle|composer|dotnet|nuget|rustup|asdf|mise|nvm|pyenv|rbenv|sdk|code|cursor|git|docker|podman|nerdctl|kubectl|oc|helm|kind|minikube|k3d|rm|rmdir|unlink|trash|trash-put|gio|tmux|screen|zellij|systemctl|launchctl|crontab|sed|awk|jq|yq|tr|cut|sort|xargs|find|ls|echo|printf|cat|grep|rg|make|just|task|terraform|tofu|pulumi|cdk|vagrant|multipass|lxc|virsh|zfs|zpool|btrfs|lvremove|vgremove|pvremove|mdadm|redis-cli|psql|mysql|sqlite3|mongosh|mongo|python|python3|node|deno|ruby|perl|php|bash|sh|zsh|rsync|rclone|curl|wget|http|xh|ssh|scp|sftp|ipfs|nix|nix-env|guix|emerge|flutter|dart|pod|carthage|swift|mvn|gradle|sbt|lein|mix|stack|cabal|opam|luarocks|cpan|cpanm|R|Rscript|julia|raco|tlmgr|xcrun|simctl|adb|emulator|avdmanager|sdkmanager|pm2|forever|supervisorctl|choco|winget|scoop|duplicity|duply|ollama|dvc|bd|task|todo|gh\s+(?:pr|issue|gist|run\s+cancel|alias|extension|codespace|label\s+(?:list|view)))(?:\s|$)|(?i)(?:^|[\s/:=_.'"@-])(?:tmp|temp|scratch|tests?|testing)(?:[\s/:=_.'"?@-]|\d|$)|\sdelete-message\s|\sdelete-cache(?:\s|$)|\spurge\s(?:.*\s)?(?:--url|--key|--keys|--content-paths|--tags?|--paths?|--surrogate-keys?|https?://\S+|invalidate|--staging|--file|--files)(?:[\s=]|$)|\s(?:--dry-?run|--dry_run|--what-?if|--noop|--plan|--help|-h|--check|--preview|--simulate|--list|--keep(?:-\w+)?(?:=\S+)?|retain)(?:[\s=]|$)"#;

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
        // A tool's delete verb (`tool-delete-verb`).
        "remove",
        "prune",
        "erase",
        "forget",
        "expunge",
        "truncate",
        "unregister",
        "nuke",
        "unsubscribe",
        "uninstall",
        "rm",
        "rb",
        "del",
        "mutation",
    ],
    rules: &[
        Rule {
            unless: Some(LOCAL),
            ..shell(
                "http-delete",
                High,
                &[
                    "curl", "curlie", "awscurl", "wget", "http", "https", "xh", "xhs", "httpie",
                ],
                &["delete"],
                r"^(?:curl|curlie|awscurl|wget|http|https|xh|xhs|httpie)\s(?:.*\s)?(?:-X\s*'?DELETE|--request[=\s]'?DELETE|--method[=\s]'?DELETE)(?:'|\s|$)|^(?:http|https|xh|xhs|httpie|curlie)\s(?:-\S+\s+)*(?:DELETE|delete)\s",
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
                &["delete", "destroy", "wipe", "clear", "erase"],
                r"^(?:curl|curlie|wget|http|https|xh|xhs|httpie)\s(?:.*\s)?'?(?:https?://)?[\w.$:{}-]+(?:/\S*)?/(?:(?:[\w.-]*[._-])?(?:do)?(?:[Dd]elete|[Dd]estroy|[Ww]ipe|[Cc]lear|[Ee]rase)|[a-z]+(?:Delete|Destroy|Wipe|Clear|Erase))(?:[-_]\w+|[A-Z]\w*)?(?:\.json)?(?:[/?#'\x22\s]|$)",
                "calls an endpoint of a remote service named for deleting, clearing or wiping (`/batchDelete`, `/chat.delete`, `/destroy_many.json`)",
                "read what the endpoint does first, and let the user confirm",
            )
        },
        Rule {
            // Taking a label, an assignee, a reviewer or a reaction off an issue or pull
            // request is everyday triage.
            unless: Some(
                r"/(?:issues|pulls)/\d+/(?:labels|assignees|requested_reviewers|reactions)\b|/reactions/|/comments/\d+(?:['\s]|$)|/subscription\b|/notifications\b|[/:=_.'-](?:tmp|temp|scratch)(?:[/_.'?-]|\s|$)",
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
                r"\b(?:delete|destroy|purge)_(?:repo|repository|bucket|index|collection|database|table|project|stack|cluster|zone|space|dataset|model)s?\s*\(|\.(?:(?:batch_)?(?:delete|terminate|purge|deregister|destroy)_\w+|drop_(?:database|collection|table|index|indexes|keyspace|all)|clear_(?:objects|index)|flushall|flushdb|delete|destroy|purge)\s*\(",
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
                r"\.(?:delete|terminate|purge|deregister|destroy)[A-Z]\w*\s*\(|\.(?:drop(?:Database|Collection|Table|Index|Indexes|Keyspace)|flush(?:all|db|All|Db))\s*\(|\bindices\.delete\s*\(|\.(?:delete|destroy|purge)\s*\(\s*\{|\.clear(?:Objects|Index|Indices|Collection|Database|Table|Bucket|Queue)\s*\(|new\s+(?:Batch)?(?:Delete|Terminate|Purge|Deregister|Destroy|Drop)\w*Command\s*\(|method\s*:\s*['`\x22]DELETE['`\x22]",
                "deletes through a service's SDK or a DELETE request from a script",
                "list what the call would delete first, and let the user confirm",
            )
        },
        Rule {
            unless: Some(VERB_UNLESS),
            ..shell(
                "tool-delete-verb",
                High,
                &[],
                &[
                    "delete",
                    "destroy",
                    "remove",
                    "drop",
                    "prune",
                    "wipe",
                    "erase",
                    "forget",
                    "expunge",
                    "truncate",
                    "terminate",
                    "deregister",
                    "unregister",
                    "nuke",
                    "unsubscribe",
                    "uninstall",
                    "purge",
                    "rm",
                    "rb",
                    "del",
                ],
                r"^[\w.+-]+(?:\s+\S+){0,3}?\s+(?:(?:[a-z0-9]+[-_:])*(?:delete|destroy|remove|drop|prune|wipe|erase|forget|expunge|truncate|terminate|deregister|unregister|nuke|unsubscribe|uninstall|purge|rm|rmi|rmm|rmr|rb|del|deleteall)(?:[-_:][a-zA-Z0-9]+|[A-Z][a-zA-Z0-9]*)*|(?:Delete|Destroy|Remove|Drop|Purge|Terminate|Deregister)[A-Z][a-zA-Z0-9]*)(?:\s|$)",
                "a tool's subcommand that deletes, destroys or purges what it names, on a service or store the guard knows nothing else about",
                "list or describe what it names first, and let the user confirm the deletion",
            )
        },
        Rule {
            unless: Some(LOCAL),
            ..shell(
                "http-body-delete",
                High,
                &[
                    "curl", "curlie", "wget", "http", "https", "xh", "xhs", "httpie",
                ],
                &["delete", "remove", "destroy", "purge"],
                r"^(?:curl|curlie|wget|http|https|xh|xhs|httpie)\s.*\bmutation\b[^{]*\{\s*(?:\w+\s*:\s*)?(?:(?:delete|remove|destroy|purge)\w*|[a-z]\w*(?:Delete|Remove|Destroy|Purge)\w*)\s*\(|^(?:curl|curlie|wget|http|https|xh|xhs|httpie)\s.*[\x22\\](?:delete|deleteMany|purge|destroy)\\?\x22\s*:\s*[\[{]",
                "sends a request whose body deletes: a GraphQL mutation named for deleting (`deleteOrders`, `projectDelete`) or a mutation document's `delete` (Sanity, Hasura, Linear ...)",
                "run the query form of the same request first to see what it matches, and let the user confirm",
            )
        },
        Rule {
            on: super::On::Lang(Lang::Ruby),
            ..shell(
                "ruby-sdk-delete",
                High,
                &[],
                &["delete", "destroy", "purge", "terminate"],
                r"\.(?:delete|destroy|purge|terminate)_\w+[\s(!]",
                "deletes through a service's Ruby client (`delete_repository`, `delete_objects`, `destroy_all`)",
                "list what the call would delete first, and let the user confirm",
            )
        },
        shell(
            "forge-graphql-delete",
            High,
            &["gh", "glab"],
            &[],
            r"^(?:gh|glab)\s(?:.*\s)?api\s+graphql\s.*\bmutation\b[^{]*\{\s*(?:delete|remove|destroy|archive|transfer)[A-Z]\w*\s*\(",
            "a GraphQL mutation on the forge that deletes, archives or transfers what it names",
            "query the same id first to see what it names, and let the user confirm",
        ),
    ],
};
