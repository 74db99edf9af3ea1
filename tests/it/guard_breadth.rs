//! Issue 27, breadth round: the mechanisms behind the held-out splits' misses and false flags,
//! through the real `cm-pretool` with the default packs, each with commands of our own.

use crate::guard_packs::expect;
use crate::harness::*;

/// A help or dry-run flag makes any rule's verb harmless; one that turns the dry run off, or
/// that follows `--` as an operand, does not.
#[test]
fn help_and_dry_run_flags_make_a_segment_inert() {
    let env = Env::for_guard();
    expect(
        &env,
        "allow",
        &[
            "az group delete --name rg-demo-eu --help",
            "kubectl delete namespace staging --dry-run=client",
            "helm uninstall billing -n apps --dry-run",
            "duplicacy prune -keep 0:90 -dry-run",
        ],
    );
    expect(
        &env,
        "deny",
        &[
            "kubectl delete namespace staging --dry-run=none",
            "sudo rm -rf -- --help /",
        ],
    );
}

/// Deleting what an earlier command of the same line created passes; a delete that reaches
/// further (another name, `--all`) or a core pack's target does not.
#[test]
fn a_probe_that_deletes_what_it_made_passes() {
    let env = Env::for_guard();
    expect(
        &env,
        "allow",
        &[
            "createdb probe_9x2 && psql -d probe_9x2 -c 'select 1' && dropdb probe_9x2",
            "kubectl create namespace probe-ns-42 && kubectl delete namespace probe-ns-42",
            "vgcreate vg_probe1 /dev/loop7 && vgremove -y vg_probe1",
        ],
    );
    expect(
        &env,
        "deny",
        &[
            "createdb probe_9x2 && dropdb orders_main",
            "kubectl create namespace probe-ns-42 && kubectl delete namespace production",
            "kubectl create namespace probe-ns-42 && kubectl delete namespace probe-ns-42 --all",
        ],
    );
}

/// Endpoints named for deleting in dotted, camel-case and snake forms; request bodies whose
/// GraphQL mutation or mutation document deletes; SDK deletes in Ruby, Node and Python.
#[test]
fn api_deletes_in_method_names_bodies_and_sdks_are_asked() {
    let env = Env::for_guard();
    expect(
        &env,
        "ask",
        &[
            "curl -X POST https://api.chat.example.net/api/messages.delete -d id=1",
            "curl -X POST https://mail.example.net/v1/threads/batchDelete -d @ids.json",
            "curl -X POST https://crm.example.net/api/contacts/destroy_all.json",
            r#"curl -X POST https://api.example.net/graphql -d '{"query":"mutation { teamDelete(id: \"t1\") { ok } }"}'"#,
            r#"curl -X POST https://gql.example.net/v1/graphql -d '{"query":"mutation { delete_invoices(where: {}) { affected_rows } }"}'"#,
            r#"curl -X POST https://cms.example.net/data/mutate/prod -d '{"mutations":[{"delete":{"id":"doc-1"}}]}'"#,
            r#"ruby -e 'require "fog"; Fog::Storage.new.delete_bucket("media-eu")'"#,
            r#"node -e "new Client().objects.delete({ id: 'obj-9' })""#,
            r#"python3 -c "from modelhub import delete_dataset; delete_dataset('team/corpus')""#,
            "awscurl --service es -X DELETE https://search.example.net/products",
        ],
    );
    expect(
        &env,
        "allow",
        &[
            "curl -X POST https://api.chat.example.net/api/messages.list -d limit=5",
            r#"curl -X POST https://api.example.net/graphql -d '{"query":"{ teams { id } }"}'"#,
            r#"node -e "const m = new Map([[1, 2]]); m.delete(1)""#,
        ],
    );
}

