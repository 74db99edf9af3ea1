//! Remote hosts: `rsync --delete` onto another machine, mirroring with deletion over FTP or SFTP
//! (batches on standard input too), copies that overwrite a remote system file, Ansible's file
//! module removing paths, playbooks named for tearing down. What `ssh HOST CMD` and `ansible -a
//! CMD` run is judged by every other pack (the command is read as shell); on another host or in
//! a container no path is the agent's checkout, so a recursive or forced delete there is asked
//! about whole (`remote-destructive-command`) unless it only clears `/tmp`. On by default; a
//! remote `rsync --delete` is often intended, so it asks the user, and so does `rclone sync`,
//! which deletes at its destination what its source lacks.

use super::{Pack, Rule, shell};
use crate::Severity::{Critical, High};

/// A remote command whose only deletions are of temporary files (`rm -rf /tmp/deploy-8812`).
const REMOTE_TMP_ONLY: &str =
    r"^[^;&|]*?\brm\s+(?:-\S+\s+)*(?:/(?:var/)?tmp/[^\s'\x22;&|*]\S*\s*)+['\x22]?\s*$";

pub static PACK: Pack = Pack {
    name: "remote",
    description: "rsync --delete onto a remote host, remote mirrors with deletion, overwriting remote system files",
    default_on: true,
    keywords: &[
        "rsync",
        "lftp",
        "scp",
        "sftp",
        "unison",
        "ansible",
        "ssh",
        "rclone",
        "ftp",
        "smbclient",
        "pdsh",
        "pssh",
        "clush",
        "fab",
        "salt",
        "gcloud",
        "aws",
        "az",
        "kubectl",
        "oc",
        "docker",
        "podman",
        "mussh",
        "xpanes",
        "tsh",
        "mosh",
    ],
    rules: &[
        Rule {
            unless: Some(r"\s(?:--dry-run|-[a-zA-Z]*n[a-zA-Z]*)(?:\s|$)"),
            ..shell(
                "rsync-delete-remote",
                High,
                &["rsync"],
                &[],
                r"^rsync\s(?:.*\s)?--(?:delete\S*|del)(?:[\s=].*)?\s(?:[\w.\x40-]+:|rsync://)\S*$|^rsync\s(?:.*\s)?--remove-source-files(?:\s.*)?\s(?:[\w.\x40-]+:|rsync://)\S*\s(?:.*\s)?\S+$|^rsync\s(?:.*\s)?(?:[\w.\x40-]+:|rsync://)\S*\s(?:.*\s)?--remove-source-files(?:\s|$)|^rsync\s(?:.*\s)?(?:[\w.\x40-]+:[^\s]*|rsync://\S*)\s.*--(?:delete\S*|del)(?:[\s=]|$)|^rsync\s(?:.*\s)?--(?:delete\S*|del)(?:[\s=]|$).*\srsync://",
                "deletes files on the remote host: those the source does not have (a wrong source path empties the destination), or the remote source's files once copied",
                "run it with `--dry-run` (`-n`) first and read the list of deletions",
            )
        },
        shell(
            "remote-mirror-delete",
            High,
            &["lftp", "unison", "sftp", "ftp", "smbclient", "ncftp"],
            &[],
            r"^(?:lftp\s.*mirror\s(?:.*\s)?(?:-R\s(?:.*\s)?)?(?:--delete|-e)|unison\s(?:.*\s)?(?:-force|-prefer)\s|(?:sftp|ftp|ncftp|lftp|smbclient)(?:\s.*)?(?:[\s;'\x22](?:rm|rmdir|del|mdelete|mrm|deltree|rmtree)\s|\\n(?:rm|rmdir|del|mdelete|mrm|deltree)\s))",
            "mirrors to or from a remote host deleting what the other side lacks, or deletes remote files",
            "run the mirror with `--dry-run` first, and list the remote files before deleting any",
        ),
        shell(
            "scp-system-file",
            High,
            &["scp", "rsync"],
            &[],
            r"^(?:scp|rsync)\s.*\s[\w.\x40-]+:(?:/etc/|/boot/|/var/lib/|/usr/|/bin/|/sbin/|/lib|~?/?\.ssh/|(?:~/|/root/|/home/[^/\s]+/)?\.(?:bashrc|bash_profile|profile|zshrc)\b)\S*$",
            "overwrites a system or start-up file on the remote host",
            "copy it beside the original and let a human move it into place",
        ),
        shell(
            "ansible-file-absent",
            Critical,
            &["ansible"],
            &[],
            r"^ansible\s.*(?:-m\s*|--module-name[=\s])(?:ansible\.builtin\.)?file\s.*state=absent",
            "removes the path, recursively, on every host the pattern names",
            "run it with `--check` first, on one host (`--limit`), and let a human run it on all",
        ),
        shell(
            "ssh-stdin-script",
            High,
            &["ssh"],
            &[],
            r"^ssh\s(?:.*\s)?'?(?:sudo\s+(?:-\S+\s+)*)?(?:bash|sh|zsh|dash|ksh)\s+(?:-\S+\s+)*-s(?:[\s']|$)",
            "runs a script on a remote host from its input, which the guard cannot read",
            "show the script to the user first, or run its commands on the host one by one",
        ),
        Rule {
            unless: Some(r"\s(?:--dry-?run|--dryrun|-n)(?:[\s=]|$)"),
            ..shell(
                "rclone-sync",
                High,
                &["rclone"],
                &[],
                r"^rclone\s(?:.*\s)?(?:sync|move)\s",
                "`rclone sync` deletes at the destination what the source lacks (`move` deletes the source)",
                "run it with `--dry-run` first, or `rclone copy`",
            )
        },
        Rule {
            // Deleting the remote host's temporary files is everyday clean-up.
            unless: Some(REMOTE_TMP_ONLY),
            ..shell(
                "remote-destructive-command",
                High,
                &[
                    "ssh",
                    "pdsh",
                    "pssh",
                    "parallel-ssh",
                    "clush",
                    "fab",
                    "salt",
                    "salt-ssh",
                    "gcloud",
                    "aws",
                    "az",
                    "kubectl",
                    "oc",
                    "docker",
                    "podman",
                    "ansible",
                    "mussh",
                    "xpanes",
                    "tsh",
                    "mosh",
                ],
                &[],
                r"(?:^(?:ssh|pdsh|pssh|parallel-ssh|clush|fab|salt|salt-ssh|ansible|mussh|xpanes|tsh|mosh)\s|^(?:kubectl|oc|docker|podman)\s(?:.*\s)?(?:exec|debug)\s|^(?:gcloud|aws|az)\s(?:.*\s)?(?:ssh|send-command|run-command|ssm|--command|--scripts|--parameters)[\s=])(?:.*[\s'\x22\[(;&|=])?(?:(?:sudo|doas)\s+(?:-\S+\s+)*)?(?:rm\s+(?:-\S+\s+)*(?:-[a-zA-Z]*[rRf][a-zA-Z]*|--recursive|--force)\s|find\s[^;&|]*\s-(?:delete|exec\s+(?:rm|shred|truncate|unlink))\b|shred\s|wipefs\s|mkfs\S*\s|dd\s[^;&|]*of=/dev/|truncate\s+(?:-\S+\s+)*-s\s*0|doveadm\s+expunge\s|file\.remove\s|file\.absent\b|rmdir\s)",
                "deletes files on another host or in a running container, where nothing is the agent's own scratch and nothing comes back",
                "list what the command would delete there first (`ls`, `find ... -print`), and let the user confirm",
            )
        },
        Rule {
            unless: Some(
                r"\s(?:--list-tasks|--list-hosts|--list-tags|--syntax-check|--check|-C)(?:\s|$)",
            ),
            ..shell(
                "destructive-playbook",
                High,
                &["ansible-playbook"],
                &[],
                r"(?i)^ansible-playbook\s(?:.*\s)?\S*(?:decommission|destroy|teardown|tear-down|tear_down|wipe|purge|nuke|delete|remove|uninstall|reset|cleanup-all)\S*\.ya?ml(?:\s|$)",
                "runs a playbook named for tearing down, wiping or deleting, on every host it targets",
                "run it with `--check --diff` first, on one host (`--limit`), and let the user confirm",
            )
        },
    ],
};
