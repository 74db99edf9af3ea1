//! Search engines: deleting indices, collections and their documents (Elasticsearch, OpenSearch,
//! Solr, Meilisearch, Typesense, Algolia), by the HTTP API or the tools. An index deleted is its
//! documents gone until everything is re-indexed from a source that may not exist: critical.

use super::{Pack, Rule, shell};
use crate::Severity::Critical;

pub static PACK: Pack = Pack {
    name: "search",
    description: "deleting search indices and collections (elasticsearch, opensearch, solr, meilisearch, ...)",
    default_on: false,
    keywords: &[
        "delete",
        "algolia",
        "solr",
        "curator",
        "aws",
        "quickwit",
        "elasticsearch",
        "opensearch",
        "meili",
        "typesense",
        "remove_index",
        "vespa",
    ],
    rules: &[
        Rule {
            // Clearing scroll or point-in-time contexts frees server memory, nothing stored; an
            // index the agent made for itself is named so (`agent-scratch-test`, `tmp-reindex`).
            unless: Some(
                r"/_search/scroll\b|/_pit\b|(?::\d+|\.\w+)/(?:[\w.-]*[-_.])?(?:tmp|temp|scratch)(?:[-_.][\w.-]*)?(?:['\s/?]|$)",
            ),
            ..shell(
                "index-delete-http",
                Critical,
                &[],
                &["delete"],
                r"^(?:curl|http|https|xh|wget|httpie)\s(?:.*\s)?(?:(?:-[a-zA-Z]*X\s*'?DELETE|--request[=\s]'?DELETE|--method[=\s]'?DELETE|DELETE\s).*(?::9200|:4080|/api/index/|:9201|:9243|:7700|:8108|:8983|_all\b|/indexes/|/collections/|/_doc\b|_snapshot|_data_stream|_index_template|elastic|opensearch|search|solr|meili|typesense|\bes\.|\.es\.)|(?::9200|:9201|:9243|:7700|:8108|:8983|_all\b|/indexes/|/collections/|/_doc\b|_snapshot|_data_stream|_index_template|elastic|opensearch|search|solr|meili|typesense|\bes\.|\.es\.).*(?:-[a-zA-Z]*X\s*'?DELETE|--request[=\s]'?DELETE|--method[=\s]'?DELETE|DELETE\s))",
                "deletes a search index, collection or its documents over the HTTP API",
                "check the index name with a GET first (`curl host:9200/_cat/indices`), take a snapshot, and let a human delete",
            )
        },
        shell(
            "solr-delete",
            Critical,
            &[],
            &["<delete>", "action=delete", "deletecore", "delete"],
            r"^(?:curl|http|https|xh|wget|httpie)\s(?:.*\s)?\S*(?:(?:/solr/|:8983)\S*(?:action=(?:DELETE|UNLOAD)\b|stream\.body=\S*<delete>)|(?:/solr/|:8983)\S*/update\S*\s.*<delete>)",
            "deletes a Solr collection or core, or every document a delete query matches",
            "query with `/select` first, back the collection up, and let a human delete",
        ),
        shell(
            "delete-by-query",
            Critical,
            &[],
            &["_delete_by_query", "delete_by_query"],
            r"^(?:curl|http|https|xh|wget|httpie)\s(?:.*\s)?\S*_delete_by_query",
            "deletes every document the query matches (often all of them)",
            "run the same query with `_count` first, snapshot the index, and let a human delete",
        ),
        Rule {
            unless: Some(r"\s--dry-run(?:\s|$)"),
            ..shell(
                "search-tool-delete",
                Critical,
                &[
                    "algolia",
                    "solr",
                    "curator*",
                    "aws",
                    "quickwit",
                    "elasticsearch-node",
                    "opensearch-node",
                    "meilisearch",
                    "typesense-server",
                ],
                &[],
                r"^(?:algolia\s(?:.*\s)?(?:indices|index|objects|rules|synonyms)\s+(?:delete|clear|rm)|solr\s+delete\s|curator(?:_cli)?\s(?:.*\s)?delete_indices|aws\s(?:.*\s)?(?:opensearch\s+delete-domain|es\s+delete-elasticsearch-domain|opensearchserverless\s+delete-collection|cloudsearch\s+delete-domain|kendra\s+delete-index)|quickwit\s(?:.*\s)?(?:index\s+(?:delete|clear)|split\s+mark-for-deletion)|(?:elasticsearch|opensearch)-node\s+(?:unsafe-bootstrap|detach-cluster|remove-settings|remove-customs|override-version)|meilisearch\s(?:.*\s)?--import-dump\s(?:.*\s)?--ignore-dump-if-db-exists=false)(?:\s|$)",
                "deletes search indices, collections or a whole search domain",
                "list them first, snapshot, and let a human delete",
            )
        },
        shell(
            "index-delete-body",
            Critical,
            &[],
            &["remove_index", "delete"],
            r#"^(?:curl|http|https|xh|wget|httpie)\s.*(?:remove_index|\\?"delete\\?"\s*:\s*\{\s*\\?"query\\?"\s*:\s*\\?"\*:\*|<delete>\s*<query>\s*\*:\*)"#,
            "a request body that removes an index (an alias action) or deletes every document of a collection",
            "list the indices or count the documents first, snapshot, and let a human delete",
        ),
        Rule {
            unless: Some(r"\s--dry-run(?:\s|$)"),
            ..shell(
                "search-config-delete",
                Critical,
                &["curator", "curator_cli", "solr", "vespa"],
                &[],
                r"^(?:curator(?:_cli)?\s(?:.*\s)?\S*(?:delete|purge|wipe|remove)\S*\.ya?ml|solr\s(?:.*\s)?delete\s|vespa\s(?:.*\s)?(?:document\s+remove|feed\s(?:.*\s)?\S*(?:remove|delete)\S*\.jsonl?))(?:\s|$)",
                "runs a deletion: a curator action file named for deleting, a Solr collection delete, Vespa document removals",
                "run it with `--dry-run` first, and let a human delete",
            )
        },
        Rule {
            on: super::On::Lang(crate::normalize::Lang::Node),
            ..shell(
                "search-sdk-delete",
                Critical,
                &[],
                &["delete"],
                r"\binitIndex\([^)]*\)\.(?:delete|clearObjects)\(\s*\)|\.indices\.delete\(|\.deleteIndex\(|\.index\([^)]*\)\.delete\(\s*\)|\.collections\([^)]*\)\.delete\(\s*\)",
                "deletes a search index or collection through its client library",
                "list first, snapshot, and let a human delete",
            )
        },
    ],
};
