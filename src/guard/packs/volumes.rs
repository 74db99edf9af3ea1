//! Volumes: removing logical volumes, volume groups, RAID members, ZFS datasets and pools, Btrfs
//! subvolumes, Ceph pools, and cloud and cluster disks (EBS, persistent disks, Kubernetes
//! persistent volumes). The data on them goes with them: critical.

use super::{Pack, Rule, shell};
use crate::guard::Severity::{Critical, High};

pub static PACK: Pack = Pack {
    name: "volumes",
    description: "removing LVM volumes, RAID superblocks, ZFS/Btrfs datasets, Ceph pools and cloud disks",
    default_on: false,
    keywords: &[
        "lvremove",
        "vgremove",
        "pvremove",
        "lvreduce",
        "lvresize",
        "vgreduce",
        "lvconvert",
        "mdadm",
        "zfs",
        "zpool",
        "btrfs",
        "ceph",
        "rbd",
        "stratis",
        "gluster",
        "aws",
        "gcloud",
        "az",
        "doctl",
        "kubectl",
        "oc",
        "fly",
        "hcloud",
        "dmsetup",
        "lvm",
    ],
    rules: &[
        Rule {
            // `--test` runs the command without writing anything.
            unless: Some(r"\s(?:--test|-t)(?:\s|$)"),
            ..shell(
                "lvm-remove",
                Critical,
                &[
                    "lvremove",
                    "vgremove",
                    "pvremove",
                    "lvreduce",
                    "lvm",
                    "vgreduce",
                    "lvresize",
                    "lvconvert",
                ],
                &[],
                r"^(?:lvm\s+)?(?:lvremove|vgremove|pvremove|lvreduce|vgreduce\s(?:.*\s)?--removemissing|lvresize\s(?:.*\s)?(?:-L|--size)[=\s]?-|lvconvert\s(?:.*\s)?--merge)(?:\s|$)",
                "removes (or shrinks) LVM volumes or groups: the data on them is gone",
                "`lvs`/`vgs` first, back up, and let a human remove",
            )
        },
        shell(
            "mdadm-destroy",
            Critical,
            &["mdadm"],
            &[],
            r"^mdadm\s(?:.*\s)?(?:--zero-superblock|--create|-C|--build|--grow\s(?:.*\s)?--raid-devices)(?:\s|$)",
            "wipes RAID metadata or creates an array over devices: their data is gone",
            "`mdadm --detail` first, and let a human do it",
        ),
        shell(
            "mdadm-stop",
            High,
            &["mdadm"],
            &[],
            r"^mdadm\s(?:.*\s)?(?:--stop|-S|--remove|-r|--fail|-f|--manage\s(?:.*\s)?--(?:remove|fail))(?:\s|$)",
            "stops an array or removes or fails its members (a degraded array may not survive the next fault)",
            "`mdadm --detail` first",
        ),
        Rule {
            // `zfs destroy -n` only shows what it would destroy.
            unless: Some(r"^zfs\s+destroy\s(?:.*\s)?-[a-zA-Z]*n"),
            ..shell(
                "zfs-destroy",
                Critical,
                &["zfs", "zpool"],
                &[],
                r"^(?:zfs\s(?:.*\s)?(?:destroy|rollback)|zpool\s(?:.*\s)?(?:destroy|labelclear|create\s(?:.*\s)?-f|split)|zfs\s+receive\s(?:.*\s)?-F)(?:\s|$)",
                "destroys ZFS datasets, snapshots or pools (rollback destroys what was written since)",
                "`zfs list -t all` and `zfs destroy -nv` first, and let a human destroy",
            )
        },
        shell(
            "btrfs-delete",
            Critical,
            &["btrfs"],
            &[],
            r"^btrfs\s(?:.*\s)?(?:subvolume|subvol|sub)\s+(?:delete|del)(?:\s|$)|^btrfs\s(?:.*\s)?(?:device\s+(?:delete|remove)|rescue\s+zero-log|check\s(?:.*\s)?--repair)(?:\s|$)",
            "deletes Btrfs subvolumes (snapshots) or devices",
            "`btrfs subvolume list` first, and let a human delete",
        ),
        shell(
            "ceph-delete",
            Critical,
            &["ceph", "rbd", "stratis", "gluster", "dmsetup"],
            &[],
            r"^(?:ceph\s(?:.*\s)?(?:osd\s+pool\s+(?:delete|rm)|fs\s+(?:rm|fail)|osd\s+(?:purge|destroy))|rbd\s(?:.*\s)?(?:rm|remove|trash\s+(?:purge|rm)|snap\s+(?:purge|rm))|stratis\s(?:.*\s)?(?:pool|filesystem|fs)\s+destroy|gluster\s(?:.*\s)?volume\s+delete|dmsetup\s(?:.*\s)?(?:remove_all|wipe_table))(?:\s|$)",
            "deletes storage pools, images or file systems of a cluster",
            "list first, and let a human delete",
        ),
        shell(
            "cloud-disk-delete",
            Critical,
            &["aws", "gcloud", "az", "doctl", "fly", "flyctl", "hcloud"],
            &[],
            r"^(?:aws\s(?:.*\s)?ec2\s+(?:delete-volume|delete-snapshot|deregister-image)|aws\s(?:.*\s)?lightsail\s+delete-disk|gcloud\s(?:.*\s)?compute\s+(?:disks|snapshots|images)\s+delete|az\s(?:.*\s)?(?:disk|snapshot|image)\s+delete|doctl\s(?:.*\s)?compute\s+(?:volume|snapshot)\s+(?:delete|rm)|fly(?:ctl)?\s(?:.*\s)?(?:volumes?|vol)\s+(?:destroy|delete|rm)|hcloud\s(?:.*\s)?volume\s+delete)(?:\s|$)",
            "deletes cloud disks, snapshots or images with their data",
            "snapshot first, and let a human delete",
        ),
        shell(
            "k8s-volume-delete",
            Critical,
            &["kubectl", "oc"],
            &[],
            r"^(?:kubectl|oc)\s(?:.*\s)?delete\s(?:.*\s)?(?:pvc|pv|persistentvolumeclaims?|persistentvolumes?|volumesnapshots?)(?:[\s/,.]|$)",
            "deletes persistent volumes or claims (or the stateful set that owns them); with a Delete reclaim policy the data goes",
            "check the reclaim policy (`kubectl get pv`), back up, and let a human delete",
        ),
    ],
};
