//! Messaging: deleting or purging topics, streams and queues, and resetting consumer positions
//! (Kafka, Redpanda, NATS JetStream, RabbitMQ, SQS/SNS, Pub/Sub, Service Bus, Pulsar). Messages in a
//! deleted topic or purged queue are gone: critical. Consumer offsets and subscriptions can be set
//! again: high.

use super::{Pack, shell};
use crate::Severity::{Critical, High};

pub static PACK: Pack = Pack {
    name: "messaging",
    description: "deleting or purging topics, streams and queues (kafka, nats, rabbitmq, sqs, pubsub, ...)",
    default_on: false,
    keywords: &[
        "kafka", "rpk", "nats", "rabbitmq", "pulsar", "aws", "az", "gcloud", "delete", "activemq",
        "artemis",
    ],
    rules: &[
        shell(
            "kafka-topic-delete",
            Critical,
            &[
                "kafka-topics*",
                "kafka-delete-records*",
                "rpk",
                "kafka-configs*",
            ],
            &[],
            r"^(?:kafka-topics(?:\.sh)?\s(?:.*\s)?--delete|kafka-delete-records(?:\.sh)?\s|rpk\s(?:.*\s)?(?:topic\s+(?:delete|trim-prefix)|group\s+delete)|kafka-configs(?:\.sh)?\s(?:.*\s)?--alter\s(?:.*[\s,=])?retention\.(?:ms|bytes)=(?:0|1|[1-9]\d{0,3})\b)",
            "deletes Kafka topics or records: the messages in them are gone",
            "`kafka-topics --describe` first, and let a human delete the topic",
        ),
        shell(
            "kafka-offsets-reset",
            High,
            &["kafka-consumer-groups*", "rpk"],
            &[],
            r"^(?:kafka-consumer-groups(?:\.sh)?\s(?:.*\s)?(?:--delete|--reset-offsets\s(?:.*\s)?--execute|--execute\s(?:.*\s)?--reset-offsets)|rpk\s(?:.*\s)?group\s+seek)(?:\s|$)",
            "deletes a consumer group or moves its offsets: consumers re-read or skip messages",
            "run `--reset-offsets` with `--dry-run` first",
        ),
        shell(
            "kafka-group-delete",
            Critical,
            &["kafka-consumer-groups*", "rpk"],
            &["delete"],
            r"^(?:kafka-consumer-groups(?:\.sh)?\s(?:.*\s)?--delete(?:-offsets)?|rpk\s(?:.*\s)?group\s+delete)(?:\s|$)",
            "deletes a consumer group with its committed offsets: where each consumer was is gone",
            "`kafka-consumer-groups --describe --group NAME` first, and let a human delete",
        ),
        shell(
            "rabbitmq-api-delete",
            Critical,
            &[],
            &["delete"],
            r"^(?:curl|http|https|xh|wget|httpie)\s(?:.*\s)?(?:-X\s*'?DELETE|--request[=\s]'?DELETE|--method[=\s]'?DELETE|DELETE\s)(?:.*\s)?'?\S*(?::15672|:15671)?/api/(?:queues|exchanges|vhosts|bindings|shovels|federation-upstreams)/|^(?:curl|http|https|xh|wget|httpie)\s(?:.*\s)?'?\S*(?::15672|:15671)/api/(?:queues|exchanges|vhosts)/\S*\s(?:.*\s)?(?:-X\s*'?DELETE|--request[=\s]'?DELETE|--method[=\s]'?DELETE)",
            "deletes or purges RabbitMQ queues, exchanges or vhosts through the management API: their messages are gone",
            "GET the same path first, and let a human delete",
        ),
        shell(
            "pubsub-seek-time",
            Critical,
            &["gcloud"],
            &["seek"],
            r"^gcloud\s(?:.*\s)?pubsub\s+(?:subscriptions|lite-subscriptions)\s+seek\s(?:.*\s)?--time[=\s]",
            "seeks a Pub/Sub subscription to a time: every message before it is acknowledged and cannot be delivered again",
            "seek to a snapshot you made first (`gcloud pubsub snapshots create`), or let a human decide",
        ),
        shell(
            "nats-delete",
            Critical,
            &["nats"],
            &[],
            r"^nats\s(?:.*\s)?(?:stream|str|kv|object|obj|consumer|con)\s+(?:delete|del|rm|purge|remove)(?:\s|$)",
            "deletes or purges a NATS JetStream stream, key-value bucket or object store",
            "`nats stream info` first, and let a human delete",
        ),
        shell(
            "rabbitmq-delete",
            Critical,
            &[
                "rabbitmqctl",
                "rabbitmqadmin",
                "rabbitmq-queues",
                "rabbitmq-plugins",
            ],
            &[],
            r"^(?:rabbitmqctl\s(?:.*\s)?(?:delete_queue|purge_queue|delete_vhost|reset|force_reset|delete_shovel)|rabbitmqadmin\s(?:.*\s)?(?:delete\s+(?:queue|exchange|vhost)|purge\s+queue)|rabbitmq-queues\s(?:.*\s)?delete)(?:\s|$)",
            "deletes or purges RabbitMQ queues or vhosts (or resets the node): their messages are gone",
            "`rabbitmqctl list_queues` first, and let a human delete",
        ),
        shell(
            "cloud-queue-delete",
            Critical,
            &["aws", "gcloud", "az"],
            &["delete", "purge"],
            r"^(?:aws\s(?:.*\s)?(?:sqs\s+(?:purge-queue|delete-queue|delete-message-batch)|sns\s+delete-topic|kinesis\s+delete-stream|mq\s+delete-broker|kafka\s+delete-cluster)|gcloud\s(?:.*\s)?pubsub\s+(?:topics|lite-topics|subscriptions|lite-subscriptions|snapshots)\s+delete|az\s(?:.*\s)?(?:servicebus|eventhubs)\s(?:.*\s)?delete)(?:\s|$)",
            "deletes or purges a cloud queue, topic or stream with its messages",
            "check it is unused and empty first, and let a human delete",
        ),
        shell(
            "cloud-subscription-delete",
            High,
            &["gcloud"],
            &["delete", "seek"],
            r"^gcloud\s(?:.*\s)?pubsub\s+(?:subscriptions|lite-subscriptions)\s+seek(?:\s|$)",
            "moves a Pub/Sub subscription: messages are re-delivered or skipped",
            "check which consumer uses it first",
        ),
        shell(
            "pulsar-delete",
            Critical,
            &["pulsar-admin", "pulsarctl"],
            &[],
            r"^(?:pulsar-admin|pulsarctl)\s(?:.*\s)?(?:topics?|namespaces?|tenants?)\s+(?:delete|delete-partitioned-topic|clear-backlog)(?:\s|$)",
            "deletes Pulsar topics, namespaces or tenants (or their backlog)",
            "let a human delete",
        ),
        shell(
            "broker-queue-purge",
            Critical,
            &["activemq", "artemis"],
            &[],
            r"^(?:activemq|artemis)\s(?:.*\s)?(?:purge|queue\s+(?:purge|delete)|destroy)(?:\s|$)",
            "purges or deletes a broker's queues: the messages waiting in them are gone",
            "list the queues and their depths first, and let a human purge",
        ),
    ],
};