/// Cloud and platform CLIs the cloud pack has no rule for, verbs in CamelCase, uninstalls and
/// purges reach the generic delete verb; a purge of named URLs does not.
#[test]
fn delete_verbs_of_unlisted_cloud_clis_are_asked() {
    let env = Env::for_guard();
    expect(
        &env,
        "ask",
        &[
            "oci db autonomous-database terminate --autonomous-database-id ocid1.x --force",
            "ibmcloud cr namespace-rm team-images -f",
            "aliyun rds DeleteDBInstance --DBInstanceId rm-bp1",
            "sam delete --stack-name orders-api --no-prompts",
            "npx serverless remove --stage staging",
            "istioctl uninstall --purge -y",
            "celery -A billing.worker purge -f",
        ],
    );
    expect(
        &env,
        "allow",
        &[
            "oci compute instance list --compartment-id ocid1.c",
            "fastly purge --url https://www.example.net/index.html",
            "duplicity remove-all-but-n-full 2 file:///mnt/backup/home",
        ],
    );
    expect(
        &env,
        "deny",
        &["duplicity remove-all-but-n-full 2 --force file:///mnt/backup/home"],
    );
}

/// A project or application data folder below a home folder, and `find -delete` by type or age
/// over a whole home folder, are asked about; build output, caches, a single file and a find by
/// name are not.
#[test]
fn user_folders_below_home_are_asked_about() {
    let env = Env::for_guard();
    expect(
        &env,
        "ask",
        &[
            "rm -rf ~/src/billing-service",
            "rm -r -f /home/ana/.local/share/notes-app",
            "find ~/Music -type f -mtime +90 -delete",
        ],
    );
    expect(
        &env,
        "allow",
        &[
            "rm -rf ~/src/billing-service/node_modules",
            "rm -rf ~/.cache/pip",
            "find ~/Downloads -name '*.part' -print",
            "find ~/projects -name '*.rej' -delete",
            "rm -rf ~/Documents/q3-notes.txt",
        ],
    );
}

/// Drive firmware erases and a move onto /dev/null lose everything.
#[test]
fn firmware_erases_and_moves_onto_dev_null_are_denied() {
    let env = Env::for_guard();
    expect(
        &env,
        "deny",
        &[
            "sudo nvme sanitize /dev/nvme0 -a 2",
            "hdparm --user-master u --security-erase-enhanced pw /dev/sdc",
            "mv ./reports /dev/null",
        ],
    );
    expect(&env, "allow", &["sudo nvme list", "mv ./reports ./archive"]);
}

/// `at` and `batch` run what they read through a shell later: what is piped in is judged.
#[test]
fn commands_piped_into_at_are_judged() {
    let env = Env::for_guard();
    expect(
        &env,
        "deny",
        &["echo 'rm -rf ~/Music' | at now + 5 minutes"],
    );
    expect(
        &env,
        "allow",
        &["echo 'make -C ~/src/site publish' | at 23:00", "at -l"],
    );
}

/// Perl and PHP deleting what a glob of a system or home directory matches, and File::Path on a
/// quoted home path, are denied; a glob of the project is not.
#[test]
fn interpreter_deletes_by_glob_of_system_places_are_denied() {
    let env = Env::for_guard();
    expect(
        &env,
        "deny",
        &[
            r#"perl -e 'unlink glob("/etc/logrotate.d/*")'"#,
            r#"php -r 'array_map("unlink", glob("/var/lib/app/uploads/*"));'"#,
            r#"perl -MFile::Path=remove_tree -e 'remove_tree("$ENV{HOME}/notes")'"#,
        ],
    );
    expect(&env, "allow", &[r#"perl -e 'unlink glob("build/*.o")'"#]);
}

/// Windows recursive deletes of a folder on a drive are asked; of build output they are not.
#[test]
fn windows_recursive_deletes_on_a_drive_are_asked() {
    let env = Env::for_guard();
    expect(
        &env,
        "ask",
        &[
            r"Remove-Item -Recurse -Force C:\Users\ana\Documents",
            r"cmd.exe /c rmdir /s /q E:\Archive",
        ],
    );
    expect(
        &env,
        "allow",
        &[
            r"Remove-Item -Recurse -Force C:\src\app\node_modules",
            r"Remove-Item C:\src\app\notes.txt",
        ],
    );
}
