//! DNS: deleting zones and records (Route 53, Cloud DNS, Azure DNS, DigitalOcean, Cloudflare,
//! nsupdate). A deleted zone takes every record with it and the names stop resolving: critical. A
//! record can be written again: high.

use super::{Pack, shell};
use crate::guard::Severity::{Critical, High};

pub static PACK: Pack = Pack {
    name: "dns",
    description: "deleting DNS zones and records (route53, cloud dns, azure dns, cloudflare, ...)",
    default_on: false,
    keywords: &[
        "aws",
        "gcloud",
        "az",
        "doctl",
        "flarectl",
        "cloudflare",
        "nsupdate",
        "cli53",
        "lexicon",
        "octodns",
        "hcloud",
        "linode",
        "delete",
    ],
    rules: &[
        shell(
            "zone-delete",
            Critical,
            &[
                "aws",
                "gcloud",
                "az",
                "doctl",
                "flarectl",
                "cli53",
                "hcloud",
                "linode-cli",
            ],
            &[],
            r"^(?:aws\s(?:.*\s)?route53\s+delete-hosted-zone|aws\s(?:.*\s)?route53domains\s+delete-domain|gcloud\s(?:.*\s)?dns\s+managed-zones\s+delete|az\s(?:.*\s)?network\s+(?:private-)?dns\s+zone\s+delete|doctl\s(?:.*\s)?compute\s+domain\s+(?:delete|rm)|flarectl\s(?:.*\s)?zone\s+delete|cli53\s+delete|hcloud\s(?:.*\s)?zone\s+delete|linode-cli\s(?:.*\s)?domains\s+delete)(?:\s|$)",
            "deletes a DNS zone with every record in it",
            "export it first (`aws route53 list-resource-record-sets`, `gcloud dns record-sets export`), and let a human delete",
        ),
        shell(
            "zone-delete-api",
            Critical,
            &[],
            &["delete"],
            r"^(?:curl|http|xh)\s(?:.*\s)?(?:(?:-X\s*'?DELETE|--request[=\s]'?DELETE|DELETE\s).*api\.cloudflare\.com/client/v4/zones/?[^/\s']*/?(?:['\s]|$)|api\.cloudflare\.com/client/v4/zones/?[^/\s']*/?['\s].*(?:-X\s*'?DELETE|--request[=\s]'?DELETE))",
            "deletes a Cloudflare zone through the API",
            "let a human delete the zone",
        ),
        shell(
            "record-delete",
            High,
            &[],
            &["delete"],
            r"^(?:aws\s(?:.*\s)?route53\s+change-resource-record-sets\s.*DELETE|gcloud\s(?:.*\s)?dns\s+record-sets\s+(?:delete|transaction\s+remove)|az\s(?:.*\s)?network\s+(?:private-)?dns\s+record-set\s(?:.*\s)?(?:delete|remove-record)|doctl\s(?:.*\s)?compute\s+domain\s+records\s+(?:delete|rm)|flarectl\s(?:.*\s)?dns\s+(?:delete|d)|cli53\s+rrdelete|lexicon\s(?:.*\s)?delete|hcloud\s(?:.*\s)?zone\s+(?:delete-records|remove-records)|(?:curl|http|xh)\s(?:.*\s)?(?:-X\s*'?DELETE|--request[=\s]'?DELETE|DELETE\s).*(?:dns_records|/zones/\S+/records|/domains/\S+/records))",
            "deletes DNS records: the names stop resolving until they are written again",
            "note the record's values first (`dig`, the provider's list command)",
        ),
        shell(
            "nsupdate-delete",
            High,
            &["nsupdate", "octodns-sync"],
            &[],
            r"^(?:nsupdate\s.*update\s+(?:delete|del)\s|octodns-sync\s(?:.*\s)?--doit(?:\s|$))",
            "deletes DNS records dynamically (or applies a plan that may delete them)",
            "check the plan (`octodns-sync` without `--doit`) first",
        ),
    ],
};
