//! CDN and edge: deleting distributions, services, endpoints, load balancers and workers, and
//! purging everything cached (CloudFront, Fastly, Azure Front Door and CDN, Google load balancing,
//! Cloudflare, Akamai, ELB). They can be created again, but traffic fails meanwhile: high, asked.

use super::{Pack, Rule, shell};
use crate::Severity::{Critical, High};

pub static PACK: Pack = Pack {
    name: "cdn",
    description: "deleting CDN distributions, load balancers and edge services, purging all caches",
    default_on: false,
    keywords: &[
        "aws",
        "gcloud",
        "az",
        "fastly",
        "wrangler",
        "akamai",
        "delete",
        "purge",
        "invalidat",
    ],
    rules: &[
        shell(
            "cloudfront-delete",
            Critical,
            &["aws"],
            &[],
            r"^aws\s(?:.*\s)?(?:cloudfront\s+(?:delete-distribution|delete-function|delete-cache-policy|delete-origin-request-policy|delete-response-headers-policy|delete-origin-access-control|delete-key-value-store)|elbv2\s+delete-(?:load-balancer|target-group|listener)|elb\s+delete-load-balancer|globalaccelerator\s+delete-accelerator|acm\s+delete-certificate|wafv2\s+delete-web-acl|lightsail\s+delete-distribution)(?:\s|$)",
            "deletes a CloudFront distribution or function, a load balancer or certificate: traffic through it fails and its configuration is gone",
            "disable it first, export its config (`get-distribution-config`), and let a human delete",
        ),
        shell(
            "cloudfront-update",
            High,
            &["aws"],
            &[],
            r"^aws\s(?:.*\s)?cloudfront\s+update-distribution(?:\s|$)",
            "replaces a distribution's whole configuration (disabling it, or dropping origins and behaviours)",
            "compare the new config with `get-distribution-config` first",
        ),
        Rule {
            // Wrangler's `--local` works on the development emulator's storage.
            unless: Some(r"\s--local(?:\s|$)"),
            ..shell(
                "edge-delete",
                Critical,
                &["fastly", "akamai", "wrangler"],
                &[],
                r"^(?:fastly\s(?:.*\s)?delete|akamai\s(?:.*\s)?(?:property-manager\s+delete-property|property\s+delete|delete-property|edgeworkers\s+delete)|wrangler\s(?:.*\s)?(?:delete|deployments?\s+delete|pages\s+project\s+delete|kv:namespace\s+delete|kv\s+namespace\s+delete|d1\s+delete|queues\s+delete|r2\s+bucket\s+delete|kv:bulk\s+delete|kv\s+bulk\s+delete|versions\s+delete))(?:\s|$)",
                "deletes an edge service, property, worker, Pages project or namespace with its configuration or data",
                "list it first, and let a human delete",
            )
        },
        shell(
            "edge-api-delete",
            Critical,
            &[],
            &["delete"],
            r"^(?:curl|http|xh)\s(?:.*\s)?(?:(?:-X\s*'?DELETE|--request[=\s]'?DELETE|DELETE\s).*(?:api\.fastly\.com/service|api\.cloudflare\.com/client/v4/\S*(?:load_balancers|workers/scripts|pagerules|rulesets|pages/projects|storage/kv))|(?:api\.fastly\.com/service|api\.cloudflare\.com/client/v4/\S*(?:load_balancers|workers/scripts|pagerules|rulesets|pages/projects|storage/kv)).*(?:-X\s*'?DELETE|--request[=\s]'?DELETE))",
            "deletes a CDN service, worker or edge rule through the provider's API",
            "let a human delete",
        ),
        shell(
            "cache-purge-all",
            High,
            &[],
            &["purge", "invalidat"],
            r"^(?:fastly\s(?:.*\s)?purge\s(?:.*\s)?--all|akamai\s(?:.*\s)?purge\s(?:.*\s)?(?:delete|invalidate)\s(?:.*\s)?--cpcode|az\s(?:.*\s)?(?:cdn|afd)\s(?:.*\s)?endpoint\s+purge\s(?:.*\s)?--content-paths\s+'?/\*|aws\s(?:.*\s)?cloudfront\s+create-invalidation\s(?:.*\s)?--paths\s+(?:\S+\s+)*'?/\*'?|gcloud\s(?:.*\s)?compute\s+url-maps\s+invalidate-cdn-cache\s(?:.*\s)?--path[=\s]'?/\*'?)(?:\s|$|')|^(?:curl|curlie|http|https|xh|wget)\s.*(?:purge_everything|/purge_all\b|/purge/all\b|purgeAll|purge_cache\S*\s.*\bhosts|/pullzone/\d+/purgeCache|/ccu/v3/(?:delete|invalidate)/cpcode/|api\.fastly\.com/service/[^/\s'\x22]+/purge['\x22\s].*Surrogate-Key:\s*all\b)|^aws\s(?:.*\s)?cloudfront\s+create-invalidation\s.*\\?\x22Items\\?\x22\s*:\s*\[\s*\\?\x22/\*\\?\x22",
            "purges everything cached: every request goes to the origin at once",
            "purge by URL, key or tag",
        ),
        shell(
            "azure-edge-delete",
            Critical,
            &["az"],
            &[],
            r"^az\s(?:.*\s)?(?:cdn\s(?:.*\s)?(?:profile|endpoint|custom-domain|origin)\s+delete|afd\s(?:.*\s)?(?:profile|endpoint|route|origin-group|custom-domain)\s+delete|network\s+(?:front-door|lb|application-gateway|traffic-manager)\s(?:.*\s)?delete)(?:\s|$)",
            "deletes an Azure CDN/Front Door profile or endpoint, a load balancer or gateway",
            "check nothing routes through it, export it, and let a human delete",
        ),
        shell(
            "gcloud-lb-delete",
            Critical,
            &["gcloud"],
            &[],
            r"^gcloud\s(?:.*\s)?compute\s+(?:url-maps|backend-services|backend-buckets|forwarding-rules|target-https?-proxies|target-pools|ssl-certificates|security-policies|addresses)\s+delete(?:\s|$)",
            "deletes part of a Google load balancer (traffic through it fails; a released static IP is gone)",
            "check what uses it (`gcloud compute url-maps list`) and let a human delete",
        ),
    ],
};
