//! Forges and application platforms: deleting repositories, projects, issues, releases and apps
//! (GitHub, GitLab, Gitea, Bitbucket, Azure DevOps, CodeCommit, Heroku, Fly.io, Vercel, Netlify,
//! Render, Railway, Supabase, Firebase). A deleted repository, issue or app with its data is gone:
//! critical. A release or deployment can be made again: high.

use super::{Pack, shell};
use crate::Severity::{Critical, High};

pub static PACK: Pack = Pack {
    name: "platform",
    description: "deleting repositories, issues, releases and apps on forges and platforms (gh, glab, heroku, fly, ...)",
    default_on: false,
    keywords: &[
        "gh", "glab", "tea", "az", "aws", "gcloud", "heroku", "fly", "vercel", "netlify", "render",
        "railway", "supabase", "firebase", "delete",
    ],
    rules: &[
        shell(
            "repo-delete",
            Critical,
            &[],
            &["delete"],
            r"^(?:gh\s(?:.*\s)?(?:repo\s+delete|issue\s+delete|gist\s+delete|project\s+delete|org\s+delete)|glab\s(?:.*\s)?(?:repo\s+delete|issue\s+delete|project\s+delete)|tea\s(?:.*\s)?(?:repos?\s+(?:delete|rm)|issues?\s+delete)|az\s(?:.*\s)?(?:repos\s+delete|devops\s+project\s+delete)|aws\s(?:.*\s)?codecommit\s+delete-repository|gcloud\s(?:.*\s)?source\s+repos\s+delete)(?:\s|$)|^(?:gh|glab)\s(?:.*\s)?api\s(?:.*\s)?(?:-X\s*'?DELETE|--method[=\s]'?DELETE)\s(?:.*\s)?/?(?:user/)?(?:repos|projects)/[^/\s]+(?:/[^/\s]+)?/?(?:\s|$)|^(?:gh|glab)\s(?:.*\s)?api\s+/?(?:repos|projects)/[^/\s]+(?:/[^/\s]+)?/?\s(?:.*\s)?(?:-X\s*'?DELETE|--method[=\s]'?DELETE)(?:\s|$)",
            "deletes a repository, project, issue or gist on the forge, with its history, issues and reviews",
            "archive it instead (`gh repo archive`), or let a human delete",
        ),
        shell(
            "api-delete",
            Critical,
            &[],
            &["delete"],
            r"^(?:curl|http|xh)\s(?:.*\s)?(?:(?:-X\s*'?DELETE|--request[=\s]'?DELETE|DELETE\s).*(?:api\.github\.com/repos/[^/\s]+/[^/\s']+/?(?:['\s]|$)|api\.bitbucket\.org/\S*repositories/|/api/v4/(?:projects|groups)/[^/\s']+/?(?:['\s]|$)|api\.heroku\.com/apps|api\.vercel\.com/\S*projects|api\.netlify\.com/api/v1/sites|api\.render\.com/v1/services|api\.fly\.io/\S*apps|api\.digitalocean\.com/v2/apps|/api/v1/repos/[^/\s]+/[^/\s']+/?(?:['\s]|$))|(?:api\.github\.com/repos/[^/\s]+/[^/\s']+/?(?:['\s]|$)|api\.bitbucket\.org/\S*repositories/|/api/v4/(?:projects|groups)/[^/\s']+/?(?:['\s]|$)|api\.heroku\.com/apps|api\.vercel\.com/\S*projects|api\.netlify\.com/api/v1/sites|api\.render\.com/v1/services|api\.fly\.io/\S*apps|api\.digitalocean\.com/v2/apps|/api/v1/repos/[^/\s]+/[^/\s']+/?(?:['\s]|$)).*(?:-X\s*'?DELETE|--request[=\s]'?DELETE))",
            "deletes a repository, project, app or site through the forge's or platform's API",
            "archive it instead, or let a human delete",
        ),
        shell(
            "release-delete",
            Critical,
            &[],
            &["delete"],
            r"^(?:gh\s(?:.*\s)?(?:release\s+(?:delete|delete-asset))|glab\s(?:.*\s)?release\s+delete)(?:\s|$)",
            "deletes a release and the files attached to it: downloads and install scripts pointing at it break",
            "edit it or mark it as a pre-release instead, or let a human delete",
        ),
        shell(
            "label-delete",
            Critical,
            &[],
            &["delete"],
            r"^(?:gh|glab|tea)\s(?:.*\s)?labels?\s+delete(?:\s|$)",
            "deletes a label from the repository and from every issue and pull request that carries it: the triage it recorded is gone",
            "rename it (`gh label edit`) or let a human delete it",
        ),
        shell(
            "forge-settings-delete",
            High,
            &[],
            &["delete"],
            r"^(?:gh\s(?:.*\s)?(?:ssh-key\s+delete|gpg-key\s+delete|repo\s+deploy-key\s+delete|cache\s+delete)|glab\s(?:.*\s)?deploy-key\s+delete|(?:gh|glab)\s(?:.*\s)?api\s(?:.*\s)?(?:-X\s*'?DELETE|--method[=\s]'?DELETE)\s(?:.*\s)?\S*(?:releases|git/refs|hooks|branches/\S+/protection|environments|collaborators|deployments)\S*)(?:\s|$)",
            "deletes a key, webhook, branch protection or environment on the forge",
            "check what depends on it first",
        ),
        shell(
            "app-destroy",
            Critical,
            &[
                "heroku", "fly", "flyctl", "supabase", "firebase", "railway", "render", "vercel",
                "netlify",
            ],
            &[],
            r"^(?:heroku\s(?:.*\s)?(?:apps:destroy|destroy|pg:reset|addons:destroy|pg:backups:delete|redis:destroy)|fly(?:ctl)?\s(?:.*\s)?(?:apps\s+(?:destroy|delete|rm)|destroy|postgres\s+destroy|mpg\s+destroy|redis\s+destroy)|supabase\s(?:.*\s)?(?:projects\s+delete|db\s+reset|branches\s+delete|orgs\s+delete)|firebase\s(?:.*\s)?(?:projects:delete|firestore:delete\s(?:.*\s)?(?:--all-collections|-r|--recursive)|database:remove|hosting:disable|apps:delete|functions:delete)|railway\s(?:.*\s)?(?:delete|down)|render\s(?:.*\s)?services\s+delete|vercel\s(?:.*\s)?(?:project\s+(?:rm|remove)|remove|rm)|netlify\s(?:.*\s)?sites:delete)(?:\s|$)",
            "destroys an app, its database or add-ons on the platform, with their data",
            "take a backup (`heroku pg:backups:capture`, ...) and let a human destroy it",
        ),
        shell(
            "deployment-delete",
            High,
            &["vercel", "netlify", "heroku", "fly", "flyctl"],
            &[],
            r"^(?:vercel\s(?:.*\s)?(?:domains\s+(?:rm|remove)|env\s+rm)|netlify\s(?:.*\s)?env:unset|heroku\s(?:.*\s)?(?:domains:remove|config:unset|ps:scale\s+\S+=0)|fly(?:ctl)?\s(?:.*\s)?(?:machines?\s+(?:destroy|remove|rm)|certs\s+(?:delete|remove)|secrets\s+unset))(?:\s|$)",
            "removes deployments, sites, domains or settings of an app",
            "check what serves traffic first",
        ),
        shell(
            "repo-expose-or-archive",
            High,
            &["gh", "glab"],
            &[],
            r"^gh\s(?:.*\s)?repo\s+archive(?:[\s']|$)|^(?:gh|glab)\s(?:.*\s)?repo\s+edit\s(?:.*\s)?--visibility[=\s]'?public(?:[\s']|$)|^(?:gh|glab)\s(?:.*\s)?api\s(?:.*\s)?(?:visibility=public|private=false|archived=true)(?:[\s']|$)",
            "makes a repository public (its code and history are out for good) or archives it (read-only for everyone)",
            "check with the owner first; `gh repo view --json visibility` shows where it stands",
        ),
    ],
};
