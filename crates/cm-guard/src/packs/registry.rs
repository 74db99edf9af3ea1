//! Registries: unpublishing packages and deleting images and repositories (npm, pnpm, yarn,
//! RubyGems, NuGet, crates.io, ECR, Artifact Registry, ACR, Docker Hub, crane, skopeo, regctl,
//! oras, JFrog). A version unpublished or an image deleted breaks every build that pins it, and
//! npm never lets that version number be used again: critical. A yank can be undone: high.

use super::{Pack, Rule, shell};
use crate::Severity::{Critical, High};

pub static PACK: Pack = Pack {
    name: "registry",
    description: "unpublishing packages, deleting images and registry repositories (npm, ecr, acr, crane, ...)",
    default_on: false,
    keywords: &[
        "unpublish",
        "mix",
        "registry",
        "yank",
        "nuget",
        "crane",
        "skopeo",
        "regctl",
        "oras",
        "jf",
        "aws",
        "gcloud",
        "az",
        "hub-tool",
        "delete",
        "purge",
        "dist-tag",
        "deprecate",
        "owner",
        "tag remove",
    ],
    rules: &[
        Rule {
            unless: Some(r"\s(?:--dry-?run|--dryrun|-n)(?:[\s=]|$)"),
            ..shell(
                "package-unpublish",
                Critical,
                &[],
                &["unpublish", "yank", "nuget", "jf"],
                r"^(?:(?:npm|pnpm)\s(?:.*\s)?unpublish|yarn\s(?:.*\s)?npm\s+unpublish|gem\s+yank|(?:dotnet\s+)?nuget\s+delete|jf(?:rog)?\s+(?:rt\s+)?(?:del|delete|rt\s+delete))(?:\s|$)",
                "unpublishes a package version (npm never allows that version again; every build pinning it breaks)",
                "deprecate it instead (`npm deprecate PKG@VER \"reason\"`), or let a human unpublish",
            )
        },
        Rule {
            unless: Some(r"\s--undo(?:\s|$)"),
            ..shell(
                "cargo-yank",
                High,
                &[],
                &["yank"],
                r"^cargo\s(?:.*\s)?yank(?:\s|$)",
                "yanks a crate version: new lock files can no longer pick it",
                "`cargo yank --undo` brings it back",
            )
        },
        shell(
            "image-delete",
            Critical,
            &[
                "crane", "skopeo", "regctl", "oras", "hub-tool", "aws", "gcloud", "az",
            ],
            &[],
            r"^(?:crane\s(?:.*\s)?delete|skopeo\s(?:.*\s)?delete|regctl\s(?:.*\s)?(?:tag\s+(?:delete|rm)|manifest\s+(?:delete|rm)|image\s+(?:delete|rm)|repo\s+(?:delete|rm))|oras\s(?:.*\s)?(?:manifest|blob|repo)\s+(?:delete|rm)|hub-tool\s(?:.*\s)?(?:tag|repo)\s+rm|aws\s(?:.*\s)?(?:ecr\s+(?:batch-delete-image|delete-repository)|ecr-public\s+(?:batch-delete-image|delete-repository))|gcloud\s(?:.*\s)?(?:artifacts\s+(?:docker\s+images|docker\s+tags|versions|packages|repositories)\s+delete|container\s+images\s+(?:delete|untag))|az\s(?:.*\s)?acr\s(?:.*\s)?(?:delete|repository\s+(?:delete|untag)|manifest\s+delete))(?:\s|$)",
            "deletes images, tags or whole repositories from a registry: every deploy that pulls them fails",
            "list them first (`crane ls`, `aws ecr describe-images`), and let a human delete",
        ),
        shell(
            "registry-api-delete",
            Critical,
            &[],
            &["delete"],
            r"^(?:curl|curlie|http|https|xh|wget)\s(?:.*\s)?(?:(?:-X\s*'?DELETE|--request[=\s]'?DELETE|--method[=\s]'?DELETE|DELETE\s).*(?:/v2/\S+/manifests/|hub\.docker\.com/v2/|registry\.npmjs\.org|/api/v2\.0/projects/|/api/charts/|/service/rest/v1/(?:components|assets|repositories)|/artifactory/|/api/v4/projects/\S+/(?:packages|registry)/)|(?:/v2/\S+/manifests/|hub\.docker\.com/v2/|registry\.npmjs\.org|/api/v2\.0/projects/|/api/charts/|/service/rest/v1/(?:components|assets|repositories)|/artifactory/|/api/v4/projects/\S+/(?:packages|registry)/).*(?:-X\s*'?DELETE|--request[=\s]'?DELETE))|^gh\s(?:.*\s)?api\s(?:.*\s)?(?:-X\s*|--method[=\s])DELETE\s(?:.*\s)?\S*/packages/|^gh\s(?:.*\s)?api\s(?:.*\s)?\S*/packages/\S*\s(?:.*\s)?(?:-X\s*|--method[=\s])DELETE",
            "deletes an image, chart, component or package through the registry's API (Docker registry, Harbor, ChartMuseum, Nexus, Artifactory)",
            "let a human delete",
        ),
        Rule {
            unless: Some(r"\s--dry-run\b"),
            ..shell(
                "acr-purge",
                Critical,
                &["az"],
                &["purge"],
                r"^az\s(?:.*\s)?acr\s+(?:run|task\s+create)\s.*\bacr\s+purge\s(?:[^'\x22]*\s)?--(?:filter|untagged|ago)\b",
                "runs `acr purge` in the registry: every image the filter matches (and untagged manifests) is deleted",
                "run the same purge with `--dry-run` first, and let a human run it",
            )
        },
        shell(
            "package-tags-owners",
            High,
            &[],
            &["dist-tag", "deprecate", "owner", "tag remove"],
            r"^(?:(?:npm|pnpm)\s(?:.*\s)?(?:dist-tag|dist-tags)\s+(?:rm|remove)|(?:npm|pnpm)\s(?:.*\s)?owner\s+(?:rm|remove)|cargo\s(?:.*\s)?owner\s(?:.*\s)?(?:--remove|-r)|yarn\s(?:.*\s)?npm\s+tag\s+remove)(?:\s|$)|^(?:npm|pnpm)\s(?:.*\s)?deprecate\s+(?:-\S+\s+)*\S+\s+'?[^'\s]",
            "removes a published tag, deprecates published versions or removes an owner: every user of the package sees it",
            "check with the package's owners first",
        ),
        Rule {
            unless: Some(r"\s(?:-d|--dry-run)(?:\s|$)"),
            ..shell(
                "registry-prune",
                Critical,
                &["mix", "registry", "aws"],
                &[],
                r"^mix\s+hex\.publish\s(?:.*\s)?--revert(?:\s|$)|^registry\s+garbage-collect(?:\s|$)|^aws\s(?:.*\s)?ecr\s+put-lifecycle-policy\s(?:.*\s)?.*expire",
                "removes published versions or images for good: a reverted Hex release, a registry's garbage collection, a lifecycle rule that expires images",
                "list what would go first (`--dry-run` for garbage-collect), and let a human do it",
            )
        },
    ],
};
