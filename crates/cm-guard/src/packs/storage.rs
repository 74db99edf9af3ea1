//! Object and file storage: deleting buckets, containers, blobs and file systems, recursively or in
//! batches (S3 and its API, MinIO, Google Cloud Storage, Azure Storage, rclone, s3cmd, Backblaze B2,
//! Cloudflare R2, EFS). Object stores rarely keep deleted data: critical. (`rclone sync` is in the
//! remote pack, on by default.)

use super::{Pack, Rule, shell};
use crate::Severity::{Critical, High};

pub static PACK: Pack = Pack {
    name: "storage",
    description: "deleting buckets, containers and stored objects (s3api, mc, gcloud storage, az storage, rclone, ...)",
    default_on: false,
    keywords: &[
        "aws",
        "mc",
        "gcloud",
        "gsutil",
        "az",
        "azcopy",
        "rclone",
        "s3cmd",
        "b2",
        "wrangler",
        "swift",
        "openstack",
        "hdfs",
        "hadoop",
    ],
    rules: &[
        Rule {
            unless: Some(r"\s(?:--dry-?run|--dryrun|-n)(?:[\s=]|$)"),
            ..shell(
                "s3-delete",
                Critical,
                &["aws"],
                &["s3", "delete"],
                r"^aws\s(?:.*\s)?(?:s3\s+mv\s(?:.*\s)?s3://\S*\s+/dev/null|s3api\s+(?:delete-objects|delete-bucket\S*|put-bucket-lifecycle\S*)|s3\s+rb\s|s3\s+rm\s(?:.*\s)?(?:--recursive|--exclude|--include)|efs\s+delete-file-system|fsx\s+delete-file-system|glacier\s+delete-(?:vault|archive)|s3control\s+delete-\S+)(?:\s|$)",
                "deletes S3 objects in bulk, a bucket, or a file system, with the data in them",
                "list first (`aws s3 ls --recursive`, `--dryrun`), and let a human delete",
            )
        },
        Rule {
            // A dry run, or an object under a scratch name the agent made itself.
            unless: Some(
                r"\s(?:--dry-?run|--dryrun|-n)(?:[\s=]|$)|[\s/:=_.'-](?:tmp|temp|scratch)(?:[/_.'-]|\s|$)",
            ),
            ..shell(
                "s3-object-delete",
                High,
                &["aws"],
                &["s3"],
                r"^aws\s(?:.*\s)?(?:s3\s+rm\s|s3api\s+delete-object\s)(?:.*\s)?s3://|^aws\s(?:.*\s)?s3api\s+delete-object(?:\s|$)",
                "deletes an object from S3 (gone unless the bucket keeps versions)",
                "check the key with `aws s3 ls` first",
            )
        },
        Rule {
            unless: Some(r"\s(?:--dry-?run|--dryrun|-n)(?:[\s=]|$)"),
            ..shell(
                "minio-delete",
                Critical,
                &["mc"],
                &[],
                r"^mc\s(?:.*\s)?(?:rb\s|rm\s(?:.*\s)?(?:--recursive|-r\b|--force|--versions|--older-than)|admin\s+bucket\s+remote\s+rm|mirror\s(?:.*\s)?--remove|ilm\s(?:.*\s)?(?:add|rule\s+add)\s(?:.*\s)?--expire)",
                "deletes MinIO buckets or objects recursively (or mirrors with removal)",
                "`mc ls --recursive` first, and let a human delete",
            )
        },
        shell(
            "gcs-delete",
            Critical,
            &["gcloud", "gsutil"],
            &[],
            r"^gcloud\s(?:.*\s)?storage\s+(?:rm\s|buckets\s+delete|rsync\s(?:.*\s)?--delete-unmatched-destination-objects|buckets\s+update\s(?:.*\s)?--lifecycle-file[=\s]\S*(?:delete|expire|purge))|^gcloud\s(?:.*\s)?filestore\s+instances\s+delete|^gsutil\s(?:.*\s)?(?:-m\s+)?(?:rm\s(?:.*\s)?-[a-zA-Z]*[ra]|rm\s(?:.*\s)?gs://\S*\*|rb\s|rsync\s(?:.*\s)?-[a-zA-Z]*d|lifecycle\s+set\s\S*(?:delete|expire|purge))",
            "deletes Google Cloud Storage objects, buckets or a file store",
            "`gcloud storage ls` first, and let a human delete",
        ),
        shell(
            "azure-storage-delete",
            Critical,
            &["az", "azcopy"],
            &[],
            r"^az\s(?:.*\s)?storage\s(?:.*\s)?(?:account\s+delete|container\s+delete|share\s+delete|share-rm\s+delete|blob\s+delete-batch|fs\s+delete|fs\s+directory\s+delete|file\s+delete-batch|queue\s+delete|table\s+delete)|^azcopy\s(?:.*\s)?(?:remove|rm|sync\s(?:.*\s)?--delete-destination[=\s]true)",
            "deletes an Azure storage account, container, share or blobs in bulk",
            "list first (`az storage blob list`), and let a human delete",
        ),
        Rule {
            unless: Some(r"\s(?:--dry-?run|--dryrun|-n)(?:[\s=]|$)"),
            ..shell(
                "rclone-delete",
                Critical,
                &["rclone"],
                &[],
                r"^rclone\s(?:.*\s)?(?:purge|delete|deletefile|rmdirs|cleanup|dedupe\s(?:.*\s)?--dedupe-mode[=\s](?:first|newest|oldest|largest|smallest))(?:\s|$)",
                "deletes files or whole paths on a remote",
                "`rclone ls` and `--dry-run` first, and let a human delete",
            )
        },
        shell(
            "s3-tools-delete",
            Critical,
            &["s3cmd", "b2", "wrangler", "swift", "openstack", "aws"],
            &[],
            r"^s3cmd\s(?:.*\s)?(?:(?:del|rm)\s(?:.*\s)?(?:-r|--recursive|--force)|rb\s|sync\s(?:.*\s)?--delete-removed)|^b2\s(?:.*\s)?(?:delete-bucket|rm\s(?:.*\s)?--recursive|delete-file-version|bucket\s+delete|file\s+delete)|^wrangler\s(?:.*\s)?r2\s+(?:bucket\s+delete|object\s+delete)|^swift\s(?:.*\s)?delete\s|^openstack\s(?:.*\s)?(?:container\s+delete|object\s+delete|volume\s+delete)",
            "deletes buckets or objects on S3-compatible storage (s3cmd, B2, R2, Swift)",
            "list first, and let a human delete",
        ),
        Rule {
            // The agent's own temporary output (`/user/agent/tmp/job-1`).
            unless: Some(r"\s/\S*/(?:tmp|temp|scratch|_temporary)(?:/\S*)?\s*$"),
            ..shell(
                "hdfs-delete",
                Critical,
                &["hdfs", "hadoop"],
                &[],
                r"^(?:hdfs|hadoop)\s+(?:dfs|fs)\s(?:.*\s)?-(?:rm|rmr|rmdir)\s(?:.*\s)?(?:-skipTrash|-r\s(?:.*\s)?-skipTrash|-[rR]\s+/\S*(?:\s|$))",
                "deletes HDFS paths recursively, or past the trash",
                "`hdfs dfs -du` first; without `-skipTrash` it goes to the trash, and let a human delete",
            )
        },
    ],
};
